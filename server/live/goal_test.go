package live

import (
	"strings"
	"testing"
	"time"

	"myco/e2e/fakellm"
	"myco/profiles"
	"myco/server/llm"
	"myco/session"
)

// newGoalEnv is a file env whose model is the fake model server.
func newGoalEnv(t *testing.T) (*fileEnv, *fakellm.Server) {
	t.Helper()
	fake := fakellm.Start(t)
	settings := profiles.DefaultSettings()
	settings.DefaultModel = "anthropic/fake-model"
	settings.Providers = map[string]profiles.Provider{"anthropic": {BaseURL: fake.URL, APIKeyEnv: "FAKE_KEY"}}
	getenv := func(k string) string {
		if k == "FAKE_KEY" {
			return "sk-test"
		}
		return ""
	}
	e := newFileEnv(t, func(o *Options) {
		o.DefaultModel = settings.DefaultModel
		o.RetryDelays = []time.Duration{time.Millisecond}
	})
	e.opts.Models = llm.NewRegistry(settings, getenv, e.images)
	return e, fake
}

// A goal survives a restart paused: a new Manager over the same store
// (a new process) finds it running in the document, pauses it and starts
// nothing; /goal then resumes it from its count.
func TestGoalSurvivesARestartPaused(t *testing.T) {
	e, fake := newGoalEnv(t)
	doc, err := e.store.Create(session.NewSession{Title: "restart", Cwd: e.work})
	if err != nil {
		t.Fatal(err)
	}
	// What a process that died mid-goal leaves: running, 3 turns used.
	if _, err := e.store.Update(doc.ID, func(d *session.Document) error {
		d.Goal = &session.Goal{Text: "carry on [[goal: done finished]]", TurnsMax: 5, TurnsUsed: 3, State: session.GoalRunning}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s := e.open(t, doc.ID)
	if g := s.Goal(); g == nil || g.State != session.GoalPaused || g.TurnsUsed != 3 || !strings.Contains(g.Note, "restarted") {
		t.Fatalf("goal on open %+v, want paused at 3 turns", g)
	}
	snap := s.Snapshot()
	if snap.Status != StatusIdle {
		t.Fatalf("status %s on open: a restart started work", snap.Status)
	}
	// A tab that reconnects gets the goal, as a goal event carries it.
	if snap.Goal == nil || snap.Goal.State != session.GoalPaused || snap.Goal.TurnsUsed != 3 {
		t.Fatalf("snapshot goal %+v, want the paused goal", snap.Goal)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("%d model calls on open", n)
	}
	if _, err := s.MoveGoal(session.GoalRunning); err != nil {
		t.Fatal(err)
	}
	for s.Goal().State != session.GoalDone {
		e.events.next(t, "goal")
	}
	e.events.next(t, "turn.end")
	g := s.Goal()
	if g.TurnsUsed != 4 || g.Note != "finished" {
		t.Fatalf("goal %+v, want done in turn 4", g)
	}
	// And a clean shutdown mid-goal leaves it paused too (Stop pauses).
	if _, err := s.SetGoal("again [[goal: working]]", 100); err != nil {
		t.Fatal(err)
	}
	s.m.Close()
	again := e.open(t, doc.ID)
	if g := again.Goal(); g.State != session.GoalPaused || g.TurnsUsed < 1 {
		t.Fatalf("goal after a shutdown %+v, want paused", g)
	}
}
