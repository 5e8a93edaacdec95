package schedule_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"myco/schedule"
)

// clock is a fake clock a test moves by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// runner is a fake Runner: it counts runs, and holds each until release
// is closed when block is set.
type runner struct {
	mu      sync.Mutex
	runs    []schedule.Run
	started chan schedule.Run
	block   chan struct{}
}

func newRunner() *runner { return &runner{started: make(chan schedule.Run, 100)} }

func (r *runner) Prepare(ctx context.Context, sc schedule.Schedule, run schedule.Run) (string, error) {
	return "session-" + run.ID[:8], nil
}

func (r *runner) Run(ctx context.Context, sc schedule.Schedule, run schedule.Run, session string) schedule.Result {
	r.mu.Lock()
	r.runs = append(r.runs, run)
	r.mu.Unlock()
	r.started <- run
	if r.block != nil {
		select {
		case <-r.block:
		case <-ctx.Done():
			return schedule.Result{Outcome: schedule.OutcomeStopped}
		}
	}
	return schedule.Result{Outcome: schedule.OutcomeDone, Usage: schedule.Tokens{Input: 10, Output: 5}, Note: "note-1"}
}

func (r *runner) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.runs)
}

// held is a lock this process holds.
type held struct{}

func (held) TryLock() (bool, error) { return true, nil }

// env is a profile folder with its store, and a clock.
type env struct {
	dir   string
	clock *clock
	store *schedule.Store
}

func newEnv(t *testing.T, now time.Time) *env {
	t.Helper()
	c := &clock{t: now}
	dir := t.TempDir()
	return &env{dir: dir, clock: c, store: schedule.OpenStore(dir, c.Now)}
}

// start is a scheduler of a process (a new one is a restart).
func (e *env) start(r *runner, lock schedule.Locker) *schedule.Scheduler {
	return schedule.New(schedule.Options{
		Store: schedule.OpenStore(e.dir, e.clock.Now), Runner: r, Lock: lock,
		Now: e.clock.Now, Location: time.UTC,
	})
}

func (e *env) add(t *testing.T, sc schedule.Schedule) schedule.Schedule {
	t.Helper()
	sc.Enabled = true
	sc.Prompt = "check the build"
	out, err := e.store.Add(sc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (e *env) get(t *testing.T, id string) schedule.Schedule {
	t.Helper()
	sc, err := e.store.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func day(d, h, m, s int) time.Time { return time.Date(2026, 12, d, h, m, s, 0, time.UTC) }

// A slot fires once: a second look at the same slot, and a restart after
// it, run nothing more; the next slot runs once too. The run is recorded
// before it starts (running, with its session) and after (done, usage).
func TestSlotFiresOnceAcrossARestart(t *testing.T) {
	e := newEnv(t, day(2, 8, 0, 0))
	sc := e.add(t, schedule.Schedule{Name: "build", When: "0 9 * * *"})
	r := newRunner()
	r.block = make(chan struct{})
	s := e.start(r, held{})
	ctx := context.Background()

	e.clock.Set(day(2, 8, 59, 0))
	if next := s.Step(ctx); !next.Equal(day(2, 9, 0, 0)) {
		t.Fatalf("next slot %v, want 09:00", next)
	}
	e.clock.Set(day(2, 9, 0, 1))
	s.Step(ctx)
	<-r.started
	got := e.get(t, sc.ID)
	if run, _ := got.LastRun(); run.Outcome != schedule.OutcomeRunning || run.Session == "" || !run.Slot.Equal(day(2, 9, 0, 0)) || run.Trigger != schedule.TriggerClock {
		t.Fatalf("before the run ends its record is %+v, want running with its session", run)
	}
	close(r.block)
	s.Wait()
	got = e.get(t, sc.ID)
	if run, _ := got.LastRun(); run.Outcome != schedule.OutcomeDone || run.FinishedAt.IsZero() || run.Usage.Input != 10 || run.Note != "note-1" {
		t.Fatalf("after the run its record is %+v", run)
	}
	e.clock.Set(day(2, 9, 0, 30))
	s.Step(ctx)
	s.Wait()

	restarted := e.start(r, held{})
	e.clock.Set(day(2, 9, 10, 0))
	if next := restarted.Step(ctx); !next.Equal(day(3, 9, 0, 0)) {
		t.Errorf("after a restart the next slot is %v, want tomorrow 09:00", next)
	}
	restarted.Wait()
	if n := r.count(); n != 1 {
		t.Fatalf("%d runs of one slot, want 1", n)
	}
	e.clock.Set(day(3, 9, 0, 0))
	restarted.Step(ctx)
	restarted.Wait()
	if n := r.count(); n != 2 {
		t.Fatalf("%d runs after the second slot, want 2", n)
	}
	if runs := e.get(t, sc.ID).Runs; len(runs) != 2 {
		t.Errorf("%d runs recorded, want 2: %+v", len(runs), runs)
	}
}

// Slots missed while myco was stopped: run_once runs one run at start,
// however many passed; skip records one skipped run and runs nothing.
// Either way a second restart does nothing, and the next slot runs.
func TestMissedSlots(t *testing.T) {
	tests := []struct {
		missed      string
		wantRuns    int
		wantOutcome string
	}{
		{schedule.MissedRunOnce, 1, schedule.OutcomeDone},
		{schedule.MissedSkip, 0, schedule.OutcomeSkipped},
	}
	for _, tt := range tests {
		t.Run(tt.missed, func(t *testing.T) {
			e := newEnv(t, day(1, 8, 0, 0))
			sc := e.add(t, schedule.Schedule{Name: "inbox", When: "0 9 * * *", Missed: tt.missed})
			r := newRunner()
			ctx := context.Background()
			// myco was stopped from day 1 08:00 to day 3 12:00: three slots.
			e.clock.Set(day(3, 12, 0, 0))
			s := e.start(r, held{})
			s.Step(ctx)
			s.Wait()
			if n := r.count(); n != tt.wantRuns {
				t.Fatalf("%d runs at start, want %d", n, tt.wantRuns)
			}
			got := e.get(t, sc.ID)
			run, _ := got.LastRun()
			if len(got.Runs) != 1 || run.Outcome != tt.wantOutcome || !run.Slot.Equal(day(3, 9, 0, 0)) {
				t.Fatalf("runs %+v, want one %s for the last missed slot", got.Runs, tt.wantOutcome)
			}
			if tt.missed == schedule.MissedRunOnce && run.Trigger != schedule.TriggerMissed {
				t.Errorf("trigger %q, want missed", run.Trigger)
			}
			// Restarted again, the same day: nothing.
			e.clock.Set(day(3, 12, 5, 0))
			s2 := e.start(r, held{})
			s2.Step(ctx)
			s2.Wait()
			if n := r.count(); n != tt.wantRuns || len(e.get(t, sc.ID).Runs) != 1 {
				t.Fatalf("a second restart ran again: %d runs", n)
			}
			// The next slot, on time, runs whatever missed says.
			e.clock.Set(day(4, 9, 0, 2))
			s2.Step(ctx)
			s2.Wait()
			if n := r.count(); n != tt.wantRuns+1 {
				t.Fatalf("%d runs after the next slot, want %d", n, tt.wantRuns+1)
			}
		})
	}
}

// A run recorded as started and never finished (myco died during it) is
// marked interrupted by the next process, not run again.
func TestCrashMidRunIsNotRerun(t *testing.T) {
	e := newEnv(t, day(2, 8, 0, 0))
	sc := e.add(t, schedule.Schedule{Name: "report", When: "0 9 * * *"})
	dying := newRunner()
	dying.block = make(chan struct{})
	ctx, kill := context.WithCancel(context.Background())
	first := e.start(dying, held{})
	e.clock.Set(day(2, 9, 0, 0))
	first.Step(ctx)
	<-dying.started
	// The process dies here: its run is on disk as running.

	e.clock.Set(day(2, 9, 3, 0))
	r := newRunner()
	second := e.start(r, held{})
	second.Step(context.Background())
	second.Wait()
	if n := r.count(); n != 0 {
		t.Fatalf("the interrupted slot ran again (%d runs)", n)
	}
	got := e.get(t, sc.ID)
	run, _ := got.LastRun()
	if len(got.Runs) != 1 || run.Outcome != schedule.OutcomeInterrupted || run.FinishedAt.IsZero() {
		t.Fatalf("runs %+v, want the one run interrupted", got.Runs)
	}
	if !got.LastSlot.Equal(day(2, 9, 0, 0)) {
		t.Errorf("last slot %v, want 09:00 dealt with", got.LastSlot)
	}
	kill()
	first.Wait()
}

// Two processes on one profile: only the one holding the profile's lock
// runs schedules; the other takes over once the lock is let go.
func TestOnlyTheLockHolderRuns(t *testing.T) {
	e := newEnv(t, day(2, 8, 0, 0))
	e.add(t, schedule.Schedule{Name: "digest", When: "0 9 * * *"})
	e.add(t, schedule.Schedule{Name: "hourly", When: "0 * * * *"})
	lockPath := filepath.Join(e.dir, "server.lock")
	lockA, lockB := flock.New(lockPath), flock.New(lockPath)
	rA, rB := newRunner(), newRunner()
	a, b := e.start(rA, lockA), e.start(rB, lockB)
	ctx := context.Background()

	e.clock.Set(day(2, 9, 0, 0))
	a.Step(ctx)
	b.Step(ctx)
	a.Wait()
	b.Wait()
	if !a.Holder() || b.Holder() {
		t.Fatalf("holders a=%v b=%v, want a alone", a.Holder(), b.Holder())
	}
	if rA.count() != 2 || rB.count() != 0 {
		t.Fatalf("runs a=%d b=%d, want 2 and 0", rA.count(), rB.count())
	}
	if _, err := b.RunNow(ctx, "whatever"); !errors.Is(err, schedule.ErrNotHolder) {
		t.Errorf("run now in the process without the lock: %v", err)
	}

	lockA.Unlock() // process a ends
	e.clock.Set(day(2, 10, 0, 0))
	b.Step(ctx)
	b.Wait()
	if !b.Holder() || rB.count() != 1 || rA.count() != 2 {
		t.Fatalf("after a let go: b holder %v, runs a=%d b=%d, want b to run the 10:00 slot", b.Holder(), rA.count(), rB.count())
	}
}

// The loop wakes at the slot on its own clock, and at once on Wake: a
// test moves the fake clock and wakes it, no sleeping.
func TestLoopWakes(t *testing.T) {
	e := newEnv(t, day(2, 8, 0, 0))
	sc := e.add(t, schedule.Schedule{Name: "every", When: "@every 30m"})
	r := newRunner()
	s := e.start(r, held{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	for i := 1; i <= 3; i++ {
		e.clock.Set(day(2, 8, 30*i, 0))
		s.Wake()
		select {
		case run := <-r.started:
			if want := day(2, 8, 30*i, 0); !run.Slot.Equal(want) {
				t.Errorf("run %d for slot %v, want %v", i, run.Slot, want)
			}
			s.Wait() // a slot that comes during a run is skipped
		case <-time.After(10 * time.Second):
			t.Fatalf("no run %d after waking the loop", i)
		}
	}
	cancel()
	<-done
	s.Wait()
	if n := len(e.get(t, sc.ID).Runs); n != 3 {
		t.Errorf("%d runs recorded, want 3", n)
	}
}

// A slot that comes while the last run still runs is recorded as
// skipped; run now is refused meanwhile. Disabling, and enabling again
// later, runs none of the slots in between.
func TestBusyAndDisabled(t *testing.T) {
	e := newEnv(t, day(2, 8, 0, 0))
	sc := e.add(t, schedule.Schedule{Name: "slow", When: "*/5 * * * *"})
	r := newRunner()
	r.block = make(chan struct{})
	s := e.start(r, held{})
	ctx := context.Background()
	e.clock.Set(day(2, 8, 5, 0))
	s.Step(ctx)
	<-r.started
	e.clock.Set(day(2, 8, 10, 0))
	s.Step(ctx)
	if _, err := s.RunNow(ctx, sc.ID); !errors.Is(err, schedule.ErrBusy) {
		t.Errorf("run now during a run: %v, want busy", err)
	}
	close(r.block)
	s.Wait()
	runs := e.get(t, sc.ID).Runs
	if len(runs) != 2 || runs[0].Outcome != schedule.OutcomeDone || runs[1].Summary() != "skipped: the previous run was still running" {
		t.Fatalf("runs %+v", runs)
	}

	off, on := false, true
	if _, err := e.store.Patch(sc.ID, schedule.Patch{Enabled: &off}); err != nil {
		t.Fatal(err)
	}
	e.clock.Set(day(2, 9, 0, 0))
	s.Step(ctx)
	if _, err := e.store.Patch(sc.ID, schedule.Patch{Enabled: &on}); err != nil {
		t.Fatal(err)
	}
	if next := s.Step(ctx); !next.Equal(day(2, 9, 5, 0)) {
		t.Errorf("next slot after enabling %v, want 09:05", next)
	}
	s.Wait()
	if n := r.count(); n != 1 {
		t.Fatalf("%d runs, want 1: the slots while disabled do not run", n)
	}
	run, err := s.RunNow(ctx, sc.ID)
	if err != nil || run.Trigger != schedule.TriggerNow {
		t.Fatalf("run now: %+v %v", run, err)
	}
	s.Wait()
	if n := r.count(); n != 2 {
		t.Fatalf("%d runs after run now, want 2", n)
	}
}
