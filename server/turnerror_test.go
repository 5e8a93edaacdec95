package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"myco/e2e/fakellm"
	"myco/session"
)

// chatRequests are the agent's model calls the fake received (title
// requests come without tools and are left out).
func chatRequests(f *fakellm.Server) []fakellm.Recorded {
	var out []fakellm.Recorded
	for _, r := range f.Requests() {
		if _, ok := r.JSON["tools"]; ok {
			out = append(out, r)
		}
	}
	return out
}

// sentMessages is the messages of a model request, as JSON.
func sentMessages(t *testing.T, r fakellm.Recorded) string {
	t.Helper()
	b, err := json.Marshal(r.JSON["messages"])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A failed turn's error stays: saved in the document in words a person
// can act on, shown by GET /api/sessions/{id}, never sent to the model,
// and replaced by a retry like any failed answer.
func TestTurnErrorIsSavedAndRetried(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("refused")
	st := cs.stream(t, s.ID)
	// A 401 is not transient: the turn fails at once. x1: the retry passes.
	wantStatus(t, cs.send(s.ID, "hello [[fault:401x1]]"), http.StatusAccepted)
	evs := st.until("turn.end")
	// (panel events come after each saved message; they do not matter here)
	if got := strings.ReplaceAll(strings.Join(names(evs), ","), ",panel", ""); !strings.Contains(got, "message.end,turn.error,turn.end") {
		t.Errorf("events %s: want the failed answer saved before turn.error", got)
	}
	failed := lastMessage(t, cs.sessions, s.ID)
	want := "The API key was refused by anthropic. It is read from FAKE_KEY (settings providers.anthropic.api_key_env)."
	if failed.Role != "assistant" || failed.StopReason != session.StopError || failed.Error == nil ||
		failed.Error.Kind != "auth" || failed.Error.Status != 401 || failed.Error.Provider != "anthropic" || failed.Error.Message != want {
		t.Fatalf("the failed answer as saved: %+v (error %+v)", failed, failed.Error)
	}
	if !strings.Contains(failed.Error.Details, "401") {
		t.Errorf("the saved error's details %q, want the provider's raw answer (401) behind the fold", failed.Error.Details)
	}

	// The document as the API gives it (what a reload shows).
	var doc struct {
		Threads []struct {
			Messages []struct {
				ID    string         `json:"id"`
				Error map[string]any `json:"error"`
			} `json:"messages"`
		} `json:"threads"`
	}
	resp := cs.do("GET", "/api/sessions/"+s.ID, nil)
	wantStatus(t, resp, http.StatusOK)
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	msgs := doc.Threads[0].Messages
	if got := msgs[len(msgs)-1]; got.ID != failed.ID || got.Error["kind"] != "auth" || got.Error["message"] != want || got.Error["status"] != 401.0 {
		t.Errorf("GET /api/sessions/{id} shows the last message as %+v", got)
	}

	// Retry: the failed answer is replaced, and the model sees only the
	// person's message.
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/retry", nil), http.StatusAccepted)
	st.until("turn.end")
	d, err := cs.sessions.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	all := d.Threads[0].Messages
	answer := all[len(all)-1]
	if len(all) != 3 || all[1].ID != failed.ID || all[1].ReplacedBy != answer.ID || textOf(answer) != "You said: hello" || answer.Error != nil {
		t.Fatalf("after the retry: %+v", all)
	}
	reqs := chatRequests(cs.fake)
	if body := sentMessages(t, reqs[len(reqs)-1]); strings.Contains(body, "refused") || strings.Count(body, `"role":"assistant"`) != 0 {
		t.Errorf("the retry's request carries the failure: %s", body)
	}

	// An error left standing is not sent either: the next message goes
	// with the one before it, and no answer between them.
	wantStatus(t, cs.send(s.ID, "again [[fault:401]]"), http.StatusAccepted)
	st.until("turn.end")
	if m := lastMessage(t, cs.sessions, s.ID); m.Error == nil || len(m.Content) != 0 {
		t.Fatalf("second failure saved as %+v", m)
	}
	wantStatus(t, cs.send(s.ID, "then this"), http.StatusAccepted)
	st.until("turn.end")
	reqs = chatRequests(cs.fake)
	body := sentMessages(t, reqs[len(reqs)-1])
	if strings.Contains(body, "refused") || strings.Count(body, `"role":"assistant"`) != 1 || !strings.Contains(body, "then this") {
		t.Errorf("the request after a standing failure: %s", body)
	}
}

// A provider that stays busy ends the turn saying so, after the retries.
func TestTurnErrorBusySaysWait(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("busy")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "[[fault:529]]"), http.StatusAccepted)
	for _, ev := range st.until("turn.end") {
		if ev.name == "status" && data(t, ev)["status"] == "retrying" {
			if detail, _ := data(t, ev)["detail"].(string); !strings.HasSuffix(detail, ": The provider is overloaded (anthropic, 529).") {
				t.Errorf("retrying detail %q", detail)
			}
		}
	}
	m := lastMessage(t, cs.sessions, s.ID)
	if m.Error == nil || m.Error.Kind != "overloaded" || m.Error.Message != "The provider is overloaded (anthropic, 529). myco retried twice; try again in a minute." {
		t.Errorf("a 529 that stayed: %+v", m.Error)
	}
}
