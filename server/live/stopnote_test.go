package live

import (
	"context"
	"strings"
	"testing"
	"time"

	"myco/e2e/fakellm"
)

// lastUserText is the text of the last user message of a recorded
// Anthropic request, as sent.
func lastUserText(t *testing.T, r fakellm.Recorded) string {
	t.Helper()
	msgs, _ := r.JSON["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		if m["role"] != "user" {
			continue
		}
		var b strings.Builder
		content, _ := m["content"].([]any)
		for _, c := range content {
			if c, ok := c.(map[string]any); ok && c["type"] == "text" {
				b.WriteString(c["text"].(string) + "\n")
			}
		}
		return b.String()
	}
	return ""
}

// After the person stops a turn, the next request tells the model so,
// once, in the context note that rides with their next message (after
// the cached prefix); the request after it does not repeat it.
func TestStopIsToldOnce(t *testing.T) {
	e, fake := newGoalEnv(t)
	s := e.newSession(t)
	runTurn(t, s, "first")

	done := make(chan TurnResult, 1)
	go func() {
		r, _ := s.Run(context.Background(), "write a lot [[text:400]] [[delay:50ms]]")
		done <- r
	}()
	deadline := time.After(30 * time.Second)
	for st, _ := s.State(); st != StatusWriting; st, _ = s.State() {
		select {
		case <-deadline:
			t.Fatal("the turn never started writing")
		case <-time.After(5 * time.Millisecond):
		}
	}
	if _, err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	<-done

	runTurn(t, s, "what now?")
	reqs := fake.Requests()
	if got := lastUserText(t, reqs[len(reqs)-1]); !strings.Contains(got, stoppedNote) {
		t.Fatalf("the request after the stop does not tell it:\n%s", got)
	}
	runTurn(t, s, "and then?")
	reqs = fake.Requests()
	if got := lastUserText(t, reqs[len(reqs)-1]); strings.Contains(got, stoppedNote) {
		t.Fatalf("the stop is told again:\n%s", got)
	}
	// A turn that ended on its own tells nothing.
	if n := strings.Count(string(reqs[len(reqs)-1].Body), stoppedNote); n != 1 {
		t.Fatalf("the stop note is in the history %d times, want once", n)
	}
}
