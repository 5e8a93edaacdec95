package fakellm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// minThinkingBudget is the least budget_tokens the Messages API takes.
const minThinkingBudget = 1024

// redactedData is what a [[redacted_thinking]] block carries: opaque, as
// the real one is, and checked when it comes back.
const redactedData = "fakellm-redacted-thinking"

// ThinkParams is what one recorded request asked of the model's
// reasoning, in either wire format.
type ThinkParams struct {
	Type            string // Anthropic thinking.type: "enabled", "disabled", or "" when absent
	BudgetTokens    int    // Anthropic thinking.budget_tokens
	MaxTokens       int    // Anthropic max_tokens (above the budget)
	ReasoningEffort string // OpenAI reasoning_effort, "" when absent
}

// Thinking returns the reasoning parameters of a recorded request.
func (r Recorded) Thinking() ThinkParams {
	var req struct {
		MaxTokens int `json:"max_tokens"`
		Thinking  struct {
			Type         string `json:"type"`
			BudgetTokens int    `json:"budget_tokens"`
		} `json:"thinking"`
		ReasoningEffort string `json:"reasoning_effort"`
	}
	_ = json.Unmarshal(r.Body, &req) // a body that is not JSON asked for nothing
	return ThinkParams{Type: req.Thinking.Type, BudgetTokens: req.Thinking.BudgetTokens, MaxTokens: req.MaxTokens, ReasoningEffort: req.ReasoningEffort}
}

// anthropicThinking is the request's thinking parameter.
type anthropicThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

// checkAnthropicThinking applies the API's rules for extended thinking: a
// budget of at least 1,024 tokens, below max_tokens; and in a tool loop
// the last assistant message, which called the tools, must start with its
// thinking, sent back as it came.
func checkAnthropicThinking(req anthropicRequest) (bool, error) {
	t := req.Thinking
	if t == nil || t.Type != "enabled" {
		return false, nil
	}
	switch {
	case t.BudgetTokens < minThinkingBudget:
		return false, fmt.Errorf("thinking.enabled.budget_tokens: Input should be greater than or equal to %d", minThinkingBudget)
	case t.BudgetTokens >= req.MaxTokens:
		return false, fmt.Errorf("`max_tokens` must be greater than `thinking.budget_tokens`")
	}
	last := len(req.Messages) - 1
	for last >= 0 && req.Messages[last].Role != "assistant" {
		last--
	}
	if last < 0 {
		return true, nil
	}
	blocks, err := anthropicBlocks(req.Messages[last].Content)
	if err != nil || len(blocks) == 0 {
		return true, nil // reported by the message checks
	}
	calls := false
	for _, b := range blocks {
		calls = calls || b.Type == "tool_use"
	}
	if calls && last == len(req.Messages)-2 && blocks[0].Type != "thinking" && blocks[0].Type != "redacted_thinking" {
		return false, fmt.Errorf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block", last, blocks[0].Type)
	}
	return true, nil
}

// checkThinkingBlock checks a thinking block sent back: it must be one
// the fake wrote, unchanged, as the real API checks its signature.
func checkThinkingBlock(b anthropicBlock, role string) error {
	if role != "assistant" {
		return fmt.Errorf("%s blocks may only be in assistant messages", b.Type)
	}
	if b.Type == "redacted_thinking" {
		if b.Data != redactedData {
			//lint:ignore ST1005 the Anthropic API's own wording, which clients may show
			return fmt.Errorf("Invalid `data` in `redacted_thinking` block")
		}
		return nil
	}
	if b.Signature == "" || b.Signature != signature(b.Thinking) {
		//lint:ignore ST1005 the Anthropic API's own wording, which clients may show
		return fmt.Errorf("Invalid `signature` in `thinking` block")
	}
	return nil
}

// signature is the fake's signature of a thinking text: deterministic,
// so a test can predict it, and tied to the text, so a changed thinking
// fails as it would on the real API.
func signature(thinking string) string {
	sum := sha256.Sum256([]byte("fakellm thinking\x00" + thinking))
	return "sig_" + hex.EncodeToString(sum[:12])
}

// Signature is the signature the fake gives thinking, for tests.
func Signature(thinking string) string { return signature(thinking) }

// thinker is a stream that can say the model's reasoning before its
// answer.
type thinker interface {
	thinking(deltas []string, p *pacer) error
	redactedThinking() error
}

// playThinking streams the reply's reasoning, when its request asked for
// thinking and its script has some.
func playThinking(p *pacer, e emitter, r reply) error {
	t, ok := e.(thinker)
	if !ok {
		return nil
	}
	if r.redacted {
		if err := t.redactedThinking(); err != nil {
			return err
		}
	}
	if r.think == "" {
		return nil
	}
	return t.thinking(chunkWords(r.think, r.chunk), p)
}

// thinking writes a thinking block: thinking_delta events, then the
// signature_delta just before the block stops (the next block's start
// stops it).
func (a *anthropicStream) thinking(deltas []string, p *pacer) error {
	a.inText = false
	if err := a.startBlock(map[string]any{"type": "thinking", "thinking": "", "signature": ""}); err != nil {
		return err
	}
	for _, d := range deltas {
		if err := p.next(func() error { return a.delta(map[string]any{"type": "thinking_delta", "thinking": d}) }); err != nil {
			return err
		}
	}
	return a.delta(map[string]any{"type": "signature_delta", "signature": signature(a.r.think)})
}

func (a *anthropicStream) redactedThinking() error {
	a.inText = false
	return a.startBlock(map[string]any{"type": "redacted_thinking", "data": redactedData})
}

// thinking writes reasoning as compatible servers do (DeepSeek, vLLM,
// llama.cpp): reasoning_content deltas before the content. The official
// API sends none in chat completions.
func (o *openaiStream) thinking(deltas []string, p *pacer) error {
	for _, d := range deltas {
		if err := p.next(func() error { return o.delta(map[string]any{"reasoning_content": d}, nil) }); err != nil {
			return err
		}
	}
	return nil
}

// redactedThinking has no OpenAI form.
func (o *openaiStream) redactedThinking() error { return nil }
