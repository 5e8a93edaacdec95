package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// post sends a JSON body to a session's API path.
func (cs *chatServer) post(method, id, path, body string) *http.Response {
	cs.t.Helper()
	return cs.do(method, "/api/sessions/"+id+path, strings.NewReader(body))
}

// A steer sent while a tool round runs goes in after that round: the next
// model call of the same turn has it beside the round's results, and the
// document keeps it, marked, where it went in.
func TestSteerArrivesAfterTheToolRound(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"anthropic", "openai"} {
		t.Run(provider, func(t *testing.T) {
			cs := newChatServer(t, provider)
			s := cs.create("steer")
			st := cs.stream(t, s.ID)
			wantStatus(t, cs.send(s.ID, `[[tool:bash {"command":"echo round-one"}]]`), http.StatusAccepted)
			evs := st.until("tool.approval") // the round is running: its call waits
			ap := data(t, evs[len(evs)-1])
			resp := cs.post("POST", s.ID, "/steer", `{"text":"prefer the short answer"}`)
			wantStatus(t, resp, http.StatusAccepted)
			if got := decode[map[string]string](t, resp); got["steer"] == "" {
				t.Fatalf("steer answer %v", got)
			}
			wantStatus(t, cs.post("POST", s.ID, "/approvals/"+ap["tool_use_id"].(string), `{"decision":"once"}`), 200)
			st.until("turn.end")

			reqs := chatRequests(cs.fake)
			if len(reqs) != 2 {
				t.Fatalf("%d model calls, want 2 (one turn, one tool round)", len(reqs))
			}
			if strings.Contains(sentMessages(t, reqs[0]), "prefer the short answer") {
				t.Error("the steer reached the call made before it was sent")
			}
			second := sentMessages(t, reqs[1])
			res, steer := strings.Index(second, "round-one"), strings.Index(second, "prefer the short answer")
			if res < 0 || steer < res {
				t.Errorf("the next call does not carry the steer after the round's result: %s", second)
			}
			doc, err := cs.sessions.Load(s.ID)
			if err != nil {
				t.Fatal(err)
			}
			msgs := doc.Threads[0].Messages
			var roles []string
			for _, m := range msgs {
				r := m.Role
				if m.Steer {
					r = "steer"
				}
				roles = append(roles, r)
			}
			if want := "user,assistant,user,steer,assistant"; strings.Join(roles, ",") != want {
				t.Errorf("thread %v, want %s", roles, want)
			}
			if m := msgs[3]; !m.Human || textOf(m) != "prefer the short answer" {
				t.Errorf("steer saved as %+v", m)
			}
		})
	}
}

// Without a running turn a steer is an ordinary message; one sent as the
// turn makes its last call waits for a turn of its own.
func TestSteerWithoutTurnIsAMessage(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("plain")
	st := cs.stream(t, s.ID)
	resp := cs.post("POST", s.ID, "/steer", `{"text":"[[say:plain answer]]"}`)
	wantStatus(t, resp, http.StatusAccepted)
	if got := decode[map[string]string](t, resp); got["turn"] == "" {
		t.Fatalf("steer answer %v", got)
	}
	st.until("turn.end")
	if got := textOf(lastMessage(t, cs.sessions, s.ID)); got != "plain answer" {
		t.Errorf("answered %q", got)
	}
	wantStatus(t, cs.post("POST", s.ID, "/steer", `{"text":"  "}`), http.StatusBadRequest)
}

// A side question is answered into its own events and leaves the
// document's threads byte for byte as they were.
func TestBtwLeavesTheThreadsUnchanged(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("btw")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "[[say:first answer]]"), http.StatusAccepted)
	st.until("turn.end")
	threads := func() string {
		doc, err := cs.sessions.Load(s.ID)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(doc.Threads)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	before := threads()
	resp := cs.post("POST", s.ID, "/btw", `{"question":"what did you say? [[say:side answer]]"}`)
	wantStatus(t, resp, http.StatusAccepted)
	id := decode[map[string]string](t, resp)["btw"]
	evs := st.until("btw.end")
	end := data(t, evs[len(evs)-1])
	if end["id"] != id || !strings.Contains(end["html"].(string), "side answer") || end["error"] != nil {
		t.Errorf("btw.end %v", end)
	}
	var streamed string
	for _, ev := range evs {
		if ev.name == "btw.delta" {
			streamed += data(t, ev)["text"].(string)
		}
		if ev.name == "message.end" || ev.name == "turn.start" {
			t.Errorf("the side question touched the conversation: %s", ev.name)
		}
	}
	if streamed != "side answer" {
		t.Errorf("streamed %q", streamed)
	}
	if after := threads(); after != before {
		t.Errorf("threads changed:\n%s\n%s", before, after)
	}
	// Not sent to the model later either.
	wantStatus(t, cs.send(s.ID, "[[say:ok]]"), http.StatusAccepted)
	st.until("turn.end")
	reqs := chatRequests(cs.fake)
	if last := sentMessages(t, reqs[len(reqs)-1]); strings.Contains(last, "side answer") || strings.Contains(last, "what did you say") {
		t.Errorf("the side question reached a later call: %s", last)
	}
}

// A queued message can be edited or cancelled until its turn starts; then
// the change is refused with 409.
func TestQueuedMessageEditedAndCancelled(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("queue edit")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, `[[tool:bash {"command":"echo hold"}]]`), http.StatusAccepted)
	evs := st.until("tool.approval")
	ap := data(t, evs[len(evs)-1])
	queue := func(text string) string {
		resp := cs.post("POST", s.ID, "/messages", `{"queue":true,"text":`+jsonString(text)+`}`)
		wantStatus(t, resp, http.StatusAccepted)
		return decode[map[string]string](t, resp)["queued"]
	}
	first, second := queue("[[say:old text]]"), queue("[[say:cancelled]]")
	resp := cs.post("PATCH", s.ID, "/queued/"+first, `{"text":"[[say:edited text]]"}`)
	wantStatus(t, resp, http.StatusOK)
	if q := decode[map[string]any](t, resp); q["text"] != "[[say:edited text]]" {
		t.Errorf("edit answer %v", q)
	}
	// Every tab hears of it: the third queued event has the edit.
	st.until("queued")
	st.until("queued")
	evs = st.until("queued")
	if q := data(t, evs[len(evs)-1])["queued"].([]any); len(q) != 2 || q[0].(map[string]any)["text"] != "[[say:edited text]]" {
		t.Errorf("queued event %v", q)
	}
	wantStatus(t, cs.post("DELETE", s.ID, "/queued/"+second, ""), http.StatusNoContent)
	wantStatus(t, cs.post("PATCH", s.ID, "/queued/"+first, `{"text":""}`), http.StatusBadRequest)
	wantStatus(t, cs.post("POST", s.ID, "/approvals/"+ap["tool_use_id"].(string), `{"decision":"once"}`), 200)
	st.until("turn.end")
	st.until("turn.end")
	doc, err := cs.sessions.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, m := range doc.Threads[0].Messages {
		if m.Human {
			said = append(said, textOf(m))
		}
	}
	if strings.Join(said, "|") != `[[tool:bash {"command":"echo hold"}]]|[[say:edited text]]` || len(doc.Queued) != 0 {
		t.Errorf("sent %q, queued %+v", said, doc.Queued)
	}
	if got := textOf(lastMessage(t, cs.sessions, s.ID)); got != "edited text" {
		t.Errorf("answered %q", got)
	}
	wantStatus(t, cs.post("PATCH", s.ID, "/queued/"+first, `{"text":"too late"}`), http.StatusConflict)
	wantStatus(t, cs.post("DELETE", s.ID, "/queued/"+first, ""), http.StatusConflict)
}

// A steer answered 202 is on disk before the answer, in the queue marked
// steer: a crash right after the 202 keeps it (a session reopened keeps
// its queue as the person's messages). It cannot be edited while it waits,
// and goes in once, leaving the queue in the record that saves it.
func TestSteerIsSavedBeforeItsAnswer(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("durable steer")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, `[[tool:bash {"command":"echo round-one"}]]`), http.StatusAccepted)
	evs := st.until("tool.approval")
	ap := data(t, evs[len(evs)-1])
	resp := cs.post("POST", s.ID, "/steer", `{"text":"keep it durable"}`)
	wantStatus(t, resp, http.StatusAccepted)
	id := decode[map[string]string](t, resp)["steer"]
	// What another process reads now: the document and its journal.
	doc, err := cs.sessions.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Queued) != 1 || doc.Queued[0].ID != id || !doc.Queued[0].Steer || doc.Queued[0].Text != "keep it durable" {
		t.Fatalf("queued on disk after the 202: %+v", doc.Queued)
	}
	wantStatus(t, cs.post("PATCH", s.ID, "/queued/"+id, `{"text":"changed"}`), http.StatusConflict)
	wantStatus(t, cs.post("POST", s.ID, "/approvals/"+ap["tool_use_id"].(string), `{"decision":"once"}`), 200)
	st.until("turn.end")
	doc, err = cs.sessions.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range doc.Threads[0].Messages {
		if strings.Contains(textOf(m), "keep it durable") {
			n++
			if !m.Steer || !m.Human {
				t.Errorf("steer saved as %+v", m)
			}
		}
	}
	if n != 1 || len(doc.Queued) != 0 {
		t.Errorf("the steer is in the thread %d time(s), queued %+v; want once, none", n, doc.Queued)
	}
}
