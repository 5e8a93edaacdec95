package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"myco/session"
)

// untilGoal collects events up to a goal event in state want.
func (st *stream) untilGoal(want string) []sseEvent {
	st.t.Helper()
	var got []sseEvent
	for {
		evs := st.until("goal")
		got = append(got, evs...)
		if data(st.t, evs[len(evs)-1])["state"] == want {
			return got
		}
	}
}

func (cs *chatServer) goal(id string) *session.Goal {
	cs.t.Helper()
	doc, err := cs.sessions.Load(id)
	if err != nil {
		cs.t.Fatal(err)
	}
	return doc.Goal
}

// goalTurns are the goal turns' messages of a session, "Goal, turn N of M: …".
func goalTurns(t *testing.T, ss *session.Store, id string) []string {
	t.Helper()
	doc, err := ss.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range doc.Threads[len(doc.Threads)-1].Messages {
		if m.Goal != nil {
			out = append(out, textOf(m))
		}
	}
	return out
}

// A goal runs turn after turn until the agent reports it done: each turn
// starts with the goal's message, the model sees the goal and the count,
// and goal_status is offered while it runs.
func TestGoalRunsToDone(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"anthropic", "openai"} {
		t.Run(provider, func(t *testing.T) {
			cs := newChatServer(t, provider)
			s := cs.create("goal")
			st := cs.stream(t, s.ID)
			resp := cs.post("POST", s.ID, "/goal", `{"text":"tidy the docs [[goal: working first pass ;; done all tidy]]"}`)
			wantStatus(t, resp, http.StatusAccepted)
			st.untilGoal("done")
			st.until("turn.end")

			g := cs.goal(s.ID)
			if g.State != session.GoalDone || g.TurnsUsed != 2 || g.TurnsMax != session.DefaultGoalTurns || g.Note != "all tidy" {
				t.Fatalf("goal %+v, want done after 2 of 10 turns", g)
			}
			turns := goalTurns(t, cs.sessions, s.ID)
			if len(turns) != 2 || !strings.HasPrefix(turns[1], "Goal, turn 2 of 10: tidy the docs") {
				t.Fatalf("goal messages %q", turns)
			}
			reqs := chatRequests(cs.fake)
			if len(reqs) != 4 {
				t.Fatalf("%d model calls, want 4 (two turns of a report and an answer)", len(reqs))
			}
			if !strings.Contains(sentMessages(t, reqs[2]), "Standing goal, turn 2 of 10") {
				t.Errorf("the second turn's call does not state the goal: %s", sentMessages(t, reqs[2]))
			}
			tools, _ := json.Marshal(reqs[0].JSON["tools"])
			if !strings.Contains(string(tools), "goal_status") {
				t.Error("goal_status is not offered while the goal runs")
			}
			// Done, the goal starts nothing more. goal_status stays in the
			// tools (the set is fixed, so the cached prefix holds) and
			// refuses, saying why.
			wantStatus(t, cs.send(s.ID, `[[tool:goal_status {"status":"done"}]]`), http.StatusAccepted)
			st.until("turn.end")
			reqs = chatRequests(cs.fake)
			if tools, _ := json.Marshal(reqs[len(reqs)-1].JSON["tools"]); !strings.Contains(string(tools), "goal_status") {
				t.Error("goal_status left the tools when the goal was done")
			}
			if msgs := sentMessages(t, reqs[len(reqs)-1]); !strings.Contains(msgs, "No goal is running now") {
				t.Errorf("goal_status after the goal was not refused: %s", msgs)
			}
			if got := goalTurns(t, cs.sessions, s.ID); len(got) != 2 {
				t.Errorf("%d goal turns after it was done", len(got))
			}
		})
	}
}

// A goal that is never done stops at its turn limit.
func TestGoalStopsAtItsTurnLimit(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("limit")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.post("POST", s.ID, "/goal", `{"text":"never ends [[goal: working]]","turns":3}`), http.StatusAccepted)
	st.untilGoal(session.GoalOff)
	g := cs.goal(s.ID)
	if g.TurnsUsed != 3 || g.TurnsMax != 3 || !strings.Contains(g.Note, "limit") {
		t.Fatalf("goal %+v, want off after 3 of 3 turns", g)
	}
	if got := goalTurns(t, cs.sessions, s.ID); len(got) != 3 {
		t.Fatalf("%d goal turns, want 3", len(got))
	}
	// Out of turns, it cannot be resumed: a new goal is needed.
	wantStatus(t, cs.post("PATCH", s.ID, "/goal", `{"state":"running"}`), http.StatusConflict)
	wantStatus(t, cs.post("POST", s.ID, "/goal", `{"text":"too long","turns":101}`), http.StatusBadRequest)
	wantStatus(t, cs.post("POST", s.ID, "/goal", `{"text":"  "}`), http.StatusBadRequest)
}

// The person's message pauses a running goal: it runs (after the goal's
// turn in progress), no goal turn follows it, and /goal (PATCH running)
// resumes the goal where its count stood. DELETE stops it.
func TestGoalPausedByTheMessageAndResumed(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("pause")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.post("POST", s.ID, "/goal", `{"text":"keep at it [[goal: working]]","turns":50}`), http.StatusAccepted)
	st.until("turn.start")
	wantStatus(t, cs.post("POST", s.ID, "/messages", `{"text":"[[say:the person's answer]]","queue":true}`), http.StatusAccepted)
	st.untilGoal(session.GoalPaused)
	// Turns end until the person's message is answered; then nothing runs.
	for textOf(lastMessage(t, cs.sessions, s.ID)) != "the person's answer" {
		st.until("turn.end")
	}
	g := cs.goal(s.ID)
	if g.State != session.GoalPaused || g.TurnsUsed < 1 || g.TurnsUsed > 2 {
		t.Fatalf("goal %+v, want paused after a turn or two", g)
	}
	used := g.TurnsUsed

	resp := cs.post("PATCH", s.ID, "/goal", `{"state":"running"}`)
	wantStatus(t, resp, http.StatusOK)
	evs := st.until("turn.start")
	if !strings.Contains(strings.Join(names(evs), ","), "goal") {
		t.Errorf("no goal event before the resumed turn: %v", names(evs))
	}
	wantStatus(t, cs.post("DELETE", s.ID, "/goal", ""), http.StatusOK)
	st.until("turn.end")
	g = cs.goal(s.ID)
	if g.State != session.GoalOff || g.TurnsUsed != used+1 {
		t.Fatalf("goal %+v, want off after turn %d", g, used+1)
	}
	turns := goalTurns(t, cs.sessions, s.ID)
	if want := "Goal, turn " + itoa(used+1) + " of 50: "; !strings.HasPrefix(turns[len(turns)-1], want) {
		t.Errorf("the resumed turn is %q, want %q…", turns[len(turns)-1], want)
	}
	resp = cs.do("GET", "/api/sessions/"+s.ID+"/goal", nil)
	wantStatus(t, resp, http.StatusOK)
	if got := decode[map[string]*session.Goal](t, resp)["goal"]; got == nil || got.State != session.GoalOff {
		t.Errorf("GET goal %+v", got)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// A turn limit out of range is refused with 400 and a sentence, and sets
// no goal: 0 is not "the default" (it was once taken as 10), nor is a
// negative number. The slash command sends --turns as typed, so /goal
// --turns 0 is this request. No number at all is the default.
func TestGoalTurnsOutOfRange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       int
		msg        string // part of the refusal
		turnsMax   int    // of the goal set
	}{
		{"zero", `{"text":"tidy","turns":0}`, http.StatusBadRequest, "turns must be between 1 and 100, not 0", 0},
		{"negative", `{"text":"tidy","turns":-3}`, http.StatusBadRequest, "turns must be between 1 and 100, not -3", 0},
		{"too many", `{"text":"tidy","turns":101}`, http.StatusBadRequest, "turns must be between 1 and 100, not 101", 0},
		{"not a number", `{"text":"tidy","turns":"5"}`, http.StatusBadRequest, "turns", 0},
		{"none", `{"text":"tidy [[goal: blocked need input]]"}`, http.StatusAccepted, "", session.DefaultGoalTurns},
		{"one", `{"text":"tidy [[goal: blocked need input]]","turns":1}`, http.StatusAccepted, "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := newChatServer(t, "anthropic")
			s := cs.create("turns")
			st := cs.stream(t, s.ID)
			resp := cs.post("POST", s.ID, "/goal", tt.body)
			wantStatus(t, resp, tt.want)
			if tt.want != http.StatusAccepted {
				if e := decode[struct{ Error string }](t, resp); !strings.Contains(e.Error, tt.msg) {
					t.Errorf("refusal %q, want %q", e.Error, tt.msg)
				}
				if g := cs.goal(s.ID); g != nil {
					t.Errorf("a refused goal was set: %+v", g)
				}
				return
			}
			st.untilGoal(session.GoalBlocked)
			if g := cs.goal(s.ID); g == nil || g.TurnsMax != tt.turnsMax {
				t.Errorf("goal %+v, want %d turns at most", g, tt.turnsMax)
			}
		})
	}
}
