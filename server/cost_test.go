package server

import (
	"testing"

	"myco/profiles"
	"myco/session"
)

func TestTokensOf(t *testing.T) {
	tests := []struct {
		name string
		u    session.Usage
		want profiles.Tokens
	}{
		{"no cache", session.Usage{InputTokens: 5, OutputTokens: 7}, profiles.Tokens{Input: 5, Output: 7}},
		{
			"5-minute writes",
			session.Usage{InputTokens: 5, CacheReadInputTokens: 900, CacheCreationInputTokens: 200},
			profiles.Tokens{Input: 5, CacheRead: 900, CacheWrite: 200},
		},
		{
			"1-hour writes apart",
			session.Usage{CacheCreationInputTokens: 200, CacheCreation1hInputTokens: 150},
			profiles.Tokens{CacheWrite: 50, CacheWrite1h: 150},
		},
		{
			"a 1-hour part larger than the whole is the whole",
			session.Usage{CacheCreationInputTokens: 10, CacheCreation1hInputTokens: 40},
			profiles.Tokens{CacheWrite1h: 10},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tokensOf(tt.u); got != tt.want {
				t.Errorf("tokensOf(%+v) = %+v, want %+v", tt.u, got, tt.want)
			}
		})
	}
}

// The pages price an answer at the settings' prices as they are now; one
// that names no model at the default model.
func TestPagePrice(t *testing.T) {
	settings := profiles.DefaultSettings()
	price := profiles.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75, CacheWrite1h: 6}
	settings.Models = map[string]profiles.Model{"anthropic/priced": {Price: &price}}
	live := profiles.NewLiveSettings(profiles.DefaultSettings())
	s := &Server{opts: Options{Settings: live, DefaultModel: "anthropic/priced"}}
	if _, ok := s.price("anthropic/priced", session.Usage{InputTokens: 1}); ok {
		t.Fatal("priced before settings named a price")
	}
	live.Replace(settings)
	u := session.Usage{InputTokens: 1000, OutputTokens: 500, CacheReadInputTokens: 9000, CacheCreationInputTokens: 200, CacheCreation1hInputTokens: 100}
	// (3×1000 + 15×500 + 0.3×9000 + 3.75×100 + 6×100) / 1e6
	const want = 0.014175
	for _, model := range []string{"anthropic/priced", ""} {
		got, ok := s.price(model, u)
		if !ok || got < want-1e-12 || got > want+1e-12 {
			t.Errorf("price(%q) = %v, %v; want %v, true", model, got, ok, want)
		}
	}
	if _, ok := s.price("anthropic/claude-unreleased-9", u); ok {
		t.Error("a model in neither the catalogue nor settings has a price")
	}
}
