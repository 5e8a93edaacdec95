package live

import (
	"testing"

	"myco/session"
)

func TestRetryPointSkipsAnUndoneTurn(t *testing.T) {
	doc := &session.Document{Threads: []session.Thread{{Messages: []session.Message{
		{ID: "q1", Role: "user", Human: true},
		{ID: "a1", Role: "assistant"},
		{ID: "q2", Role: "user", Human: true, Undone: true},
		{ID: "a2", Role: "assistant", Undone: true},
	}}}}
	if human, _ := retryPoint(doc); human != "" {
		t.Errorf("retry point %q after an undo, want none", human)
	}
	doc.Threads[0].Messages = doc.Threads[0].Messages[:2]
	if human, replaced := retryPoint(doc); human != "q1" || len(replaced) != 1 {
		t.Errorf("retry point %q %v, want q1 replacing a1", human, replaced)
	}
}
