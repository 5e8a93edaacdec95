package session_test

import (
	"strings"
	"testing"

	"myco/session"
)

func TestNewGoal(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		turns      int
		want       int    // turns_max
		err        string // part of the error
	}{
		{name: "given turns", text: " tidy ", turns: 3, want: 3},
		{name: "the fewest", text: "tidy", turns: 1, want: 1},
		{name: "zero is not the default", text: "tidy", turns: 0, err: "between 1 and 100, not 0"},
		{name: "the most", text: "tidy", turns: session.MaxGoalTurns, want: session.MaxGoalTurns},
		{name: "too many", text: "tidy", turns: session.MaxGoalTurns + 1, err: "between 1 and 100"},
		{name: "negative", text: "tidy", turns: -1, err: "between 1 and 100, not -1"},
		{name: "empty", text: "  ", err: "empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := session.NewGoal(tc.text, tc.turns)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || g.TurnsMax != tc.want || g.State != session.GoalRunning || g.Text != "tidy" || g.TurnsUsed != 0 {
				t.Fatalf("goal %+v, %v", g, err)
			}
		})
	}
}

// A goal set, counted and ended through the writer is in the journal: a
// reader (a new process) sees it as it last stood, and removing it (no
// state) takes it out.
func TestGoalIsJournaled(t *testing.T) {
	s, _ := openStore(t, session.Options{})
	created, err := s.Create(session.NewSession{Title: "goal"})
	if err != nil {
		t.Fatal(err)
	}
	id := created.ID
	w := openWriter(t, s, id)
	g, _ := session.NewGoal("ship it", 4)
	steps := []func(*session.Document){
		func(d *session.Document) { d.Goal = g },
		func(d *session.Document) { d.Goal = d.Goal.With(func(g *session.Goal) { g.TurnsUsed++ }) },
		func(d *session.Document) {
			d.Goal = d.Goal.With(func(g *session.Goal) { g.State, g.Note = session.GoalDone, "shipped" })
		},
	}
	for _, step := range steps {
		if _, err := w.Update(func(d *session.Document) error { step(d); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	doc, err := s.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if got := doc.Goal; got == nil || got.Text != "ship it" || got.TurnsUsed != 1 || got.TurnsMax != 4 || got.State != session.GoalDone || got.Note != "shipped" {
		t.Fatalf("loaded goal %+v", got)
	}
	if g.TurnsUsed != 0 || g.State != session.GoalRunning {
		t.Errorf("the first goal was changed in place: %+v", g)
	}
	if _, err := w.Update(func(d *session.Document) error { d.Goal = nil; return nil }); err != nil {
		t.Fatal(err)
	}
	if doc, err = s.Load(id); err != nil || doc.Goal != nil {
		t.Fatalf("goal after removal %+v, %v", doc.Goal, err)
	}
}
