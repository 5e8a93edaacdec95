package llm

import (
	"testing"

	"github.com/openai/openai-go/v3/shared"
)

// TestOpenAIEffort: xhigh is OpenAI's own "xhigh" only on its API; every
// other compatible server gets the strongest effort all of them know.
func TestOpenAIEffort(t *testing.T) {
	tests := []struct {
		level    string
		official bool
		want     shared.ReasoningEffort
	}{
		{"off", true, ""},
		{"low", false, shared.ReasoningEffortLow},
		{"high", true, shared.ReasoningEffortHigh},
		{"xhigh", true, shared.ReasoningEffortXhigh},
		{"xhigh", false, shared.ReasoningEffortHigh},
		{"max", true, shared.ReasoningEffortHigh},
		{"max", false, shared.ReasoningEffortHigh},
	}
	for _, tt := range tests {
		if got := openaiEffort(tt.level, tt.official); got != tt.want {
			t.Errorf("openaiEffort(%q, official=%v) = %q, want %q", tt.level, tt.official, got, tt.want)
		}
	}
	if !(thinkingBudget("high") < thinkingBudget("xhigh") && thinkingBudget("xhigh") < thinkingBudget("max")) {
		t.Errorf("xhigh's budget %d is not between high's and max's", thinkingBudget("xhigh"))
	}
}
