package server_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"myco/session"
)

// Deleting a session whose archive waits for its running turn: the turn is
// stopped as Stop stops it, the live session lets its lock go, and then
// everything goes; nothing is left in session/ or session/archived/. A live
// session that is not archived is refused before anything changes: its
// turn goes on.
func TestDeleteWhileTurnRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		archive bool
		// reach starts a turn and returns once it is in the state.
		reach func(t *testing.T, e *engine, st *stream, id string) *heldCall
		want  int
	}{
		{"archived, thinking", true, thinking, http.StatusNoContent},
		{"archived, tool running", true, toolRunning, http.StatusNoContent},
		{"not archived, thinking", false, thinking, http.StatusConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEngine(t, time.Millisecond, bashAllowed)
			s := e.create(tt.name)
			st := e.stream(t, s.ID)
			h := tt.reach(t, e, st, s.ID)
			if tt.archive {
				wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/archive", nil), http.StatusOK)
				if archived, _ := e.sessions.IsArchived(s.ID); archived {
					t.Fatal("the files moved while the turn ran")
				}
			}
			code, body := e.call("DELETE", "/api/sessions/"+s.ID, "")
			if code != tt.want {
				t.Fatalf("DELETE answered %d %s, want %d", code, body, tt.want)
			}
			if tt.want != http.StatusNoContent {
				if !strings.Contains(body, "archive it first") {
					t.Errorf("refusal %q does not say to archive first", body)
				}
				// Refused before anything changed: the turn goes on.
				h.let()
				if got := trace(t, untilStatus(st, "idle")); !slices.Contains(got, "turn.end:end_turn") {
					t.Errorf("a refused delete cut the turn: %v", got)
				}
				wellFormed(t, settled(t, e.sessions, s.ID))
				return
			}
			if got := trace(t, untilTurnRests(st, nil)); !slices.Contains(got, "turn.end:interrupted") {
				t.Errorf("the turn did not end as stopped: %v", got)
			}
			wantGone(t, e.testServer, s.ID)
		})
	}
}

// thinking holds the turn's model call.
func thinking(t *testing.T, e *engine, st *stream, id string) *heldCall {
	h := e.gate.hold(callChat)
	wantStatus(t, e.send(id, "[[say:finished]]"), http.StatusAccepted)
	h.wait(t)
	untilStatus(st, "thinking")
	return h
}

// toolRunning holds the turn in a command that would run for a while.
func toolRunning(t *testing.T, e *engine, st *stream, id string) *heldCall {
	wantStatus(t, e.send(id, `[[tool:bash {"command":"sleep 30; echo never"}]]`), http.StatusAccepted)
	untilStatus(st, "tool")
	return &heldCall{release: make(chan struct{})}
}

// wantGone checks that session id left nothing behind: no file named for
// it in session/ or session/archived/ (the lock file included), its
// document answers 404, and its lock is free.
func wantGone(t *testing.T, ts *testServer, id string) {
	t.Helper()
	for _, dir := range []string{"session", filepath.Join("session", "archived")} {
		left, err := filepath.Glob(filepath.Join(ts.dir, dir, id+"*"))
		if err != nil {
			t.Fatal(err)
		}
		if len(left) > 0 {
			t.Errorf("files left in %s: %v", dir, left)
		}
	}
	resp := ts.do("GET", "/api/sessions/"+id, nil)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET after delete: %d, want 404", resp.StatusCode)
	}
	other, err := session.Open(filepath.Join(ts.dir, "session"), session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := other.Lock(id, session.Owner{})
	if err != nil {
		t.Fatalf("the deleted session's lock is still held: %v", err)
	}
	l.Unlock()
	os.Remove(filepath.Join(ts.dir, "session", id+".lock")) // the probe's
}

// A delete that comes just as the pending archive's turn ends, while the
// archive finishes (its files move) in the background: whichever goes
// first, the delete succeeds and nothing is left, not even a lock file.
func TestRaceDeleteAsArchiveFinishes(t *testing.T) {
	t.Parallel()
	e := newEngine(t, time.Millisecond)
	for i := range raceRuns() {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			s := e.create(fmt.Sprintf("delete race %d", i))
			st := e.stream(t, s.ID)
			h := thinking(t, e, st, s.ID)
			wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/archive", nil), http.StatusOK)
			h.let()
			if i%2 == 1 {
				untilTurnRests(st, nil)
			}
			if code, body := e.call("DELETE", "/api/sessions/"+s.ID, ""); code != http.StatusNoContent {
				t.Fatalf("DELETE answered %d %s", code, body)
			}
			wantGone(t, e.testServer, s.ID)
		})
	}
}
