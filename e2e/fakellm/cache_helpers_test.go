package fakellm_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"myco/e2e/fakellm"
)

// t0 is the frozen time of the cache tests: only Advance moves it.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func startFrozen(t *testing.T, opts ...fakellm.Option) *fakellm.Server {
	t.Helper()
	return fakellm.Start(t, append([]fakellm.Option{fakellm.WithClock(func() time.Time { return t0 })}, opts...)...)
}

// figures are the input figures of one answer.
type figures struct {
	In, Read, Write, Write1h int
}

// filler is n bytes of plain text (nothing JSON escapes), different for
// each seed so two blocks never share their bytes by accident.
func filler(seed string, n int) string {
	return strings.Repeat(seed+" lorem ipsum dolor ", n/len(seed)+1)[:n]
}

// textBlock is a text block whose canonical JSON, {"text":"…","type":"text"},
// is exactly tokens×4 bytes: the fake counts it as tokens tokens.
func textBlock(seed string, tokens int) map[string]any {
	return map[string]any{"type": "text", "text": filler(seed, tokens*4-len(`{"text":"","type":"text"}`))}
}

// marked returns a copy of block with a cache_control breakpoint; ttl ""
// leaves the lifetime to the default.
func marked(block map[string]any, ttl string) map[string]any {
	out := map[string]any{}
	for k, v := range block {
		out[k] = v
	}
	cc := map[string]any{"type": "ephemeral"}
	if ttl != "" {
		cc["ttl"] = ttl
	}
	out["cache_control"] = cc
	return out
}

func toolDef(name string, tokens int) map[string]any {
	return map[string]any{"name": name, "description": filler(name, tokens*4), "input_schema": map[string]any{"type": "object"}}
}

// tokens is the documented estimate: the canonical JSON of each block
// (without its cache_control), 4 bytes a token, rounded up.
func tokens(t *testing.T, blocks ...map[string]any) int {
	t.Helper()
	n := 0
	for _, b := range blocks {
		c := map[string]any{}
		for k, v := range b {
			if k != "cache_control" {
				c[k] = v
			}
		}
		raw, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		n += (len(raw) + 3) / 4
	}
	return n
}

// messagesReq is a Messages request with tools, system blocks and
// messages; auto adds the top-level cache_control of automatic caching.
type messagesReq struct {
	model  string
	tools  []map[string]any
	system []map[string]any
	msgs   []map[string]any
	auto   string // "" none, "5m", "1h"
	extra  map[string]any
}

func (m messagesReq) body() map[string]any {
	b := map[string]any{"model": "claude-test", "max_tokens": 100, "stream": true, "messages": m.msgs}
	if m.model != "" {
		b["model"] = m.model
	}
	if len(m.tools) > 0 {
		b["tools"] = m.tools
	}
	if len(m.system) > 0 {
		b["system"] = m.system
	}
	if m.auto != "" {
		b["cache_control"] = map[string]any{"type": "ephemeral", "ttl": m.auto}
	}
	for k, v := range m.extra {
		b[k] = v
	}
	return b
}

func blocks(bs ...map[string]any) []any {
	out := make([]any, len(bs))
	for i, b := range bs {
		out[i] = b
	}
	return out
}

// sendMessages posts a Messages request and returns the figures of its
// message_start, checking message_delta agrees.
func sendMessages(t *testing.T, srv *fakellm.Server, body any) figures {
	t.Helper()
	r := post(t, srv.URL+"/v1/messages", body)
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	u := path(eventData(t, r, "message_start"), "message", "usage")
	f := figures{
		In: num(path(u, "input_tokens")), Read: num(path(u, "cache_read_input_tokens")),
		Write: num(path(u, "cache_creation_input_tokens")), Write1h: num(path(u, "cache_creation", "ephemeral_1h_input_tokens")),
	}
	if w5 := num(path(u, "cache_creation", "ephemeral_5m_input_tokens")); w5+f.Write1h != f.Write {
		t.Errorf("cache_creation 5m %d + 1h %d != %d", w5, f.Write1h, f.Write)
	}
	d := path(eventData(t, r, "message_delta"), "usage")
	if num(path(d, "input_tokens")) != f.In || num(path(d, "cache_read_input_tokens")) != f.Read || num(path(d, "cache_creation_input_tokens")) != f.Write {
		t.Errorf("message_delta usage %v differs from message_start %+v", d, f)
	}
	return f
}

func num(v any) int {
	f, _ := v.(float64)
	return int(f)
}

// sendChat posts a chat completions request and returns prompt_tokens and
// cached_tokens.
func sendChat(t *testing.T, srv *fakellm.Server, body map[string]any) (prompt, cached int) {
	t.Helper()
	body["model"], body["stream"] = "gpt-test", true
	body["stream_options"] = map[string]any{"include_usage": true}
	r := post(t, srv.URL+"/v1/chat/completions", body)
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	for _, e := range r.events {
		if u := path(decodeMaybe(e.data), "usage"); u != nil {
			return num(path(u, "prompt_tokens")), num(path(u, "prompt_tokens_details", "cached_tokens"))
		}
	}
	t.Fatalf("no usage chunk in %s", r.body)
	return 0, 0
}

func decodeMaybe(data string) any {
	var v any
	_ = json.Unmarshal([]byte(data), &v)
	return v
}

// chatTokens is the documented estimate of an OpenAI prompt: the tools
// and the messages serialised as [tools][messages], 4 bytes a token.
func chatTokens(t *testing.T, tools, msgs []any) int {
	t.Helper()
	return (len(chatSerial(t, tools, msgs)) + 3) / 4
}

func chatSerial(t *testing.T, tools, msgs []any) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, list := range [][]any{tools, msgs} {
		if list == nil {
			list = []any{}
		}
		raw, err := json.Marshal(list)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(raw)
	}
	return buf.Bytes()
}
