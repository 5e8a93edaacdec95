package llm_test

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"

	"myco/e2e/fakellm"
	"myco/server/llm"
)

// TestExplainFaults says each fault of the fake the way the page shows
// it, through the real SDK clients: the words come from what the SDKs
// really return, not from errors built by hand.
func TestExplainFaults(t *testing.T) {
	keyEnv := func(p string) string {
		if p == "anthropic" {
			return "MY_ANTHROPIC_KEY"
		}
		return ""
	}
	tests := []struct {
		fault    string
		kind     string
		want     map[string]string // the message, by provider
		wantCode int
	}{
		{fault: "401", kind: llm.FailAuth, wantCode: 401, want: map[string]string{
			"anthropic": "The API key was refused by anthropic. It is read from MY_ANTHROPIC_KEY (settings providers.anthropic.api_key_env).",
			"openai":    "The API key was refused by openai. No key is sent: name the variable that holds it in settings (providers.openai.api_key_env).",
		}},
		{fault: "403", kind: llm.FailAuth, wantCode: 403, want: map[string]string{
			"anthropic": "The API key was refused by anthropic. It is read from MY_ANTHROPIC_KEY (settings providers.anthropic.api_key_env).",
		}},
		{fault: "429", kind: llm.FailRateLimited, wantCode: 429, want: map[string]string{
			"anthropic": "The provider is rate-limiting requests (anthropic, 429). Try again in a minute.",
			"openai":    "The provider is rate-limiting requests (openai, 429). Try again in a minute.",
		}},
		{fault: "529", kind: llm.FailOverloaded, wantCode: 529, want: map[string]string{
			"anthropic": "The provider is overloaded (anthropic, 529). Try again in a minute.",
			"openai":    "The provider is overloaded (openai, 529). Try again in a minute.",
		}},
		{fault: "503", kind: llm.FailOverloaded, wantCode: 503, want: map[string]string{
			"anthropic": "The provider is overloaded (anthropic, 503). Try again in a minute.",
		}},
		// Any other answer: the provider's own message from its error body.
		{fault: "400", kind: llm.FailProvider, wantCode: 400, want: map[string]string{
			"anthropic": "anthropic answered 400: ",
			"openai":    "openai answered 400: ",
		}},
	}
	for _, p := range providers {
		for _, tt := range tests {
			want, ok := tt.want[p.name]
			if !ok {
				continue
			}
			t.Run(p.name+"/"+tt.fault, func(t *testing.T) {
				srv := fakellm.Start(t)
				_, _, err := stream(t, p.client(srv, nil), request(human("hi [[fault:"+tt.fault+"]]")))
				got := llm.Explain(err, keyEnv)
				if got.Kind != tt.kind || got.Status != tt.wantCode || got.Provider != p.name {
					t.Errorf("Explain(%v) = %+v, want kind %s status %d provider %s", err, got, tt.kind, tt.wantCode, p.name)
				}
				if !strings.HasPrefix(got.Message, want) {
					t.Errorf("message = %q, want it to start with %q", got.Message, want)
				}
				if tt.kind == llm.FailProvider && (len(got.Message) == len(want) || strings.Contains(got.Message, "POST")) {
					t.Errorf("message = %q, want the provider's own words, not the SDK's", got.Message)
				}
			})
		}
	}
}

// TestExplainUnreachable names the URL nothing answered at.
func TestExplainUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	clients := map[string]llm.Client{
		"anthropic": llm.NewAnthropic(llm.ProviderConfig{Name: "anthropic", BaseURL: base, APIKey: "k"}, nil),
		"openai":    llm.NewOpenAI(llm.ProviderConfig{Name: "openai", BaseURL: base + "/v1"}, nil),
	}
	for name, c := range clients {
		t.Run(name, func(t *testing.T) {
			_, _, err := stream(t, c, request(human("hi")))
			got := llm.Explain(err, nil)
			if got.Kind != llm.FailUnreachable {
				t.Fatalf("Explain(%v) = %+v, want kind %s", err, got, llm.FailUnreachable)
			}
			prefix := "Could not reach " + base + "/v1/"
			if !strings.HasPrefix(got.Message, prefix) || !strings.HasSuffix(got.Message, ": connection refused. Is the server running?") {
				t.Errorf("message = %q, want %q…: connection refused. Is the server running?", got.Message, prefix)
			}
		})
	}
}

// TestExplain covers what the fake cannot produce.
func TestExplain(t *testing.T) {
	dns := &url.Error{Op: "Post", URL: "https://user:pw@llm.invalid/v1/chat/completions?k=secret", Err: &net.OpError{
		Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "llm.invalid", IsNotFound: true},
	}}
	tests := []struct {
		name string
		err  error
		want llm.Failure
	}{
		{
			name: "unknown host, without the credentials or query of its URL",
			err:  &llm.Error{Provider: "openai", Err: dns},
			want: llm.Failure{
				Kind: llm.FailUnreachable, Provider: "openai",
				Message: "Could not reach https://llm.invalid/v1/chat/completions: no such host llm.invalid. Is the server running?",
				Reason:  "Could not reach https://llm.invalid/v1/chat/completions: no such host llm.invalid. Is the server running?",
				Details: `openai: Post "https://llm.invalid/v1/chat/completions": dial tcp: lookup llm.invalid: no such host`,
			},
		},
		{
			name: "a refused key of anthropic without settings names the default variable",
			err:  &llm.Error{Provider: "anthropic", Status: 401, Err: errors.New("401 Unauthorized")},
			want: llm.Failure{
				Kind: llm.FailAuth, Status: 401, Provider: "anthropic",
				Message: "The API key was refused by anthropic. It is read from ANTHROPIC_API_KEY (settings providers.anthropic.api_key_env).",
				Reason:  "The API key was refused by anthropic. It is read from ANTHROPIC_API_KEY (settings providers.anthropic.api_key_env).",
				Details: "anthropic: status 401: 401 Unauthorized",
			},
		},
		{
			name: "no provider says how to configure one",
			err:  fmt.Errorf("model x/y: provider \"x\": set providers.x: %w", llm.ErrNoProvider),
			want: llm.Failure{Kind: llm.FailNoProvider, Message: "model x/y: provider \"x\": set providers.x: no provider configured", Reason: "model x/y: provider \"x\": set providers.x: no provider configured"},
		},
		{
			name: "a broken stream says so, its words behind the fold",
			err:  &llm.Error{Provider: "anthropic", Retryable: true, Err: errors.New("stream broken: unexpected EOF")},
			want: llm.Failure{
				Kind: llm.FailOther, Provider: "anthropic",
				Message: "The answer from anthropic was cut off: the connection broke. Try again.",
				Reason:  "The answer from anthropic was cut off: the connection broke.",
				Details: "anthropic: stream broken: unexpected EOF",
			},
		},
		{
			name: "not a model failure",
			err:  errors.New("the turn stopped after 100 tool rounds"),
			want: llm.Failure{Kind: llm.FailOther, Message: "the turn stopped after 100 tool rounds", Reason: "the turn stopped after 100 tool rounds"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := llm.Explain(tt.err, nil); got != tt.want {
				t.Errorf("Explain = %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// An overload inside a 200 stream, retried twice, reads as one sentence
// that names what failed and what to do; the SDK's words ("status 529",
// "200 OK", the request's URL and ID) stay in the details. Before, the
// message was the SDK's error whole.
func TestExplainOverloadInStreamAfterRetries(t *testing.T) {
	srv := fakellm.Start(t)
	_, _, err := stream(t, providers[0].client(srv, nil), request(human("[[text:10]] [[fault:error]]")))
	got := llm.Explain(llm.Retried(err, 2), nil)
	want := "The provider is overloaded (anthropic, 529). myco retried twice; try again in a minute."
	if got.Message != want || got.Kind != llm.FailOverloaded {
		t.Errorf("Explain = %+v\nwant message %q", got, want)
	}
	if got.Reason != "The provider is overloaded (anthropic, 529)." {
		t.Errorf("reason = %q", got.Reason)
	}
	if !strings.Contains(got.Details, "529") || !strings.Contains(got.Details, "retried twice") {
		t.Errorf("details = %q, want the raw error", got.Details)
	}
}

func TestExplainRetriedCounts(t *testing.T) {
	base := &llm.Error{Provider: "openai", Status: 429, Retryable: true, Err: errors.New("429 Too Many Requests")}
	for n, want := range map[int]string{
		0: "The provider is rate-limiting requests (openai, 429). Try again in a minute.",
		1: "The provider is rate-limiting requests (openai, 429). myco retried once; try again in a minute.",
		3: "The provider is rate-limiting requests (openai, 429). myco retried 3 times; try again in a minute.",
	} {
		if got := llm.Explain(llm.Retried(base, n), nil).Message; got != want {
			t.Errorf("retried %d: %q, want %q", n, got, want)
		}
	}
	if !llm.IsRetryable(llm.Retried(base, 2)) {
		t.Error("a retried error is no longer retryable")
	}
}
