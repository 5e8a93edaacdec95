package llm_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"myco/e2e/fakellm"
	"myco/server/llm"
	"myco/session"
)

func TestFaultsMapToErrors(t *testing.T) {
	tests := []struct {
		name          string
		fault         string
		wantStatus    map[string]int // by provider
		wantRetryable bool
		wantPartial   bool
	}{
		{name: "rate limited", fault: "429", wantStatus: map[string]int{"anthropic": 429, "openai": 429}, wantRetryable: true},
		{name: "overloaded", fault: "529", wantStatus: map[string]int{"anthropic": 529, "openai": 529}, wantRetryable: true},
		{name: "server error", fault: "500", wantStatus: map[string]int{"anthropic": 500, "openai": 500}, wantRetryable: true},
		{name: "bad request", fault: "400", wantStatus: map[string]int{"anthropic": 400, "openai": 400}},
		{name: "cut", fault: "cut", wantRetryable: true, wantPartial: true},
		{name: "malformed", fault: "malformed", wantPartial: true},
		// An error event inside the stream: Anthropic names it overloaded_error.
		{name: "error event", fault: "error", wantStatus: map[string]int{"anthropic": 529}, wantRetryable: true, wantPartial: true},
	}
	for _, p := range providers {
		for _, tt := range tests {
			t.Run(p.name+"/"+tt.name, func(t *testing.T) {
				srv := fakellm.Start(t)
				resp, deltas, err := stream(t, p.client(srv, nil), request(human("[[text:10]] [[fault:"+tt.fault+"]]")))

				var e *llm.Error
				if !errors.As(err, &e) {
					t.Fatalf("err = %v (%T), want *llm.Error", err, err)
				}
				if e.Status != tt.wantStatus[p.name] || e.Retryable != tt.wantRetryable || llm.IsRetryable(err) != tt.wantRetryable {
					t.Errorf("err = %v: status %d retryable %v, want %d %v", err, e.Status, e.Retryable, tt.wantStatus[p.name], tt.wantRetryable)
				}
				if e.Provider != p.name {
					t.Errorf("provider = %q, want %q", e.Provider, p.name)
				}
				if got := text(resp); (got != "") != tt.wantPartial || got != strings.Join(deltas, "") {
					t.Errorf("partial text %q (deltas %q), want partial %v", got, deltas, tt.wantPartial)
				}
				if len(toolUses(resp)) != 0 {
					t.Errorf("a failed response kept tool calls: %+v", resp.Content)
				}
				// The turn loop owns retries: the SDK must not retry on its own.
				if n := len(srv.Requests()); n != 1 {
					t.Errorf("the server got %d requests, want 1", n)
				}
			})
		}
	}
}

// A cut tool call is dropped: its input may be half of it.
func TestCutToolCallDropped(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := fakellm.Start(t)
			resp, _, err := stream(t, p.client(srv, nil), request(human(`[[say:one two three four]] [[tool:bash {"command":"ls"}]] [[fault:cut]]`)))
			if !llm.IsRetryable(err) {
				t.Fatalf("err = %v, want retryable", err)
			}
			if text(resp) != "one two " || len(toolUses(resp)) != 0 {
				t.Errorf("partial = %+v, want the text before the cut and no tool call", resp.Content)
			}
		})
	}
}

func TestCancelMidStream(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := fakellm.Start(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var got []string
			onText := func(d string) {
				got = append(got, d)
				if len(got) == 3 {
					cancel()
				}
			}
			// 200 words 20ms apart take four seconds to stream whole.
			start := time.Now()
			resp, err := p.client(srv, nil).Stream(ctx, request(human("[[text:200]] [[delay:20ms]]")), onText)
			if elapsed := time.Since(start); elapsed > time.Second {
				t.Errorf("Stream returned after %v, want it to stop at once", elapsed)
			}
			if !errors.Is(err, context.Canceled) || llm.IsRetryable(err) {
				t.Errorf("err = %v, want context.Canceled, not retryable", err)
			}
			if text(resp) == "" || !strings.HasPrefix(strings.Join(got, ""), text(resp)) {
				t.Errorf("partial text %q, deltas %q", text(resp), got)
			}
		})
	}
}

func TestUnreadableBlobSendsNothing(t *testing.T) {
	store, ref, _ := imageStore(t)
	missing := strings.Repeat("ab", 32)
	path, err := store.Path(ref.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		sha     string
		damage  func()
		wantErr error
	}{
		{name: "missing", sha: missing, damage: func() {}, wantErr: session.ErrImageMissing},
		{name: "corrupt", sha: ref.SHA256, damage: func() {
			if err := os.WriteFile(path, []byte("not the bytes"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, wantErr: session.ErrImageCorrupt},
	}
	for _, tt := range tests {
		tt.damage()
		for _, p := range providers {
			t.Run(tt.name+"/"+p.name, func(t *testing.T) {
				srv := fakellm.Start(t)
				img := session.Block{Type: session.BlockImage, SHA256: tt.sha, MediaType: "image/png"}
				_, _, err := stream(t, p.client(srv, store), request(human("look", img)))
				if !errors.Is(err, tt.wantErr) || llm.IsRetryable(err) {
					t.Errorf("err = %v, want %v, not retryable", err, tt.wantErr)
				}
				if err != nil && !strings.Contains(err.Error(), tt.sha) {
					t.Errorf("error %q does not name the image", err)
				}
				if n := len(srv.Requests()); n != 0 {
					t.Errorf("the server got %d requests, want none", n)
				}
			})
		}
	}
}
