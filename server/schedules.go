package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"myco/schedule"
	"myco/server/live"
	"myco/session"
)

// A schedule's run is a turn of an ordinary session (ARCHITECTURE.md):
// scheduleRunner makes or finds the session, runs the prompt there with
// live.Session.Run, and leaves the answer as a note in deliver_to, from
// the schedule's name. The timing, the records and the lock are the
// schedule package's.

// newScheduler opens the profile's schedules and makes their loop (Serve
// starts it when this process holds the profile's lock). A server with
// no profile folder (some tests) has none.
func (s *Server) newScheduler() {
	s.runCtx = context.Background()
	s.schedules = s.opts.Schedules
	if s.schedules == nil && s.opts.ProfileDir != "" {
		s.schedules = schedule.OpenStore(s.opts.ProfileDir, s.opts.Now)
	}
	if s.schedules == nil {
		return // no profile: no schedules (routes leaves them out)
	}
	lock := s.opts.ScheduleLock
	if lock == nil {
		lock = notHeld{}
	}
	s.sched = schedule.New(schedule.Options{
		Store: s.schedules, Runner: scheduleRunner{s}, Lock: lock,
		Now: s.opts.Now, Location: s.opts.Location, Logger: s.log,
	})
}

// waitScheduledRuns gives the scheduled runs Serve's end stopped a moment
// to record how they ended (interrupted), before the live sessions close;
// one that does not make it is marked interrupted at the next start.
func (s *Server) waitScheduledRuns(ctx context.Context) {
	if s.sched == nil {
		return
	}
	done := make(chan struct{})
	go func() {
		s.sched.Wait()
		close(done)
	}()
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	select {
	case <-done:
	case <-ctx.Done():
	case <-t.C:
	}
}

// notHeld is the lock of a server that runs no schedules.
type notHeld struct{}

func (notHeld) TryLock() (bool, error) { return false, nil }

// scheduleRunner is the server's schedule.Runner.
type scheduleRunner struct{ s *Server }

var _ schedule.Runner = scheduleRunner{}

// Prepare makes the run's session when the schedule asks for a new one
// each time: titled "⏰ name — date", in the schedule's model, in the
// folder myco was started from.
func (r scheduleRunner) Prepare(_ context.Context, sc schedule.Schedule, run schedule.Run) (string, error) {
	if sc.Session != schedule.NewSession {
		return sc.Session, nil
	}
	model := sc.Model
	if model == "" {
		model = r.s.defaultModel()
	}
	title := "⏰ " + sc.Name + " — " + run.StartedAt.In(r.s.sched.Location()).Format("2006-01-02 15:04")
	doc, err := r.s.opts.Sessions.Create(session.NewSession{Title: session.CleanTitle(title), Model: model, Cwd: r.s.opts.Cwd})
	if err != nil {
		return "", fmt.Errorf("make the run's session: %w", err)
	}
	return doc.ID, nil
}

// Run sends the prompt and waits for the turn. A session whose turn is
// running is not waited for: the run is skipped and says so (a schedule
// never queues behind the person's work, nor piles up behind itself).
func (r scheduleRunner) Run(ctx context.Context, sc schedule.Schedule, run schedule.Run, id string) schedule.Result {
	ls, err := r.s.liveSession(id)
	if err != nil {
		return r.deliver(sc, id, schedule.Result{Outcome: schedule.OutcomeFailed, Detail: err.Error()}, "")
	}
	tr, err := ls.Run(ctx, sc.Prompt)
	if errors.Is(err, live.ErrTurnRunning) {
		return schedule.Result{Outcome: schedule.OutcomeSkipped, Detail: "a turn was running in the session"}
	}
	if err != nil {
		return r.deliver(sc, id, schedule.Result{Outcome: schedule.OutcomeFailed, Detail: err.Error()}, "")
	}
	res := schedule.Result{Outcome: schedule.OutcomeDone, Usage: schedule.Tokens{
		Input: tr.Usage.InputTokens, Output: tr.Usage.OutputTokens,
		CacheRead: tr.Usage.CacheReadInputTokens, CacheWrite: tr.Usage.CacheCreationInputTokens,
	}}
	if cost, ok := r.s.price(ls.Header().Model, tr.Usage); ok {
		res.Cost = &cost
	}
	switch {
	case tr.Err != nil:
		res.Outcome, res.Detail = schedule.OutcomeFailed, tr.Err.Error()
	case tr.Stop == session.StopInterrupted:
		res.Outcome, res.Detail = schedule.OutcomeStopped, "the turn was stopped"
	case tr.Stop == session.StopError:
		res.Outcome, res.Detail = schedule.OutcomeFailed, "the turn failed"
	}
	return r.deliver(sc, id, res, tr.Answer)
}

// deliver leaves the run's answer as a note in deliver_to, from the
// schedule's name, and what went wrong when there is no answer: a
// schedule that fails says so where its answers are read.
func (r scheduleRunner) deliver(sc schedule.Schedule, id string, res schedule.Result, answer string) schedule.Result {
	if sc.DeliverTo == "" {
		return res
	}
	text := strings.TrimSpace(answer)
	switch {
	case res.Outcome != schedule.OutcomeDone:
		text = "The scheduled run " + schedule.Run{Outcome: res.Outcome, Detail: res.Detail}.Summary() + "."
	case text == "":
		text = "The scheduled run ended without an answer."
	}
	if id != "" && id != sc.DeliverTo {
		text += "\n\n(run in session " + id + ")"
	}
	n, err := r.s.leaveNote(sc.DeliverTo, sc.Name, text)
	if err != nil {
		res.Detail = strings.TrimPrefix(res.Detail+"; ", "; ") + "the note to " + sc.DeliverTo + " was not left: " + err.Error()
		return res
	}
	res.Note = n.ID
	return res
}
