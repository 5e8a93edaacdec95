package session_test

import (
	"testing"

	"myco/session"
)

func TestThreadContext(t *testing.T) {
	text := func(id, s string) session.Message {
		return session.Message{ID: id, Role: "user", Content: []session.Block{{Type: session.BlockText, Text: s}}}
	}
	answered := session.Message{ID: "a", Role: "assistant", Usage: &session.Usage{InputTokens: 900, OutputTokens: 100}}
	replaced := text("r", "0123456789012345678901234567890123456789")
	replaced.ReplacedBy = "x"
	tests := []struct {
		name          string
		thread        session.Thread
		want          int
		wantEstimated bool
	}{
		{"empty", session.Thread{}, 0, false},
		{"reported by its last call", session.Thread{Messages: []session.Message{text("h", "hi"), answered}}, 1000, false},
		{"carried usage is the old thread's", session.Thread{Summary: "0123456789012345", Carried: 1, Messages: []session.Message{answered}}, 4 + 4, true},
		{"estimated, replaced answers left out", session.Thread{Messages: []session.Message{text("h", "01234567"), replaced}}, 4 + 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, estimated := tt.thread.Context()
			if got != tt.want || estimated != tt.wantEstimated {
				t.Errorf("Context() = %d, %v; want %d, %v", got, estimated, tt.want, tt.wantEstimated)
			}
		})
	}
}
