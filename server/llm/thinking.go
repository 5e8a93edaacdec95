package llm

import (
	"time"

	"github.com/openai/openai-go/v3/shared"
)

// thinkingBudgets are the reasoning budgets of each level, in tokens:
// Anthropic's budget_tokens (the API takes at least 1,024), and on both
// providers what the output limit grows by, since reasoning counts as
// output (max_tokens is the budget plus the answer's own limit; max stays
// within the 64k output of current Claude models).
var thinkingBudgets = map[string]int64{
	"low":    2048,
	"medium": 8192,
	"high":   16384,
	"xhigh":  24576,
	"max":    32000,
}

// anthropicBudget is the thinking budget of level, 0 for none.
func thinkingBudget(level string) int64 { return thinkingBudgets[level] }

// openaiEffort is the reasoning_effort of level, "" for none (the field is
// left out and the server's default applies: "off" cannot be said to every
// compatible server, since "none" and "minimal" are not known to all). max
// asks for "high", the strongest every compatible server accepts. xhigh
// asks OpenAI's own API (official) for "xhigh", which its newer reasoning
// models take; other compatible servers do not know it and get "high".
func openaiEffort(level string, official bool) shared.ReasoningEffort {
	switch level {
	case "low":
		return shared.ReasoningEffortLow
	case "medium":
		return shared.ReasoningEffortMedium
	case "xhigh":
		if official {
			return shared.ReasoningEffortXhigh
		}
		return shared.ReasoningEffortHigh
	case "high", "max":
		return shared.ReasoningEffortHigh
	}
	return ""
}

// thinkingTimer measures how long a response thought: from its first
// reasoning to the first thing after it.
type thinkingTimer struct {
	start, end time.Time
}

func (t *thinkingTimer) thinking() {
	if t.start.IsZero() {
		t.start = time.Now()
	}
	t.end = time.Time{}
}

func (t *thinkingTimer) done() {
	if !t.start.IsZero() && t.end.IsZero() {
		t.end = time.Now()
	}
}

// ms is the time spent thinking in milliseconds, at least 1 when it
// thought at all (0 reads as "not measured").
func (t *thinkingTimer) ms() int64 {
	if t.start.IsZero() {
		return 0
	}
	t.done()
	return max(t.end.Sub(t.start).Milliseconds(), 1)
}
