package server_test

import (
	"net/http"
	"strings"
	"testing"

	"myco/session"
)

// TestAgentSendsNoteToAnotherSession: session_meta send_note leaves a note
// for another session as POST …/notes does: in the document of a session
// not open here, and through the live session (its tabs hear it) when it
// is; a prefix names the session, and the note says which session sent it.
func TestAgentSendsNoteToAnotherSession(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	from := cs.create("Sender")
	to := cs.create("Addressee")
	st := cs.stream(t, from.ID)
	send := func(text string) {
		t.Helper()
		wantStatus(t, cs.send(from.ID, `[[tool:session_meta {"action":"send_note","session":"`+to.ID[:20]+`","text":"`+text+`"}]]`), http.StatusAccepted)
		for _, ev := range st.until("turn.end") {
			if ev.name == "tool.end" && data(t, ev)["is_error"] != false {
				t.Fatalf("send_note failed: %s", ev.data)
			}
		}
	}
	send("build is green")
	doc, err := cs.sessions.Load(to.ID)
	if err != nil {
		t.Fatal(err)
	}
	notes := doc.PendingNotes()
	if len(notes) != 1 || notes[0].Text != "build is green" || !strings.HasPrefix(notes[0].From, "session "+from.ID[:8]) || !strings.Contains(notes[0].From, "Sender") {
		t.Fatalf("addressee's notes %+v", notes)
	}

	// Open here: the live session takes it, and its tabs see the card.
	other := cs.stream(t, to.ID)
	send("deploy done")
	evs := other.until("note")
	if n := data(t, evs[len(evs)-1]); n["text"] != "deploy done" || !strings.Contains(n["html"].(string), "deploy done") {
		t.Errorf("note event %v", n)
	}
}

// A note for a session another process holds is refused with who holds
// it, not a 500.
func TestNoteForASessionHeldElsewhere(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	s := ts.create("Held")
	l, err := ts.sessions.Lock(s.ID, session.Owner{PID: 31337})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	resp := ts.do("POST", "/api/sessions/"+s.ID+"/notes", strings.NewReader(`{"text":"hello"}`))
	wantStatus(t, resp, http.StatusConflict)
	if e := decode[struct{ PID int }](t, resp); e.PID != 31337 {
		t.Errorf("pid %d, want 31337", e.PID)
	}
}
