package profiles_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"myco/profiles"
)

func TestBudgetSettings(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		want      profiles.Budgets
		wantCalls int
		wantErr   string // a part of the error, "" for none
	}{
		{name: "defaults", file: `{}`, want: profiles.Budgets{DayCostUSD: 50}, wantCalls: 50},
		{
			name: "a session budget keeps the day's default",
			file: `{"budgets": {"session_cost_usd": 2.5, "session_tokens": 100000}, "max_model_calls_per_turn": 8}`,
			want: profiles.Budgets{SessionCostUSD: 2.5, SessionTokens: 100000, DayCostUSD: 50}, wantCalls: 8,
		},
		{
			name: "0 turns the day's limit off",
			file: `{"budgets": {"day_cost_usd": 0, "day_tokens": 5000000}}`,
			want: profiles.Budgets{DayTokens: 5000000}, wantCalls: 50,
		},
		{name: "negative cost", file: `{"budgets": {"session_cost_usd": -1}}`, wantErr: "budgets.session_cost_usd must be an amount in US dollars"},
		{name: "negative tokens", file: `{"budgets": {"day_tokens": -5}}`, wantErr: "budgets.day_tokens must be a number of tokens"},
		{name: "no calls", file: `{"max_model_calls_per_turn": 0}`, wantErr: "max_model_calls_per_turn must be at least 1"},
		{name: "too many calls", file: `{"max_model_calls_per_turn": 5000}`, wantErr: "at most 1000"},
		{name: "a typo is a warning, not a budget", file: `{"budgets": {"sesion_cost_usd": 1}}`, want: profiles.Budgets{DayCostUSD: 50}, wantCalls: 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := profiles.LoadSettings(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("LoadSettings() error = %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Budgets); diff != "" {
				t.Errorf("budgets (-want +got):\n%s", diff)
			}
			if got.MaxModelCalls != tt.wantCalls {
				t.Errorf("max_model_calls_per_turn = %d, want %d", got.MaxModelCalls, tt.wantCalls)
			}
		})
	}
}
