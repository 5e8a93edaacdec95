package llm_test

import (
	"strings"
	"testing"

	"myco/e2e/fakellm"
	"myco/session"
)

// TestThinkingParams checks what each level asks of each provider.
func TestThinkingParams(t *testing.T) {
	tests := []struct {
		level string
		want  map[string]fakellm.ThinkParams // by provider
	}{
		{"", map[string]fakellm.ThinkParams{"anthropic": {MaxTokens: 1024}, "openai": {MaxTokens: 1024}}},
		{"off", map[string]fakellm.ThinkParams{"anthropic": {MaxTokens: 1024}, "openai": {MaxTokens: 1024}}},
		{"low", map[string]fakellm.ThinkParams{"anthropic": {Type: "enabled", BudgetTokens: 2048, MaxTokens: 2048 + 1024}, "openai": {ReasoningEffort: "low", MaxTokens: 2048 + 1024}}},
		{"high", map[string]fakellm.ThinkParams{"anthropic": {Type: "enabled", BudgetTokens: 16384, MaxTokens: 16384 + 1024}, "openai": {ReasoningEffort: "high", MaxTokens: 16384 + 1024}}},
		{"xhigh", map[string]fakellm.ThinkParams{"anthropic": {Type: "enabled", BudgetTokens: 24576, MaxTokens: 24576 + 1024}, "openai": {ReasoningEffort: "high", MaxTokens: 24576 + 1024}}},
		{"max", map[string]fakellm.ThinkParams{"anthropic": {Type: "enabled", BudgetTokens: 32000, MaxTokens: 32000 + 1024}, "openai": {ReasoningEffort: "high", MaxTokens: 32000 + 1024}}},
	}
	for _, p := range providers {
		for _, tt := range tests {
			t.Run(p.name+"/"+tt.level, func(t *testing.T) {
				srv := fakellm.Start(t)
				req := request(human("hello"))
				req.Think = tt.level
				mustStream(t, p.client(srv, nil), req)
				got := srv.Requests()[0].Thinking()
				if got != tt.want[p.name] {
					t.Errorf("thinking params = %+v, want %+v", got, tt.want[p.name])
				}
			})
		}
	}
}

// TestThinkingStreamed: the reasoning streams to OnThinking before the
// text and is kept as the answer's first block, with Anthropic's
// signature; OpenAI-compatible reasoning has none.
func TestThinkingStreamed(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := fakellm.Start(t)
			req := request(human("[[think:first I ponder the question]] [[say:the answer]]"))
			req.Think = "high"
			var order []string
			req.OnThinking = func(d string) { order = append(order, "think:"+d) }
			resp, _, err := stream(t, p.client(srv, nil), req)
			if err != nil {
				t.Fatal(err)
			}
			if len(order) == 0 || strings.Join(order, "") == "" {
				t.Fatal("OnThinking was not called")
			}
			if len(resp.Content) != 2 || resp.Content[0].Type != session.BlockThinking {
				t.Fatalf("content = %+v, want a thinking block then the text", resp.Content)
			}
			th := resp.Content[0]
			if th.Thinking != "first I ponder the question" || th.DurationMS < 1 {
				t.Errorf("thinking block = %+v", th)
			}
			wantSig := ""
			if p.name == "anthropic" {
				wantSig = fakellm.Signature(th.Thinking)
			}
			if th.Signature != wantSig {
				t.Errorf("signature = %q, want %q", th.Signature, wantSig)
			}
			if text(resp) != "the answer" {
				t.Errorf("text = %q", text(resp))
			}
		})
	}
}

// TestThinkingSentBackInToolLoop: the thinking of the answer that called
// a tool goes back, signed and unchanged, in the next request (the fake,
// as the API, refuses the request otherwise); unsigned thinking and other
// providers' never do.
func TestThinkingSentBackInToolLoop(t *testing.T) {
	srv := fakellm.Start(t)
	c := providers[0].client(srv, nil)
	h := human(`[[think:I should list the files]] [[redacted_thinking]] [[tool:bash {"command":"ls"}]]`)
	req := request(h)
	req.Think = "low"
	first, _ := mustStream(t, c, req)
	if len(first.Content) < 3 || first.Content[0].Type != session.BlockRedactedThinking || first.Content[1].Type != session.BlockThinking {
		t.Fatalf("first answer = %+v, want redacted thinking, thinking, then the call", first.Content)
	}
	uses := toolUses(first)
	answer := session.Message{ID: "a1", Role: "assistant", Content: first.Content}
	result := session.Message{ID: "r1", Role: "user", Content: []session.Block{{Type: session.BlockToolResult, ToolUseID: uses[0].ID, Content: []byte(`"a b"`)}}}
	req = request(h, answer, result)
	req.Think = "low"
	mustStream(t, c, req)

	// Changed thinking is refused, as the API refuses it.
	answer.Content = append([]session.Block(nil), first.Content...)
	answer.Content[1].Thinking += " (edited)"
	req = request(h, answer, result)
	req.Think = "low"
	if _, _, err := stream(t, c, req); err == nil || !strings.Contains(err.Error(), "signature") {
		t.Fatalf("edited thinking: err = %v, want the fake's refusal", err)
	}

	// Unsigned thinking (another provider's, or cut short) stays out.
	answer.Content = []session.Block{{Type: session.BlockThinking, Thinking: "unsigned"}, {Type: session.BlockText, Text: "hi"}}
	srv.Reset()
	mustStream(t, c, request(human("one"), answer, human("two")))
	if body := string(srv.Requests()[0].Body); strings.Contains(body, "unsigned") {
		t.Errorf("unsigned thinking was sent: %s", body)
	}

	// OpenAI-compatible servers never get thinking back.
	oc := providers[1].client(srv, nil)
	answer.Content = []session.Block{{Type: session.BlockThinking, Thinking: "secret", Signature: "sig"}, {Type: session.BlockText, Text: "hi"}}
	srv.Reset()
	mustStream(t, oc, request(human("one"), answer, human("two")))
	if body := string(srv.Requests()[0].Body); strings.Contains(body, "secret") {
		t.Errorf("thinking was sent to an OpenAI-compatible server: %s", body)
	}
}

// TestThinkingNotAskedNotGiven: without a level the fake, as a model,
// does not think, whatever the script says.
func TestThinkingNotAskedNotGiven(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := fakellm.Start(t)
			called := false
			req := request(human("[[think:hmm]] [[say:ok]]"))
			req.OnThinking = func(string) { called = true }
			resp, _ := mustStream(t, p.client(srv, nil), req)
			if called || len(resp.Content) != 1 {
				t.Errorf("thought without being asked: %+v", resp.Content)
			}
		})
	}
}
