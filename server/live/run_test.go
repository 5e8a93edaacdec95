package live

import (
	"context"
	"strings"
	"testing"
	"time"

	"myco/session"
)

// Run waits for the turn and returns its answer, its usage and how it
// ended: an answer after a tool round, a failure with its reason, and a
// turn stopped by the caller's context.
func TestRunReturnsTheTurnsOutcome(t *testing.T) {
	e, _ := newGoalEnv(t)
	tests := []struct {
		name, text string
		cancel     bool
		answer     string
		stop       string
		failed     bool
	}{
		{name: "answer", text: `[[steps: tool:bash {"command":"echo hi"} ;; say:all done]]`, answer: "all done", stop: "end_turn"},
		{name: "failure", text: "[[fault:400]]", stop: session.StopError, failed: true},
		{name: "stopped", text: "[[hang]]", cancel: true, stop: session.StopInterrupted, failed: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := e.newSession(t)
			s.allowed["bash"] = true
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				time.AfterFunc(200*time.Millisecond, cancel)
			}
			r, err := s.Run(ctx, tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if r.Turn == "" || r.Stop != tc.stop || r.Failed() != tc.failed || !strings.Contains(r.Answer, tc.answer) {
				t.Fatalf("result %+v, want stop %q, answer %q, failed %v", r, tc.stop, tc.answer, tc.failed)
			}
			if tc.failed && !tc.cancel && r.Err == nil {
				t.Fatal("a failed turn without its reason")
			}
			if !tc.failed && r.Usage.OutputTokens == 0 {
				t.Fatalf("usage %+v: the turn's calls are not counted", r.Usage)
			}
			if st, _ := s.State(); st != StatusIdle {
				t.Fatalf("status %s after Run", st)
			}
		})
	}
}
