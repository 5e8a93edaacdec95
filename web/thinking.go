package web

import (
	"fmt"
	"math"

	"myco/session"
)

// KindThinking is a block of the model's reasoning, shown folded.
const KindThinking = "thinking"

// ThinkingView is the reasoning before an answer: its text, or, for a
// redacted_thinking block, only that there was some.
type ThinkingView struct {
	Text       string
	Redacted   bool
	DurationMS int64
}

func newThinkingView(b session.Block) BlockView {
	return BlockView{Kind: KindThinking, Thinking: &ThinkingView{
		Text: b.Thinking, Redacted: b.Type == session.BlockRedactedThinking, DurationMS: b.DurationMS,
	}}
}

// Summary is the folded block's one line: how long the model thought,
// in whole seconds (at least 1).
func (t ThinkingView) Summary() string {
	switch {
	case t.Redacted:
		return "Thought (redacted by the provider)"
	case t.DurationMS <= 0:
		return "Thought"
	}
	return fmt.Sprintf("Thought for %d s", int64(math.Max(1, math.Round(float64(t.DurationMS)/1000))))
}
