package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"myco/e2e/fakellm"
	"myco/server/llm"
)

// idleClients are the providers' clients with a short idle timeout.
func idleClient(p string, srv *fakellm.Server, idle time.Duration) llm.Client {
	if p == "anthropic" {
		return llm.NewAnthropic(llm.ProviderConfig{Name: p, BaseURL: srv.URL, APIKey: "test-key", StreamIdle: idle}, nil)
	}
	return llm.NewOpenAI(llm.ProviderConfig{Name: p, BaseURL: srv.URL + "/v1", StreamIdle: idle}, nil)
}

// A model that goes silent mid-answer, or never sends its headers, fails
// the call after the idle timeout as a retryable broken stream that says
// the model stopped answering (before, the call waited five minutes for
// headers, or forever for the rest of a stream). What arrived is kept.
func TestSilentModelFailsTheCall(t *testing.T) {
	tests := []struct {
		name        string
		directive   string
		wantPartial bool
	}{
		{"silent mid-stream", "[[text:10]] [[silent]]", true},
		{"no headers", "[[text:10]] [[hang]]", false},
	}
	for _, p := range []string{"anthropic", "openai"} {
		for _, tt := range tests {
			t.Run(p+"/"+tt.name, func(t *testing.T) {
				srv := fakellm.Start(t)
				resp, deltas, err := stream(t, idleClient(p, srv, 200*time.Millisecond), request(human(tt.directive)))
				if !errors.Is(err, llm.ErrSilent) {
					t.Fatalf("err = %v, want ErrSilent", err)
				}
				if !llm.IsRetryable(err) {
					t.Errorf("err = %v is not retryable", err)
				}
				if got := text(resp); (got != "") != tt.wantPartial || got != strings.Join(deltas, "") {
					t.Errorf("partial text %q (deltas %q), want partial %v", got, deltas, tt.wantPartial)
				}
				f := llm.Explain(err, nil)
				if !strings.Contains(f.Message, "stopped answering") {
					t.Errorf("Explain: %q, want it to say the model stopped answering", f.Message)
				}
			})
		}
	}
}

// A slow answer whose bytes keep coming is never cut, however long it
// takes in all: the watchdog waits for silence, not for the end.
func TestSlowStreamIsNotSilent(t *testing.T) {
	if testing.Short() {
		t.Skip("streams slowly on purpose")
	}
	for _, p := range []string{"anthropic", "openai"} {
		t.Run(p, func(t *testing.T) {
			srv := fakellm.Start(t)
			// 20 deltas 100ms apart: two seconds in all, twice the timeout.
			resp, _, err := stream(t, idleClient(p, srv, time.Second), request(human("[[text:20]] [[delay:100ms]]")))
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if n := len(strings.Fields(text(resp))); n != 20 {
				t.Errorf("got %d words, want 20", n)
			}
		})
	}
}

// The person's stop during a silent stream is a stop, not a silent model:
// never retried.
func TestStopDuringSilenceIsAStop(t *testing.T) {
	srv := fakellm.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	c := idleClient("anthropic", srv, time.Hour)
	_, err := c.Stream(ctx, request(human("[[text:4]] [[silent]]")), func(string) { cancel() })
	if errors.Is(err, llm.ErrSilent) || llm.IsRetryable(err) || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want a stop (context.Canceled), not retryable", err)
	}
}
