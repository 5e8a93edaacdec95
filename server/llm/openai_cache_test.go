package llm_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"myco/e2e/fakellm"
	"myco/server/llm"
	"myco/session"
)

// openaiMarks lists where a chat completions body carries a
// prompt_cache_breakpoint: "ROLE M part P" for message M's content part P
// (a string content has none).
func openaiMarks(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("body: %v", err)
	}
	var marks []string
	for m, msg := range req.Messages {
		var parts []map[string]json.RawMessage
		if json.Unmarshal(msg.Content, &parts) != nil {
			continue // a string, or none (an assistant's tool calls)
		}
		for p, part := range parts {
			if bp, ok := part["prompt_cache_breakpoint"]; ok {
				if string(bp) != `{"mode":"explicit"}` {
					t.Errorf("message %d part %d: breakpoint %s", m, p, bp)
				}
				marks = append(marks, fmt.Sprintf("%s %d part %d", msg.Role, m, p))
			}
		}
	}
	return marks
}

// With breakpoints on, the system prompt, every tool result and every
// user message end with one, and assistant messages carry none (the API
// takes none there). The next call of the conversation repeats the
// earlier messages byte for byte: a breakpoint never moves.
func TestOpenAIBreakpoints(t *testing.T) {
	on, off := true, false
	image := session.Block{Type: session.BlockImage, MediaType: "image/png", Data: "iVBORw0KGgo="}
	tests := []struct {
		name  string
		force *bool
		extra []session.Message // messages after toolLoop
		want  []string
	}{
		{"forced on", &on, nil, []string{"system 0 part 0", "user 1 part 0", "tool 3 part 0", "tool 5 part 0"}},
		{"forced on, a message ending with an image", &on, []session.Message{
			{ID: "a3", Role: "assistant", Content: []session.Block{{Type: session.BlockText, Text: "Done."}}},
			human("and this?", image),
		}, []string{"system 0 part 0", "user 1 part 0", "tool 3 part 0", "tool 5 part 0", "user 7 part 1"}},
		{"forced off", &off, nil, nil},
		// The fake server is not api.openai.com: implicit caching only.
		{"left to the client", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakellm.Start(t)
			c := llm.NewOpenAI(llm.ProviderConfig{Name: "openai", BaseURL: srv.URL + "/v1"}, nil)
			req := request(append(toolLoop(), tt.extra...)...)
			req.Model = "gpt-5.6"
			req.CacheBreakpoints = tt.force
			req.Encoded = &llm.Encoded{}
			mustStream(t, c, req)
			reqs := srv.Requests()
			body := reqs[len(reqs)-1].Body
			if got := openaiMarks(t, body); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("breakpoints at %v, want %v\n%s", got, tt.want, body)
			}
			if tt.force == nil || !*tt.force {
				if bytes.Contains(body, []byte("prompt_cache_breakpoint")) {
					t.Errorf("a breakpoint was sent: %s", body)
				}
				return
			}
			// The next call adds a round: what was sent before is a prefix
			// of what is sent now.
			next := req
			next.Messages = append(append([]session.Message(nil), req.Messages...),
				session.Message{ID: "a9", Role: "assistant", Content: []session.Block{{Type: session.BlockToolUse, ID: "t9", Name: "bash", Input: []byte(`{"command":"pwd"}`)}}},
				session.Message{ID: "r9", Role: "user", Content: []session.Block{{Type: session.BlockToolResult, ToolUseID: "t9", Content: []byte(`[{"type":"text","text":"/tmp"}]`)}}},
			)
			mustStream(t, c, next)
			reqs = srv.Requests()
			later := reqs[len(reqs)-1].Body
			prefix := messagesPrefix(t, body)
			if !bytes.Contains(later, prefix) {
				t.Errorf("the second call does not repeat the first's messages:\n%s\n%s", body, later)
			}
			if got := openaiMarks(t, later); len(got) != len(tt.want)+1 {
				t.Errorf("second call's breakpoints %v, want the first's and one more", got)
			}
		})
	}
}

// messagesPrefix is a body's messages array without its closing bracket.
func messagesPrefix(t *testing.T, body []byte) []byte {
	t.Helper()
	start := bytes.Index(body, []byte(`"messages":[`))
	if start < 0 {
		t.Fatalf("no messages in %s", body)
	}
	var raw json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body[start+len(`"messages":`):]))
	if err := dec.Decode(&raw); err != nil {
		t.Fatal(err)
	}
	return body[start : start+len(`"messages":`)+len(raw)-1]
}
