package web_test

import (
	"testing"

	"myco/profiles"
	"myco/web"
)

func TestModelChoiceFacts(t *testing.T) {
	sonnet := profiles.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75, CacheWrite1h: 6}
	tests := []struct {
		name   string
		choice web.ModelChoice
		want   string
	}{
		{"catalogue price", web.ModelChoice{ContextWindow: 200000, Price: &sonnet}, "200K context · $3 in / $15 out per M tokens"},
		{"unknown price", web.ModelChoice{ContextWindow: 128000}, "128K context · price unknown"},
		{"local and free", web.ModelChoice{ContextWindow: 131072, Price: &profiles.Price{}, Local: true}, "131K context · free (local)"},
		{"priced at 0 elsewhere", web.ModelChoice{ContextWindow: 1000000, Price: &profiles.Price{}}, "1M context · $0 in / $0 out per M tokens"},
		{"odd window", web.ModelChoice{ContextWindow: 1047576, Price: &profiles.Price{Input: 0.4, Output: 1.6}}, "1.05M context · $0.4 in / $1.6 out per M tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.choice.Facts(); got != tt.want {
				t.Errorf("Facts() = %q, want %q", got, tt.want)
			}
		})
	}
}
