package llm_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"myco/e2e/fakellm"
	"myco/server/llm"
	"myco/session"
)

// schemaTool has several keys beside "properties", the ones the SDK used
// to carry in a map and write in random order.
var schemaTool = llm.Tool{
	Name:        "edit",
	Description: "Edit a file.",
	InputSchema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"path": map[string]any{"type": "string"}, "old": map[string]any{"type": "string"},
			"new": map[string]any{"type": "string"}, "all": map[string]any{"type": "boolean"},
		},
		"required":             []string{"path", "old", "new"},
		"additionalProperties": false,
		"title":                "edit",
		"description":          "An edit.",
	},
}

// toolLoop is a thread two tool rounds in: the call ends with the second
// round's result.
func toolLoop() []session.Message {
	use := func(id string) session.Message {
		return session.Message{ID: "a" + id, Role: "assistant", Content: []session.Block{
			{Type: session.BlockText, Text: "Looking."},
			{Type: session.BlockToolUse, ID: "t" + id, Name: "bash", Input: []byte(`{"command":"ls"}`)},
		}}
	}
	result := func(id string) session.Message {
		return session.Message{ID: "r" + id, Role: "user", Content: []session.Block{
			{Type: session.BlockToolResult, ToolUseID: "t" + id, Content: []byte(`[{"type":"text","text":"a b c"}]`)},
		}}
	}
	return []session.Message{human("list it"), use("1"), result("1"), use("2"), result("2")}
}

// The same call is the same bytes, every time: the tools block heads the
// cached prefix, and one byte of difference there costs the whole cache.
func TestRequestBytesStable(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := fakellm.Start(t)
			c := p.client(srv, nil)
			req := request(toolLoop()...)
			req.Tools = append(req.Tools, schemaTool)
			req.CacheKey = "session-1"
			var first []byte
			for i := range 20 {
				mustStream(t, c, req)
				reqs := srv.Requests()
				body := reqs[len(reqs)-1].Body
				if i == 0 {
					first = body
					continue
				}
				if !bytes.Equal(body, first) {
					t.Fatalf("call %d differs from call 1:\n%s\n%s", i+1, first, body)
				}
			}
			if !bytes.Contains(first, []byte(`"additionalProperties":false,"description":"An edit.","properties":{"all":{"type":"boolean"},"new":`)) {
				t.Errorf("schema not sent with sorted keys: %s", first)
			}
		})
	}
}

// cacheMarks lists where an Anthropic body carries cache_control: "system",
// "tool N", or "message M block B", with the TTL when one is set.
func cacheMarks(t *testing.T, body []byte) []string {
	t.Helper()
	type mark struct {
		CacheControl *struct{ Type, TTL string } `json:"cache_control"`
	}
	var b struct {
		mark
		System   []mark
		Tools    []mark
		Messages []struct{ Content []mark }
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	var out []string
	add := func(where string, m mark) {
		if m.CacheControl != nil {
			out = append(out, where+" "+m.CacheControl.Type+" "+m.CacheControl.TTL)
		}
	}
	add("request", b.mark)
	for _, m := range b.System {
		add("system", m)
	}
	for i, m := range b.Tools {
		add("tool "+itoa(i), m)
	}
	for i, msg := range b.Messages {
		for j, m := range msg.Content {
			add("message "+itoa(i)+" block "+itoa(j), m)
		}
	}
	return out
}

func itoa(n int) string { return string(rune('0' + n)) }

// Breakpoints: the system prompt, the previous call's end and this call's
// end, so a tool loop reads everything but its newest round from the
// cache; with the 1-hour lifetime every marker says so.
func TestAnthropicBreakpoints(t *testing.T) {
	cases := []struct {
		name string
		req  func() llm.Request
		want []string
	}{
		{"first call", func() llm.Request { return request(human("hi")) },
			[]string{"system ephemeral ", "message 0 block 0 ephemeral "}},
		{"tool loop", func() llm.Request { return request(toolLoop()...) },
			[]string{"system ephemeral ", "message 2 block 0 ephemeral ", "message 4 block 0 ephemeral "}},
		{"one hour", func() llm.Request {
			r := request(toolLoop()...)
			r.CacheTTL = llm.CacheTTL1h
			return r
		}, []string{"system ephemeral 1h", "message 2 block 0 ephemeral 1h", "message 4 block 0 ephemeral 1h"}},
		{"no system prompt", func() llm.Request {
			r := request(human("hi"))
			r.System = ""
			return r
		}, []string{"tool 0 ephemeral ", "message 0 block 0 ephemeral "}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakellm.Start(t)
			mustStream(t, providers[0].client(srv, nil), tc.req())
			reqs := srv.Requests()
			got := cacheMarks(t, reqs[len(reqs)-1].Body)
			if len(got) != len(tc.want) {
				t.Fatalf("marks = %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("marks = %q, want %q", got, tc.want)
					break
				}
			}
		})
	}
}

// An OpenAI-compatible call names its session, so the server keeps the
// session's calls on one cache shard.
func TestOpenAIPromptCacheKey(t *testing.T) {
	srv := fakellm.Start(t)
	req := request(human("hi"))
	req.CacheKey = "0b6c7a52-session"
	mustStream(t, providers[1].client(srv, nil), req)
	var body struct {
		Key string `json:"prompt_cache_key"`
	}
	lastBody(t, srv, &body)
	if body.Key != req.CacheKey {
		t.Errorf("prompt_cache_key = %q, want %q", body.Key, req.CacheKey)
	}
}
