package fakellm_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// chatTurn is an OpenAI prompt of a system message and a question, about
// tokens long.
func chatTurn(tokens int) []any {
	return []any{
		map[string]any{"role": "system", "content": filler("system", tokens*4*3/4)},
		chatUser(filler("question", tokens*4/4)),
	}
}

func TestOpenAICacheRepeatedPrompt(t *testing.T) {
	tests := []struct {
		name       string
		tokens     int
		wantCached func(total int) int
	}{
		// Whole steps of 128 that leave the prompt's last token to read.
		{name: "2,000 tokens", tokens: 2000, wantCached: func(total int) int { return (total - 1) / 128 * 128 }},
		{name: "exactly 1,024", tokens: 0, wantCached: func(int) int { return 0 }},
		{name: "below 1,024", tokens: 1000, wantCached: func(int) int { return 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startFrozen(t)
			msgs := chatTurn(tt.tokens)
			if tt.tokens == 0 {
				msgs = exactChat(t, 1024)
			}
			total := chatTokens(t, nil, msgs)
			if prompt, cached := sendChat(t, srv, map[string]any{"messages": msgs}); prompt != total || cached != 0 {
				t.Errorf("first: prompt %d cached %d, want %d and 0", prompt, cached, total)
			}
			prompt, cached := sendChat(t, srv, map[string]any{"messages": msgs})
			if want := tt.wantCached(total); prompt != total || cached != want || cached%128 != 0 {
				t.Errorf("again: prompt %d cached %d, want %d and %d", prompt, cached, total, want)
			}
		})
	}
}

// exactChat is a one-message prompt of exactly tokens tokens.
func exactChat(t *testing.T, tokens int) []any {
	t.Helper()
	msgs := []any{chatUser("")}
	pad := tokens*4 - len(chatSerial(t, nil, msgs))
	msgs = []any{chatUser(filler("exact", pad))}
	if got := chatTokens(t, nil, msgs); got != tokens || len(chatSerial(t, nil, msgs)) != tokens*4 {
		t.Fatalf("exactChat: %d tokens", got)
	}
	return msgs
}

func TestOpenAICacheAppendedMessageReadsInSteps(t *testing.T) {
	srv := startFrozen(t)
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "bash", "description": filler("bash", 1200), "parameters": map[string]any{"type": "object"}}}}
	msgs := chatTurn(1500)
	sendChat(t, srv, map[string]any{"tools": tools, "messages": msgs})

	old := chatSerial(t, tools, msgs)
	msgs = append(msgs, map[string]any{"role": "assistant", "content": "sure"}, chatUser(filler("more", 800)))
	prompt, cached := sendChat(t, srv, map[string]any{"tools": tools, "messages": msgs})
	// The new prompt repeats the old one but for its closing bracket:
	// the cached part is the whole steps of 512 bytes within that.
	shared := len(old) - 1
	if want := shared / 512 * 128; cached != want || prompt != chatTokens(t, tools, msgs) {
		t.Errorf("prompt %d cached %d, want %d and %d", prompt, cached, chatTokens(t, tools, msgs), want)
	}

	// Another tool list reads nothing.
	tools[0].(map[string]any)["function"].(map[string]any)["description"] = "changed"
	if _, cached := sendChat(t, srv, map[string]any{"tools": tools, "messages": msgs}); cached != 0 {
		t.Errorf("after the tools changed: cached %d", cached)
	}
}

func TestOpenAICacheKeySeparates(t *testing.T) {
	srv := startFrozen(t)
	msgs := chatTurn(2000)
	send := func(key string) int {
		body := map[string]any{"messages": msgs}
		if key != "" {
			body["prompt_cache_key"] = key
		}
		_, cached := sendChat(t, srv, body)
		return cached
	}
	send("session-a")
	for _, tt := range []struct {
		key  string
		want bool
	}{{"session-a", true}, {"session-b", false}, {"", false}} {
		if got := send(tt.key) > 0; got != tt.want {
			t.Errorf("key %q after session-a: cached %v, want %v", tt.key, got, tt.want)
		}
	}
}

func TestOpenAICacheLifetime(t *testing.T) {
	tests := []struct {
		name      string
		retention string
		wait      time.Duration
		want      bool
	}{
		{name: "within 5 minutes", wait: 4 * time.Minute, want: true},
		{name: "after 5 minutes", wait: 5 * time.Minute, want: false},
		{name: "in_memory is the default", retention: "in_memory", wait: 5 * time.Minute, want: false},
		{name: "24h retention", retention: "24h", wait: 23 * time.Hour, want: true},
		{name: "24h expires", retention: "24h", wait: 24 * time.Hour, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startFrozen(t)
			body := map[string]any{"messages": chatTurn(2000)}
			if tt.retention != "" {
				body["prompt_cache_retention"] = tt.retention
			}
			sendChat(t, srv, body)
			srv.Advance(tt.wait)
			if _, cached := sendChat(t, srv, body); (cached > 0) != tt.want {
				t.Errorf("after %v: cached %d, want a read %v", tt.wait, cached, tt.want)
			}
		})
	}
}

func TestOpenAICacheUsageDirectiveWins(t *testing.T) {
	srv := startFrozen(t)
	msgs := chatTurn(2000)
	sendChat(t, srv, map[string]any{"messages": msgs})
	msgs = append(msgs[:1], chatUser(filler("question", 2000)+" [[usage:in=5,out=2]]"))
	if prompt, cached := sendChat(t, srv, map[string]any{"messages": msgs}); prompt != 5 || cached != 0 {
		t.Errorf("prompt %d cached %d, want the directive's 5 and 0", prompt, cached)
	}
}

func TestOpenAICacheRefusesBadRetention(t *testing.T) {
	srv := startFrozen(t)
	body := openaiReq(chatUser("hi"))
	body["prompt_cache_retention"] = "forever"
	if r := post(t, srv.URL+"/v1/chat/completions", body); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "prompt_cache_retention") {
		t.Errorf("status %d %s", r.status, r.body)
	}
}
