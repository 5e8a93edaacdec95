package llm

import (
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/google/go-cmp/cmp"

	"myco/session"
)

// The usage kept of an Anthropic answer holds its cache reads and writes,
// the writes' 1-hour part apart (it is priced higher).
func TestAnthropicUsageKeepsCacheWritesByLifetime(t *testing.T) {
	tests := []struct {
		name string
		in   anthropic.Usage
		want session.Usage
	}{
		{
			name: "5-minute writes",
			in: anthropic.Usage{InputTokens: 12, OutputTokens: 30, CacheReadInputTokens: 900, CacheCreationInputTokens: 200,
				CacheCreation: anthropic.CacheCreation{Ephemeral5mInputTokens: 200}},
			want: session.Usage{InputTokens: 12, OutputTokens: 30, CacheReadInputTokens: 900, CacheCreationInputTokens: 200, CacheCreation5mInputTokens: 200},
		},
		{
			name: "1-hour writes",
			in: anthropic.Usage{InputTokens: 12, OutputTokens: 30, CacheCreationInputTokens: 200,
				CacheCreation: anthropic.CacheCreation{Ephemeral1hInputTokens: 150, Ephemeral5mInputTokens: 50}},
			want: session.Usage{InputTokens: 12, OutputTokens: 30, CacheCreationInputTokens: 200, CacheCreation5mInputTokens: 50, CacheCreation1hInputTokens: 150},
		},
		{
			// A server that does not split: the lifetime is left unknown.
			name: "no split",
			in:   anthropic.Usage{CacheCreationInputTokens: 200},
			want: session.Usage{CacheCreationInputTokens: 200},
		},
		{
			name: "a split larger than the whole is cut to it",
			in:   anthropic.Usage{CacheCreationInputTokens: 10, CacheCreation: anthropic.CacheCreation{Ephemeral1hInputTokens: 40, Ephemeral5mInputTokens: 5}},
			want: session.Usage{CacheCreationInputTokens: 10, CacheCreation1hInputTokens: 10},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := anthropicMeta(&anthropic.Message{Model: "claude-x", Usage: tt.in}, Request{Model: "claude-x"}).Usage
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
		})
	}
}
