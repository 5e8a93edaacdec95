package profiles_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"myco/profiles"
)

func TestLookupCatalog(t *testing.T) {
	tests := []struct {
		name, id string
		want     string // the catalogue ID it matches, "" for none
	}{
		{name: "exact", id: "claude-sonnet-4-5", want: "claude-sonnet-4-5"},
		{name: "anthropic snapshot date", id: "claude-sonnet-4-5-20250929", want: "claude-sonnet-4-5"},
		{name: "opus 4 snapshot", id: "claude-opus-4-20250514", want: "claude-opus-4"},
		{name: "openai snapshot date", id: "gpt-4o-2024-08-06", want: "gpt-4o"},
		{name: "a sibling is not its family", id: "gpt-5-mini", want: "gpt-5-mini"},
		{name: "sibling with a date", id: "o3-mini-2025-01-31", want: "o3-mini"},
		{name: "newer model is unknown", id: "claude-opus-4-9", want: ""},
		{name: "variant is unknown", id: "gpt-5-pro", want: ""},
		{name: "short date is no date", id: "gpt-4o-2024", want: ""},
		{name: "letters in the date", id: "claude-haiku-4-5-2025100x", want: ""},
		{name: "local model", id: "llama3.1:8b", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := profiles.LookupCatalog(tt.id)
			if got := m.ID; got != tt.want || ok != (tt.want != "") {
				t.Errorf("LookupCatalog(%q) = %q, %v; want %q", tt.id, got, ok, tt.want)
			}
		})
	}
}

func TestCatalogIsComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range profiles.Catalog() {
		if seen[m.ID] {
			t.Errorf("%s is in the catalogue twice", m.ID)
		}
		seen[m.ID] = true
		p := m.Price
		if m.ContextWindow <= 0 || p.Input <= 0 || p.Output <= p.Input || p.CacheRead <= 0 || p.CacheRead >= p.Input || p.CacheWrite < p.Input || p.CacheWrite1h < p.CacheWrite {
			t.Errorf("%s: implausible window or price %+v, %d", m.ID, p, m.ContextWindow)
		}
	}
}

func TestCost(t *testing.T) {
	s := profiles.DefaultSettings()
	s.Providers["local"] = profiles.Provider{BaseURL: "http://127.0.0.1:11434/v1"}
	s.Providers["lan"] = profiles.Provider{BaseURL: "http://192.168.1.5:8000/v1"}
	s.Providers["box"] = profiles.Provider{BaseURL: "http://localhost:1234/v1"}
	s.Providers["v6"] = profiles.Provider{BaseURL: "http://[::1]:8080/v1"}
	s.Models["anthropic/claude-haiku-4-5"] = profiles.Model{Price: &profiles.Price{Input: 2, Output: 10, CacheRead: 0.2, CacheWrite: 2.5, CacheWrite1h: 4}}
	s.Models["lan/qwen3"] = profiles.Model{Price: &profiles.Price{Input: 0.5, Output: 1}}
	million := profiles.Tokens{Input: 1e6, Output: 1e6, CacheRead: 1e6, CacheWrite: 1e6, CacheWrite1h: 1e6}
	tests := []struct {
		name, model string
		tokens      profiles.Tokens
		want        float64
		known       bool
	}{
		{"every kind of token", "anthropic/claude-sonnet-4-5", million, 3 + 15 + 0.3 + 3.75 + 6, true},
		{"dated snapshot", "anthropic/claude-sonnet-4-5-20250929", profiles.Tokens{Input: 1000, Output: 500}, 0.003 + 0.0075, true},
		{"cache read is a tenth", "anthropic/claude-opus-4-8", profiles.Tokens{CacheRead: 2e6}, 1, true},
		{"openai cache write costs the input price", "openai/gpt-4.1", profiles.Tokens{CacheWrite: 1e6, CacheRead: 1e6}, 2 + 0.5, true},
		{"settings override the catalogue", "anthropic/claude-haiku-4-5", million, 2 + 10 + 0.2 + 2.5 + 4, true},
		{"settings price a model the catalogue lacks", "lan/qwen3", profiles.Tokens{Input: 1e6, Output: 1e6}, 1.5, true},
		{"loopback is free", "local/llama3.1:8b", million, 0, true},
		{"localhost is free", "box/qwen3", million, 0, true},
		{"ipv6 loopback is free", "v6/qwen3", million, 0, true},
		{"a local proxy of a catalogue model costs its price", "local/gpt-4o", profiles.Tokens{Output: 1e6}, 10, true},
		{"another machine is unknown", "lan/llama3.1:8b", million, 0, false},
		{"new model is unknown", "anthropic/claude-opus-4-9", million, 0, false},
		{"unconfigured provider is unknown", "nowhere/model", million, 0, false},
		{"no tokens cost nothing", "openai/gpt-5", profiles.Tokens{}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, known := s.Cost(tt.model, tt.tokens)
			if known != tt.known || math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("Cost(%s) = %v, %v; want %v, %v", tt.model, got, known, tt.want, tt.known)
			}
		})
	}
}

func TestLoadSettingsPrice(t *testing.T) {
	file := `{
  "models": {
    "anthropic/claude-sonnet-4-5": {"price": {"input": 2}},
    "openai/qwen3": {"price": {"input": 0.4, "output": 1.6}},
    "openai/cached": {"price": {"input": 1, "output": 2, "cache_read": 0.1}}
  }
}`
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := profiles.LoadSettings(path)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		model string
		want  profiles.Price
	}{
		// A field left out keeps the catalogue's price.
		{"anthropic/claude-sonnet-4-5", profiles.Price{Input: 2, Output: 15, CacheRead: 0.3, CacheWrite: 3.75, CacheWrite1h: 6}},
		// A model the catalogue lacks gets no cache discount nobody stated.
		{"openai/qwen3", profiles.Price{Input: 0.4, Output: 1.6, CacheRead: 0.4, CacheWrite: 0.4, CacheWrite1h: 0.4}},
		{"openai/cached", profiles.Price{Input: 1, Output: 2, CacheRead: 0.1, CacheWrite: 1, CacheWrite1h: 1}},
	}
	for _, tt := range tests {
		got, ok := s.Price(tt.model)
		if !ok {
			t.Errorf("Price(%s) unknown", tt.model)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Price(%s) mismatch (-want +got):\n%s", tt.model, diff)
		}
	}
	if w := s.ModelLimits("anthropic/claude-sonnet-4-5").ContextWindow; w != 200000 {
		t.Errorf("a price override changed the window: %d", w)
	}
}

func TestCatalogWindows(t *testing.T) {
	s := profiles.DefaultSettings()
	s.Models["openai/gpt-4o"] = profiles.Model{ContextWindow: 64000}
	tests := []struct {
		model string
		want  int
	}{
		{"anthropic/claude-sonnet-4-6", 1000000},
		{"anthropic/claude-opus-4-5-20251101", 200000},
		{"openai/gpt-5-mini-2025-08-07", 400000},
		{"openai/gpt-4o", 64000}, // settings win
		{"openai/gpt-4o-mini", 128000},
		{"openai/gpt-5-pro", 400000}, // family
		{"anthropic/claude-opus-4-9", 200000},
		{"openai/llama3.1:8b", 128000},
	}
	for _, tt := range tests {
		if got := s.ModelLimits(tt.model).ContextWindow; got != tt.want {
			t.Errorf("ModelLimits(%s).ContextWindow = %d, want %d", tt.model, got, tt.want)
		}
	}
}

func TestTokensOfPricesWritesAtTheCacheTTL(t *testing.T) {
	s := profiles.DefaultSettings()
	tests := []struct {
		ttl  string
		want float64 // Sonnet 4.5: 1M written
	}{
		{profiles.CacheTTL1h, 6},
		{profiles.CacheTTL5m, 3.75},
	}
	for _, tt := range tests {
		s.CacheTTL = tt.ttl
		got, _ := s.Cost("anthropic/claude-sonnet-4-5", s.TokensOf(0, 0, 0, 1e6))
		if math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("cache_ttl %s: a million written costs %v, want %v", tt.ttl, got, tt.want)
		}
	}
}
