package server_test

import (
	"net/http"
	"testing"

	"myco/session"
)

// Stop stops everything: the running turn, and what waits in the queue,
// steers too. What was queued comes back in the answer, in the order it
// was sent, and leaves the queue (every tab hears it); no turn starts for
// it (issue 20, item 13).
func TestStopTakesTheQueueOut(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("stop the queue")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, `[[tool:bash {"command":"echo hold"}]]`), http.StatusAccepted)
	st.until("tool.approval") // the turn waits, and takes steers
	wantStatus(t, cs.post("POST", s.ID, "/messages", `{"text":"then run the tests","queue":true}`), http.StatusAccepted)
	resp := cs.post("POST", s.ID, "/steer", `{"text":"prefer the short answer"}`)
	wantStatus(t, resp, http.StatusAccepted)
	if got := decode[map[string]string](t, resp); got["steer"] == "" {
		t.Fatalf("steer answer %v, want it waiting for the turn", got)
	}

	resp = cs.post("POST", s.ID, "/stop", "")
	wantStatus(t, resp, http.StatusOK)
	got := decode[struct {
		Unqueued []struct {
			ID, Text string
			Steer    bool
		} `json:"unqueued"`
	}](t, resp)
	if len(got.Unqueued) != 2 || got.Unqueued[0].Text != "then run the tests" || got.Unqueued[1].Text != "prefer the short answer" || !got.Unqueued[1].Steer {
		t.Fatalf("unqueued %+v, want the queued message, then the steer", got.Unqueued)
	}

	// The tabs hear the queue empty, the turn end, and the session idle:
	// no turn follows (release says idle only when it starts none).
	var emptied bool
	for _, ev := range st.until("turn.end") {
		if ev.name == "queued" {
			emptied = len(data(t, ev)["queued"].([]any)) == 0
		}
	}
	if !emptied {
		t.Error("no queued event emptied the tabs' queue")
	}
	if evs := st.until("status"); data(t, evs[len(evs)-1])["status"] != "idle" {
		t.Errorf("after the stop: %v, want idle", data(t, evs[len(evs)-1]))
	}
	if n := len(chatRequests(cs.fake)); n != 1 {
		t.Errorf("%d model calls, want 1: nothing queued may run", n)
	}
	doc, err := cs.sessions.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Queued) != 0 {
		t.Errorf("still queued in the document: %+v", doc.Queued)
	}
	for _, m := range doc.Threads[0].Messages[1:] {
		if m.Human {
			t.Errorf("the queue went into the conversation: %q (steer %v)", textOf(m), m.Steer)
		}
	}
	if last := doc.Threads[0].Messages[len(doc.Threads[0].Messages)-1]; last.Content[0].Type != session.BlockToolResult {
		t.Errorf("the thread ends with %+v, want the stopped call's outcome", last)
	}
}

// With nothing queued the stop's answer says so with an empty list.
func TestStopWithNothingQueued(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("stop alone")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, `[[tool:bash {"command":"echo hold"}]]`), http.StatusAccepted)
	st.until("tool.approval")
	resp := cs.post("POST", s.ID, "/stop", "")
	wantStatus(t, resp, http.StatusOK)
	if got := decode[map[string]any](t, resp); got["unqueued"] == nil || len(got["unqueued"].([]any)) != 0 {
		t.Errorf("stop answered %v, want unqueued: []", got)
	}
	st.until("turn.end")
}
