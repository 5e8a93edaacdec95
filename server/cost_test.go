package server

import (
	"testing"

	"myco/profiles"
	"myco/session"
)

func TestTokensOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ttl  string // settings' cache_ttl
		u    session.Usage
		want profiles.Tokens
	}{
		{"no cache", profiles.CacheTTL1h, session.Usage{InputTokens: 5, OutputTokens: 7}, profiles.Tokens{Input: 5, Output: 7}},
		{
			"the lifetimes the provider reported",
			profiles.CacheTTL1h,
			session.Usage{InputTokens: 5, CacheReadInputTokens: 900, CacheCreationInputTokens: 200, CacheCreation5mInputTokens: 50, CacheCreation1hInputTokens: 150},
			profiles.Tokens{Input: 5, CacheRead: 900, CacheWrite: 50, CacheWrite1h: 150},
		},
		{
			"all 5-minute, though settings ask for 1 hour",
			profiles.CacheTTL1h,
			session.Usage{CacheCreationInputTokens: 200, CacheCreation5mInputTokens: 200},
			profiles.Tokens{CacheWrite: 200},
		},
		{
			// OpenAI-compatible servers, and documents before the split:
			// the lifetime settings ask for.
			"no lifetime reported, 1-hour cache",
			profiles.CacheTTL1h,
			session.Usage{CacheCreationInputTokens: 200},
			profiles.Tokens{CacheWrite1h: 200},
		},
		{"no lifetime reported, 5-minute cache", profiles.CacheTTL5m, session.Usage{CacheCreationInputTokens: 200}, profiles.Tokens{CacheWrite: 200}},
		{
			"part reported, the rest at the setting's",
			profiles.CacheTTL5m,
			session.Usage{CacheCreationInputTokens: 300, CacheCreation1hInputTokens: 100},
			profiles.Tokens{CacheWrite: 200, CacheWrite1h: 100},
		},
		{
			"parts larger than the whole are cut to it",
			profiles.CacheTTL1h,
			session.Usage{CacheCreationInputTokens: 10, CacheCreation1hInputTokens: 40, CacheCreation5mInputTokens: 40},
			profiles.Tokens{CacheWrite1h: 10},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := profiles.DefaultSettings()
			st.CacheTTL = tt.ttl
			if got := tokensOf(st, tt.u); got != tt.want {
				t.Errorf("tokensOf(%+v) = %+v, want %+v", tt.u, got, tt.want)
			}
		})
	}
}

// The pages price an answer at the settings' prices as they are now; one
// that names no model at the default model.
func TestPagePrice(t *testing.T) {
	t.Parallel()
	settings := profiles.DefaultSettings()
	price := profiles.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75, CacheWrite1h: 6}
	settings.Models = map[string]profiles.Model{"anthropic/priced": {Price: &price}}
	live := profiles.NewLiveSettings(profiles.DefaultSettings())
	s := &Server{opts: Options{Settings: live, DefaultModel: "anthropic/priced"}}
	if _, ok := s.price("anthropic/priced", session.Usage{InputTokens: 1}); ok {
		t.Fatal("priced before settings named a price")
	}
	live.Replace(settings)
	u := session.Usage{InputTokens: 1000, OutputTokens: 500, CacheReadInputTokens: 9000, CacheCreationInputTokens: 200, CacheCreation5mInputTokens: 100, CacheCreation1hInputTokens: 100}
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
