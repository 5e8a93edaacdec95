package schedule

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Runner does a run: the server's, a turn of a session.
type Runner interface {
	// Prepare finds or makes the session the run's turn goes to (a new
	// one titled after the schedule, or the named one) and returns its
	// ID; the run is recorded with it before the turn starts.
	Prepare(ctx context.Context, sc Schedule, r Run) (string, error)
	// Run sends the prompt in session and waits for the turn to end,
	// then delivers its answer. The result's Outcome is one of the
	// Outcome constants (not running).
	Run(ctx context.Context, sc Schedule, r Run, session string) Result
}

// Result is how a run ended.
type Result struct {
	Outcome string
	Detail  string
	Usage   Tokens
	Cost    *float64
	Note    string
}

// Locker is the profile's server lock: only the process that holds it
// runs schedules. *flock.Flock is one (TryLock on a lock it holds says
// true).
type Locker interface {
	TryLock() (bool, error)
}

// Options configure a Scheduler. Store, Runner and Lock are required.
type Options struct {
	Store  *Store
	Runner Runner
	Lock   Locker
	// Now is the clock (time.Now); Location the person's time zone, in
	// which cron fields are read (time.Local).
	Now      func() time.Time
	Location *time.Location
	// Grace is how late a slot may be and still count as on time; a slot
	// later than that was missed (myco stopped, the machine asleep) and
	// its schedule's missed choice decides. 0 means a minute.
	Grace time.Duration
	// Recheck is the longest the loop sleeps without looking (the clock
	// may jump; another process may let the lock go). 0 means a minute.
	Recheck time.Duration
	// Changed is told after every change the scheduler records (a run
	// started, ended, skipped): the pages refresh. May be nil.
	Changed func()
	Logger  *slog.Logger
}

// Scheduler is the durable timing loop. A slot is dealt with once: the
// schedule's last_slot moves to it and its run is recorded, in one
// atomic write of schedules.json, before the run starts; so a restart
// finds it dealt with and a crash mid-run leaves a run recorded as
// running, which the next holder of the lock marks interrupted (never
// reruns).
type Scheduler struct {
	opts Options
	wake chan struct{}

	mu       sync.Mutex
	holder   bool
	inflight map[string]bool // schedule IDs with a run going on in this process
	ended    *sync.Cond      // on mu: a run ended (Wait)
}

// New makes a scheduler; Run starts its loop.
func New(opts Options) *Scheduler {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Location == nil {
		opts.Location = time.Local
	}
	opts.Grace = cmp.Or(opts.Grace, time.Minute)
	opts.Recheck = cmp.Or(opts.Recheck, time.Minute)
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := &Scheduler{opts: opts, wake: make(chan struct{}, 1), inflight: map[string]bool{}}
	s.ended = sync.NewCond(&s.mu)
	return s
}

// Location is the zone the schedules' slots are read in.
func (s *Scheduler) Location() *time.Location { return s.opts.Location }

// Wake makes the loop look again now: a schedule changed, or a test moved
// the clock.
func (s *Scheduler) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Holder says whether this process runs the profile's schedules.
func (s *Scheduler) Holder() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.holder
}

// Wait waits for the runs this process started to end and be recorded.
func (s *Scheduler) Wait() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.inflight) > 0 {
		s.ended.Wait()
	}
}

// Run is the loop: it looks at the schedules, starts what is due, and
// sleeps until the next slot, a Wake, or Recheck, until ctx ends. Runs in
// progress get ctx: ending it stops their turns.
func (s *Scheduler) Run(ctx context.Context) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-s.wake:
		}
		next := s.Step(ctx)
		wait := s.opts.Recheck
		if !next.IsZero() {
			wait = min(wait, max(next.Sub(s.opts.Now()), 0))
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(wait)
	}
}

// Step is one look: take the lock if this process does not hold it yet
// (and then mark the runs a dead holder left as interrupted), deal with
// every due slot, and say when the next slot comes (zero: none known).
// Runs it starts go on in the background (Wait).
func (s *Scheduler) Step(ctx context.Context) time.Time {
	if !s.takeLock() {
		return time.Time{}
	}
	list, err := s.opts.Store.List()
	if err != nil {
		s.opts.Logger.Warn("schedules not read", "err", err)
		return time.Time{}
	}
	var next time.Time
	for _, sc := range list {
		if n := s.consider(ctx, sc); !n.IsZero() && (next.IsZero() || n.Before(next)) {
			next = n
		}
	}
	return next
}

// takeLock reports whether this process holds the profile's lock, taking
// it if it can. The first time it does, runs recorded as running are
// left from a holder that died: they are marked interrupted.
func (s *Scheduler) takeLock() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holder {
		return true
	}
	ok, err := s.opts.Lock.TryLock()
	if err != nil {
		s.opts.Logger.Warn("profile lock not taken; schedules do not run", "err", err)
	}
	if !ok {
		return false
	}
	s.holder = true
	s.recover()
	return true
}

// recover marks every run recorded as running, and not running here, as
// interrupted. Its slot stays dealt with.
func (s *Scheduler) recover() {
	list, err := s.opts.Store.List()
	if err != nil {
		s.opts.Logger.Warn("schedules not read", "err", err)
		return
	}
	now := s.opts.Now().UTC()
	for _, sc := range list {
		if !sc.Running() || s.inflight[sc.ID] {
			continue
		}
		_, err := s.opts.Store.Update(sc.ID, func(sc *Schedule) error {
			for i := range sc.Runs {
				if r := &sc.Runs[i]; !r.Finished() {
					r.Outcome, r.Detail, r.FinishedAt = OutcomeInterrupted, "myco stopped before the run ended; it is not run again", now
				}
			}
			return nil
		})
		if err != nil {
			s.opts.Logger.Warn("interrupted run not recorded", "schedule", sc.ID, "err", err)
		}
	}
	s.changed()
}

// consider deals with sc's due slot, if it has one, and returns its next
// slot.
func (s *Scheduler) consider(ctx context.Context, sc Schedule) time.Time {
	if !sc.Enabled {
		return time.Time{}
	}
	w, err := ParseWhen(sc.When)
	if err != nil {
		return time.Time{}
	}
	loc, now := s.opts.Location, s.opts.Now()
	slot, _ := w.Latest(sc.anchor(), now, loc)
	if slot.IsZero() {
		return w.Next(sc.anchor(), loc)
	}
	r := Run{ID: uuid.NewString(), Slot: slot.UTC(), Trigger: TriggerClock, StartedAt: now.UTC(), Outcome: OutcomeRunning}
	late := now.Sub(slot) > s.opts.Grace
	switch {
	case late && sc.Missed == MissedSkip:
		r.Outcome, r.Detail, r.FinishedAt = OutcomeSkipped, "missed while myco was stopped", now.UTC()
	case s.busy(sc.ID):
		r.Outcome, r.Detail, r.FinishedAt = OutcomeSkipped, "the previous run was still running", now.UTC()
	case late:
		r.Trigger = TriggerMissed
	}
	if err := s.start(ctx, sc.ID, r, slot); err != nil {
		s.opts.Logger.Warn("schedule slot not recorded", "schedule", sc.ID, "err", err)
	}
	return w.Next(slot, loc)
}

// RunNow runs sc at once, outside its slots (which stay as they are).
// It returns the run as recorded before it starts.
func (s *Scheduler) RunNow(ctx context.Context, id string) (Run, error) {
	if !s.takeLock() {
		return Run{}, ErrNotHolder
	}
	if s.busy(id) {
		return Run{}, ErrBusy
	}
	now := s.opts.Now().UTC()
	r := Run{ID: uuid.NewString(), Trigger: TriggerNow, StartedAt: now, Outcome: OutcomeRunning}
	if err := s.start(ctx, id, r, time.Time{}); err != nil {
		return Run{}, err
	}
	return r, nil
}

func (s *Scheduler) busy(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inflight[id]
}

// start records r (and the slot as dealt with, when it has one), then
// runs it in the background unless it is already finished (skipped).
func (s *Scheduler) start(ctx context.Context, id string, r Run, slot time.Time) error {
	s.mu.Lock()
	if r.Outcome == OutcomeRunning {
		if s.inflight[id] {
			s.mu.Unlock()
			return ErrBusy
		}
		s.inflight[id] = true
	}
	s.mu.Unlock()
	sc, err := s.opts.Store.Update(id, func(sc *Schedule) error {
		if !slot.IsZero() {
			if !slot.After(sc.LastSlot) {
				return errors.New("slot already dealt with")
			}
			sc.LastSlot = slot.UTC()
		}
		sc.Runs = append(sc.Runs, r)
		return nil
	})
	if err != nil || r.Outcome != OutcomeRunning {
		if r.Outcome == OutcomeRunning {
			s.done(id)
		}
		if err == nil {
			s.changed()
		}
		return err
	}
	s.changed()
	go func() {
		defer s.done(id)
		s.execute(ctx, sc, r)
	}()
	return nil
}

func (s *Scheduler) done(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.inflight, id)
	s.ended.Broadcast()
}

// execute prepares the run's session, records it, runs the turn and
// records how it ended.
func (s *Scheduler) execute(ctx context.Context, sc Schedule, r Run) {
	var res Result
	session, err := s.opts.Runner.Prepare(ctx, sc, r)
	if err != nil {
		res = Result{Outcome: OutcomeFailed, Detail: err.Error()}
	} else {
		r.Session = session
		s.record(sc.ID, r)
		res = s.opts.Runner.Run(ctx, sc, r, session)
	}
	r.Outcome, r.Detail, r.Usage, r.Cost, r.Note = res.Outcome, res.Detail, res.Usage, res.Cost, res.Note
	if r.Outcome == "" || r.Outcome == OutcomeRunning {
		r.Outcome = OutcomeFailed
	}
	if ctx.Err() != nil && r.Outcome != OutcomeDone {
		// myco is stopping: the turn was cut short by that, not by a
		// person, and the slot is not run again.
		r.Outcome, r.Detail = OutcomeInterrupted, "myco stopped during the run; it is not run again"
	}
	r.FinishedAt = s.opts.Now().UTC()
	s.record(sc.ID, r)
}

// record replaces the run's record with r.
func (s *Scheduler) record(id string, r Run) {
	_, err := s.opts.Store.Update(id, func(sc *Schedule) error {
		for i := range sc.Runs {
			if sc.Runs[i].ID == r.ID {
				sc.Runs[i] = r
				return nil
			}
		}
		return fmt.Errorf("run %s is no longer recorded", r.ID)
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		s.opts.Logger.Warn("schedule run not recorded", "schedule", id, "run", r.ID, "err", err)
	}
	s.changed()
}

func (s *Scheduler) changed() {
	if s.opts.Changed != nil {
		s.opts.Changed()
	}
}
