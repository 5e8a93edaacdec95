package server_test

import (
	"net/http"
	"strings"
	"testing"

	"myco/profiles"
)

// An overload that arrives inside a 200 stream (Anthropic's error event),
// and stays through the retries, reads as one sentence that names what
// failed and what to do. Before, it read "status 529: … 200 OK {…}".
func TestOverloadInStreamReadsWell(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("busy mid-stream")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "[[text:6]] [[fault:error]]"), http.StatusAccepted)
	st.until("turn.end")
	m := lastMessage(t, cs.sessions, s.ID)
	want := "The provider is overloaded (anthropic, 529). myco retried twice; try again in a minute."
	if m.Error == nil || m.Error.Message != want || m.Error.Kind != "overloaded" {
		t.Fatalf("error saved as %+v, want %q", m.Error, want)
	}
}

// A model that goes silent mid-answer is retried, each retry shown, then
// the turn fails saying the model stopped answering. Before, the tab said
// "thinking" for as long as the stream stayed open: forever.
func TestSilentModelIsRetriedThenFails(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits out a silent model, retries included")
	}
	cs := newChatServer(t, "anthropic", func(s *profiles.Settings) { s.StreamIdleTimeout = 1 })
	s := cs.create("silent")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "[[text:6]] [[silent]]"), http.StatusAccepted)
	var retries []string
	for _, ev := range st.until("turn.end") {
		if ev.name == "status" && data(t, ev)["status"] == "retrying" {
			detail, _ := data(t, ev)["detail"].(string)
			retries = append(retries, detail)
		}
	}
	if len(retries) != 2 || !strings.Contains(retries[0], "The model stopped answering (anthropic sent nothing for 1s).") {
		t.Errorf("retries shown: %q, want two that say the model stopped answering", retries)
	}
	m := lastMessage(t, cs.sessions, s.ID)
	want := "The model stopped answering (anthropic sent nothing for 1s). myco retried twice; try again, and check the provider's status if it happens again."
	if m.Error == nil || m.Error.Message != want {
		t.Errorf("error saved as %+v, want %q", m.Error, want)
	}
	if n := len(chatRequests(cs.fake)); n != 3 {
		t.Errorf("%d model calls, want 3 (one and two retries)", n)
	}
}

// A model that answers after going silent once: the retry's answer is
// the turn's, and no error is left.
func TestSilentOnceThenAnswers(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "openai", func(s *profiles.Settings) { s.StreamIdleTimeout = 1 })
	s := cs.create("silent once")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "[[say:at last]] [[hang:1]]"), http.StatusAccepted)
	st.until("turn.end")
	m := lastMessage(t, cs.sessions, s.ID)
	if m.Error != nil || textOf(m) != "at last" {
		t.Errorf("last message %+v, want the retry's answer", m)
	}
}
