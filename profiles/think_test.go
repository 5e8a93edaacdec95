package profiles_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myco/profiles"
)

func TestSettingsThinkAndPersonalities(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		wantErr string // empty: loads
		check   func(t *testing.T, s profiles.Settings)
	}{
		{name: "defaults", file: `{}`, check: func(t *testing.T, s profiles.Settings) {
			if s.Think != "off" || len(s.Personalities) != 0 {
				t.Errorf("think %q personalities %v, want off and none", s.Think, s.Personalities)
			}
		}},
		{name: "set", file: `{"think": "high", "personalities": {"terse": "Answer in few words."}, "models": {"openai/qwen3": {"thinking": true}}}`,
			check: func(t *testing.T, s profiles.Settings) {
				if s.Think != "high" || s.Personalities["terse"] != "Answer in few words." {
					t.Errorf("got think %q personalities %v", s.Think, s.Personalities)
				}
				if !s.ModelThinks("openai/qwen3") {
					t.Error("models.openai/qwen3.thinking true is not honoured")
				}
			}},
		{name: "unknown level", file: `{"think": "hard"}`, wantErr: "think must be one of off, low, medium, high, xhigh, max"},
		{name: "persona without words", file: `{"personalities": {"terse": " "}}`, wantErr: "must say how to answer"},
		{name: "persona named off", file: `{"personalities": {"off": "x"}}`, wantErr: `must not be named "off"`},
		{name: "persona of two words", file: `{"personalities": {"very terse": "x"}}`, wantErr: "one word"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := profiles.LoadSettings(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("LoadSettings = %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, s)
		})
	}
}

func TestModelThinks(t *testing.T) {
	no := false
	s := profiles.DefaultSettings()
	s.Models["anthropic/claude-haiku-4-5"] = profiles.Model{Thinking: &no}
	tests := []struct {
		model string
		want  bool
	}{
		{"anthropic/claude-sonnet-4-5", true},
		{"anthropic/claude-haiku-4-5", false}, // settings say no
		{"anthropic/claude-3-5-haiku-latest", false},
		{"openai/o3-mini", true},
		{"openai/gpt-5", true},
		{"openai/gpt-4.1", false},
		{"ollama/llama3.1:8b", false},
		{"nonsense", false},
	}
	for _, tt := range tests {
		if got := s.ModelThinks(tt.model); got != tt.want {
			t.Errorf("ModelThinks(%q) = %v, want %v", tt.model, got, tt.want)
		}
	}
}
