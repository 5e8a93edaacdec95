package server

import (
	"testing"
	"time"

	"myco/profiles"
)

func TestCacheLifeAndRoughDuration(t *testing.T) {
	t.Parallel()
	st := profiles.DefaultSettings()
	if got := cacheLife(st, "anthropic/claude-sonnet-4-5"); got != time.Hour {
		t.Errorf("anthropic with cache_ttl 1h: %v", got)
	}
	if got := cacheLife(st, "openai/gpt-4.1"); got != 5*time.Minute {
		t.Errorf("openai: %v", got)
	}
	st.CacheTTL = profiles.CacheTTL5m
	if got := cacheLife(st, "anthropic/claude-sonnet-4-5"); got != 5*time.Minute {
		t.Errorf("anthropic with cache_ttl 5m: %v", got)
	}
	for d, want := range map[time.Duration]string{
		20 * time.Second: "1 minute", 5 * time.Minute: "5 minutes", time.Hour: "1 hour",
		90 * time.Minute: "2 hours", 47 * time.Hour: "47 hours", 72 * time.Hour: "3 days",
	} {
		if got := roughDuration(d); got != want {
			t.Errorf("roughDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
