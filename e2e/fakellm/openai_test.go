package fakellm_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"myco/e2e/fakellm"
)

func chatUser(content any) map[string]any { return map[string]any{"role": "user", "content": content} }

func TestOpenAIChunks(t *testing.T) {
	srv := fakellm.Start(t)
	r := callOpenAI(t, srv, map[string]any{"role": "system", "content": "be brief"}, chatUser("hello there"))
	if r.status != 200 || r.events[len(r.events)-1].data != "[DONE]" {
		t.Fatalf("status %d, events %+v; want 200 ending in [DONE]", r.status, r.events)
	}
	chunks := r.events[:len(r.events)-1]
	ids := map[any]bool{}
	for _, e := range chunks {
		d := decode(t, e.data)
		ids[d["id"]] = true
		if d["object"] != "chat.completion.chunk" || e.name != "" {
			t.Errorf("chunk %s (event %q)", e.data, e.name)
		}
	}
	if len(ids) != 1 {
		t.Errorf("chunks carry %d ids, want one", len(ids))
	}
	if role := path(decode(t, chunks[0].data), "choices", 0, "delta", "role"); role != "assistant" {
		t.Errorf("first chunk role = %v", role)
	}
	if got := strings.Join(openaiDeltas(t, r), ""); got != "You said: hello there" {
		t.Errorf("text = %q", got)
	}
	if finish := path(decode(t, chunks[len(chunks)-2].data), "choices", 0, "finish_reason"); finish != "stop" {
		t.Errorf("finish_reason = %v", finish)
	}
}

func TestOpenAIToolCalls(t *testing.T) {
	srv := fakellm.Start(t)
	r := callOpenAI(t, srv, chatUser(`[[tool:bash {"command":"ls -la /a/long/enough/path"}]]`))
	var id, name, args, finish string
	pieces := 0
	for _, e := range r.events[:len(r.events)-1] {
		d := decode(t, e.data)
		if call, ok := path(d, "choices", 0, "delta", "tool_calls", 0).(map[string]any); ok {
			if call["index"] != 0.0 {
				t.Errorf("tool call index %v", call["index"])
			}
			if s, _ := call["id"].(string); s != "" {
				id = s
				name, _ = path(call, "function", "name").(string)
			} else {
				pieces++
			}
			s, _ := path(call, "function", "arguments").(string)
			args += s
		}
		if f, ok := path(d, "choices", 0, "finish_reason").(string); ok {
			finish = f
		}
	}
	if !strings.HasPrefix(id, "call_") || name != "bash" || args != `{"command":"ls -la /a/long/enough/path"}` || pieces < 2 || finish != "tool_calls" {
		t.Errorf("id %q name %q args %q in %d pieces, finish %q", id, name, args, pieces, finish)
	}

	// The tool message answering it gets the result quoted back.
	call := map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}}
	second := callOpenAI(t, srv, chatUser(`[[tool:bash {"command":"ls -la /a/long/enough/path"}]]`),
		map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{call}},
		map[string]any{"role": "tool", "tool_call_id": id, "content": "a.txt b.txt"})
	if got := strings.Join(openaiDeltas(t, second), ""); got != "Tool result: a.txt b.txt" {
		t.Errorf("reply = %q", got)
	}
}

func TestOpenAIUsage(t *testing.T) {
	srv := fakellm.Start(t)
	r := callOpenAI(t, srv, chatUser("[[usage:in=100,out=20,cache_read=50]]"))
	usage := decode(t, r.events[len(r.events)-2].data)
	want := map[string]any{"prompt_tokens": 150.0, "completion_tokens": 20.0, "total_tokens": 170.0,
		"prompt_tokens_details": map[string]any{"cached_tokens": 50.0}}
	if diff := cmp.Diff(want, usage["usage"]); diff != "" || len(usage["choices"].([]any)) != 0 {
		t.Errorf("usage chunk (-want +got):\n%s", diff)
	}

	// Without stream_options.include_usage there is no usage chunk.
	body := openaiReq(chatUser("hi"))
	delete(body, "stream_options")
	for _, e := range post(t, srv.URL+"/v1/chat/completions", body).events {
		if strings.Contains(e.data, `"usage"`) {
			t.Errorf("usage sent without include_usage: %s", e.data)
		}
	}
}

func TestOpenAIFaults(t *testing.T) {
	srv := fakellm.Start(t)
	for _, status := range []int{429, 529, 500} {
		r := callOpenAI(t, srv, chatUser(fmt.Sprintf("[[fault:%d]]", status)))
		var body struct {
			Error struct{ Message, Type string }
		}
		if err := json.Unmarshal(r.body, &body); err != nil || body.Error.Message == "" || r.status != status {
			t.Errorf("fault %d: got %d %s", status, r.status, r.body)
		}
	}

	cut := callOpenAI(t, srv, chatUser("[[text:10]] [[fault:cut]]"))
	if cut.readErr == nil || len(openaiDeltas(t, cut)) != 5 {
		t.Errorf("cut: read error %v, %d deltas; want an abrupt end after 5", cut.readErr, len(openaiDeltas(t, cut)))
	}
	bad := callOpenAI(t, srv, chatUser("[[text:10]] [[fault:malformed]]"))
	if last := bad.events[len(bad.events)-1].data; json.Valid([]byte(last)) {
		t.Errorf("malformed: last data %q is JSON", last)
	}
	errEv := callOpenAI(t, srv, chatUser("[[text:4]] [[fault:error]]"))
	if last := decode(t, errEv.events[len(errEv.events)-1].data); path(last, "error", "type") != "server_error" {
		t.Errorf("error fault: last chunk %v", last)
	}
}

func TestOpenAIRequestChecks(t *testing.T) {
	srv := fakellm.Start(t)
	tests := []struct {
		name string
		msgs []map[string]any
		want string
	}{
		{name: "tool message without a call", msgs: []map[string]any{chatUser("hi"), {"role": "tool", "tool_call_id": "call_x", "content": "x"}}, want: "call_x"},
		{name: "unanswered call", msgs: []map[string]any{chatUser("hi"),
			{"role": "assistant", "tool_calls": []any{map[string]any{"id": "call_y", "type": "function", "function": map[string]any{"name": "bash", "arguments": "{}"}}}},
			chatUser("next")}, want: "call_y"},
		{name: "bad data URL", msgs: []map[string]any{chatUser([]any{map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:text/plain,hi"}}})}, want: "image_url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := callOpenAI(t, srv, tt.msgs...)
			if r.status != 400 || !strings.Contains(string(r.body), tt.want) {
				t.Errorf("got %d %s, want 400 mentioning %q", r.status, r.body, tt.want)
			}
		})
	}
	body := openaiReq(chatUser("hi"))
	body["stream"] = false
	if r := post(t, srv.URL+"/v1/chat/completions", body); r.status != 400 || !strings.Contains(string(r.body), "stream required") {
		t.Errorf("non-streaming: got %d %s", r.status, r.body)
	}
}
