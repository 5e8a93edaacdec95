package fakellm_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"myco/e2e/fakellm"
)

func TestAnthropicEchoEventOrder(t *testing.T) {
	srv := fakellm.Start(t)
	r := callAnthropic(t, srv, "", user("hello there"))
	want := []string{"message_start", "ping", "content_block_start",
		"content_block_delta", "content_block_delta", "content_block_delta", "content_block_delta",
		"content_block_stop", "message_delta", "message_stop"}
	if diff := cmp.Diff(want, names(r)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if got := strings.Join(anthropicDeltas(t, r), ""); got != "You said: hello there" {
		t.Errorf("text = %q", got)
	}
	if ct := r.status; ct != 200 {
		t.Errorf("status = %d", ct)
	}
}

func TestReplyText(t *testing.T) {
	tests := []struct {
		name       string
		text       string
		want       string
		wantDeltas int
	}{
		{name: "words", text: "go [[text:5]]", want: "alpha bravo charlie delta echo", wantDeltas: 5},
		{name: "words wrap around", text: "[[text:28]]", wantDeltas: 28,
			want: "alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu alpha bravo"},
		{name: "say", text: "[[say:Exactly these words.]]", want: "Exactly these words.", wantDeltas: 3},
		{name: "chunk", text: "[[text:6]] [[chunk:4]]", want: "alpha bravo charlie delta echo foxtrot", wantDeltas: 2},
		{name: "echo strips directives", text: "fix [[chunk:2]] the test", want: "You said: fix the test", wantDeltas: 3},
		{name: "image only", text: "", want: "You said nothing.", wantDeltas: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.Start(t)
			content := []any{map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}}
			if tt.text != "" {
				content = []any{map[string]any{"type": "text", "text": tt.text}}
			}
			deltas := anthropicDeltas(t, callAnthropic(t, srv, "", user(content)))
			if got := strings.Join(deltas, ""); got != tt.want {
				t.Errorf("text = %q, want %q", got, tt.want)
			}
			if len(deltas) != tt.wantDeltas {
				t.Errorf("got %d deltas %q, want %d", len(deltas), deltas, tt.wantDeltas)
			}
		})
	}
}

func TestDelayBetweenDeltas(t *testing.T) {
	srv := fakellm.Start(t)
	start := time.Now()
	r := callAnthropic(t, srv, "", user("[[text:5]] [[delay:30ms]]"))
	// Four gaps between five deltas.
	if elapsed := time.Since(start); elapsed < 120*time.Millisecond {
		t.Errorf("stream took %v, want at least 120ms", elapsed)
	}
	if n := len(anthropicDeltas(t, r)); n != 5 {
		t.Errorf("got %d deltas", n)
	}
}

func TestAnthropicToolUse(t *testing.T) {
	srv := fakellm.Start(t)
	r := callAnthropic(t, srv, "", user(`run it [[tool:bash {"command":"ls -la /tmp/some/long/path"}]]`))

	var start map[string]any
	var input string
	for _, e := range r.events {
		d := decode(t, e.data)
		if e.name == "content_block_start" && path(d, "index") == 1.0 {
			start = d
		}
		if s, ok := path(d, "delta", "partial_json").(string); ok {
			input += s
			if path(d, "index") != 1.0 {
				t.Errorf("input delta at index %v", path(d, "index"))
			}
		}
	}
	block, _ := path(start, "content_block").(map[string]any)
	if block["type"] != "tool_use" || block["name"] != "bash" || !strings.HasPrefix(block["id"].(string), "toolu_") {
		t.Errorf("tool block = %v", block)
	}
	if input != `{"command":"ls -la /tmp/some/long/path"}` {
		t.Errorf("input = %q", input)
	}
	if got := strings.Join(anthropicDeltas(t, r), ""); got != "Calling bash." {
		t.Errorf("text before the call = %q", got)
	}
	if stop := path(eventData(t, r, "message_delta"), "delta", "stop_reason"); stop != "tool_use" {
		t.Errorf("stop_reason = %v", stop)
	}
}

// toolRound answers the tool call of reply r with output.
func toolRound(t *testing.T, r result, output any) (assistantMsg, resultMsg map[string]any) {
	t.Helper()
	var id string
	var content []any
	for _, e := range r.events {
		d := decode(t, e.data)
		if path(d, "content_block", "type") == "tool_use" {
			id = path(d, "content_block", "id").(string)
			content = append(content, map[string]any{"type": "tool_use", "id": id, "name": path(d, "content_block", "name"), "input": map[string]any{}})
		}
	}
	if id == "" {
		t.Fatalf("no tool call in %v", names(r))
	}
	return assistant(content), user([]any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": output}})
}

func TestToolResultQuoted(t *testing.T) {
	srv := fakellm.Start(t)
	ask := user(`[[tool:bash {"command":"seq"}]]`)
	first := callAnthropic(t, srv, "", ask)
	long := strings.Repeat("0123456789", 30)
	a, res := toolRound(t, first, long)

	got := strings.Join(anthropicDeltas(t, callAnthropic(t, srv, "", ask, a, res)), "")
	if want := "Tool result: " + long[:200]; got != want {
		t.Errorf("reply = %q, want %q", got, want)
	}

	// Content as a list of blocks quotes their text.
	a, res = toolRound(t, first, []any{map[string]any{"type": "text", "text": "from blocks"}})
	got = strings.Join(anthropicDeltas(t, callAnthropic(t, srv, "", ask, a, res)), "")
	if got != "Tool result: from blocks" {
		t.Errorf("reply = %q", got)
	}
}

func TestSteps(t *testing.T) {
	srv := fakellm.Start(t)
	ask := user(`[[steps: tool:bash {"command":"one"} ;; tool:read_file {"path":"x"} ;; say:All done.]]`)
	msgs := []map[string]any{ask}
	wantTools := []string{"bash", "read_file"}
	for i, tool := range wantTools {
		r := callAnthropic(t, srv, "", msgs...)
		if name := path(eventData(t, r, "content_block_start"), "content_block", "type"); name != "text" {
			t.Fatalf("step %d starts with %v", i, name)
		}
		a, res := toolRound(t, r, "ok")
		if got := a["content"].([]any)[0].(map[string]any)["name"]; got != tool {
			t.Errorf("step %d called %v, want %s", i, got, tool)
		}
		msgs = append(msgs, a, res)
	}
	if got := strings.Join(anthropicDeltas(t, callAnthropic(t, srv, "", msgs...)), ""); got != "All done." {
		t.Errorf("last step = %q", got)
	}
	// A new human message starts its own script.
	msgs = append(msgs, assistant("All done."), user("thanks"))
	if got := strings.Join(anthropicDeltas(t, callAnthropic(t, srv, "", msgs...)), ""); got != "You said: thanks" {
		t.Errorf("after the script = %q", got)
	}
}

func TestAnthropicUsage(t *testing.T) {
	srv := fakellm.Start(t)
	r := callAnthropic(t, srv, "", user("[[usage:in=100,out=20,cache_read=50,cache_write=7]]"))
	want := map[string]any{"input_tokens": 100.0, "output_tokens": 20.0, "cache_read_input_tokens": 50.0, "cache_creation_input_tokens": 7.0}
	if diff := cmp.Diff(want, path(eventData(t, r, "message_delta"), "usage")); diff != "" {
		t.Errorf("message_delta usage (-want +got):\n%s", diff)
	}
	if got := path(eventData(t, r, "message_start"), "message", "usage", "cache_read_input_tokens"); got != 50.0 {
		t.Errorf("message_start cache read = %v", got)
	}
}

func TestAnthropicStopOverride(t *testing.T) {
	srv := fakellm.Start(t)
	r := callAnthropic(t, srv, "", user("[[text:3]] [[stop:length]]"))
	if stop := path(eventData(t, r, "message_delta"), "delta", "stop_reason"); stop != "max_tokens" {
		t.Errorf("stop_reason = %v, want max_tokens", stop)
	}
}

func TestAnthropicHTTPFaults(t *testing.T) {
	tests := []struct {
		fault    string
		status   int
		wantType string
	}{
		{"429", 429, "rate_limit_error"},
		{"529", 529, "overloaded_error"},
		{"500", 500, "api_error"},
		{"401", 401, "authentication_error"},
	}
	for _, tt := range tests {
		t.Run(tt.fault, func(t *testing.T) {
			srv := fakellm.Start(t)
			r := callAnthropic(t, srv, "", user("[[fault:"+tt.fault+"]]"))
			var body struct {
				Type  string
				Error struct{ Type, Message string }
			}
			if err := json.Unmarshal(r.body, &body); err != nil {
				t.Fatalf("body %s: %v", r.body, err)
			}
			if r.status != tt.status || body.Type != "error" || body.Error.Type != tt.wantType || body.Error.Message == "" {
				t.Errorf("got %d %s, want %d with type %s", r.status, r.body, tt.status, tt.wantType)
			}
		})
	}
}

func TestFaultTimesThenSuccess(t *testing.T) {
	srv := fakellm.Start(t)
	ask := user("[[say:finally]] [[fault:529x2]]")
	for i, want := range []int{529, 529, 200, 200} {
		if r := callAnthropic(t, srv, "", ask); r.status != want {
			t.Errorf("attempt %d: status %d, want %d", i+1, r.status, want)
		}
	}
	// Another conversation counts its own attempts.
	if r := callAnthropic(t, srv, "", user("other [[fault:529x1]]")); r.status != 529 {
		t.Errorf("other conversation: status %d, want 529", r.status)
	}
	srv.Reset()
	if r := callAnthropic(t, srv, "", ask); r.status != 529 {
		t.Errorf("after Reset: status %d, want 529", r.status)
	}
}

func TestAnthropicStreamFaults(t *testing.T) {
	srv := fakellm.Start(t)

	cut := callAnthropic(t, srv, "", user("[[text:10]] [[fault:cut]]"))
	if cut.readErr == nil || len(anthropicDeltas(t, cut)) != 5 || cut.events[len(cut.events)-1].name != "content_block_delta" {
		t.Errorf("cut: read error %v, events %v; want an abrupt end after 5 deltas", cut.readErr, names(cut))
	}

	bad := callAnthropic(t, srv, "", user("[[text:10]] [[fault:malformed]]"))
	last := bad.events[len(bad.events)-1]
	if bad.readErr != nil || last.name != "content_block_delta" || json.Valid([]byte(last.data)) {
		t.Errorf("malformed: last event %+v, want a delta that is not JSON", last)
	}

	errEv := callAnthropic(t, srv, "", user("[[text:10]] [[fault:error]]"))
	if got := path(eventData(t, errEv, "error"), "error", "type"); got != "overloaded_error" {
		t.Errorf("error event type = %v", got)
	}
}

func TestTitleAndSummary(t *testing.T) {
	srv := fakellm.Start(t)
	tests := []struct {
		name   string
		system string
		msgs   []map[string]any
		want   string
	}{
		{name: "first five words", system: "Write a short title for this conversation.",
			msgs: []map[string]any{user("please fix [[fault:529]] the flaky test in CI today")}, want: "please fix the flaky test"},
		{name: "title directive", system: "Give this chat a title.",
			msgs: []map[string]any{user("hi [[title:Custom Title]]")}, want: "Custom Title"},
		{name: "summary", system: "Summarize the conversation so far.",
			msgs: []map[string]any{user("one two three four five six seven eight nine"), assistant("ok"), user("short one")},
			want: "Summary: one two three four five six seven eight / short one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := callAnthropic(t, srv, tt.system, tt.msgs...)
			if got := strings.Join(anthropicDeltas(t, r), ""); got != tt.want || r.status != 200 {
				t.Errorf("got %d %q, want %q", r.status, got, tt.want)
			}
		})
	}

	// The agent's own prompt may mention titles; it comes with tools.
	body := anthropicReq("Use session_meta to set the session title.", user("hello"))
	body["tools"] = []any{map[string]any{"name": "session_meta", "input_schema": map[string]any{"type": "object"}}}
	if got := strings.Join(anthropicDeltas(t, post(t, srv.URL+"/v1/messages", body)), ""); got != "You said: hello" {
		t.Errorf("agent request with tools answered %q", got)
	}
}

func TestAnthropicRequestChecks(t *testing.T) {
	srv := fakellm.Start(t)
	tests := []struct {
		name string
		body map[string]any
		want string
	}{
		{name: "not streaming", body: map[string]any{"model": "m", "max_tokens": 10, "messages": []any{user("hi")}}, want: "stream required"},
		{name: "no max_tokens", body: map[string]any{"model": "m", "stream": true, "messages": []any{user("hi")}}, want: "max_tokens"},
		{name: "empty text", body: anthropicReq("", user([]any{map[string]any{"type": "text", "text": ""}})), want: "non-empty"},
		{name: "orphan tool_result", body: anthropicReq("", user([]any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_x", "content": "x"}})), want: "toolu_x"},
		{name: "unanswered tool_use", body: anthropicReq("",
			user("hi"),
			assistant([]any{map[string]any{"type": "tool_use", "id": "toolu_y", "name": "bash", "input": map[string]any{}}}),
			user("next")), want: "toolu_y"},
		{name: "bad image", body: anthropicReq("", user([]any{map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/bmp", "data": "AA=="}}})), want: "media_type"},
		{name: "unknown directive", body: anthropicReq("", user("[[sya:hello]]")), want: "unknown directive"},
		{name: "bad tool input", body: anthropicReq("", user("[[tool:bash [1,2] ]]")), want: "JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := post(t, srv.URL+"/v1/messages", tt.body)
			if r.status != 400 || !strings.Contains(string(r.body), tt.want) || !strings.Contains(string(r.body), "invalid_request_error") {
				t.Errorf("got %d %s, want 400 mentioning %q", r.status, r.body, tt.want)
			}
		})
	}
}
