package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"myco/profiles"
)

// /usage shows what is left of the session's budget and of today's, and
// GET …/budget serves the same figures as JSON.
func TestUsageShowsTheBudgetLeft(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic", func(st *profiles.Settings) {
		st.Models["anthropic/fake-model"] = profiles.Model{Price: &profiles.Price{Input: 3, Output: 15}}
		st.Budgets.SessionCostUSD = 2
	})
	s := cs.create("budgeted")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "hello [[usage:in=10000,out=2000]]"), http.StatusAccepted)
	st.until("turn.end")

	resp := cs.do("GET", "/api/sessions/"+s.ID+"/budget", nil)
	wantStatus(t, resp, http.StatusOK)
	var b struct {
		Session, Day struct {
			Tokens       int64   `json:"tokens"`
			CostUSD      float64 `json:"cost_usd"`
			LimitCostUSD float64 `json:"limit_cost_usd"`
			LeftCostUSD  float64 `json:"left_cost_usd"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&b); err != nil {
		t.Fatal(err)
	}
	// 10,000 in at $3 and 2,000 out at $15 a million: $0.06.
	if b.Session.Tokens != 12000 || b.Session.CostUSD < 0.0599 || b.Session.CostUSD > 0.0601 || b.Session.LimitCostUSD != 2 || b.Session.LeftCostUSD < 1.93 {
		t.Errorf("session budget %+v, want $0.06 of $2 used", b.Session)
	}
	if b.Day.LimitCostUSD != profiles.DefaultDayCostUSD || b.Day.Tokens < 12000 {
		t.Errorf("day budget %+v, want the session's call under the default $50", b.Day)
	}

	card := cs.do("GET", "/s/"+s.ID+"/usage", nil)
	wantStatus(t, card, http.StatusOK)
	body, _ := io.ReadAll(card.Body)
	for _, want := range []string{`data-testid="usage-budget-session"`, "$0.0600 of $2.00 used, $1.94 left", `data-testid="usage-budget-day"`, "of $50.00 used"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/usage lacks %q:\n%s", want, body)
		}
	}
}

// The Settings page sets the budgets and the turn's call limit; the
// values in force change at once, and fields left as they were are not
// written.
func TestSettingsPageSetsBudgets(t *testing.T) {
	t.Parallel()
	ts, ls, path := newSettingsServer(t, `{}`)
	form := url.Values{
		"max_model_calls_per_turn": {"50"}, "budgets.session_cost_usd": {"2.5"}, "budgets.session_tokens": {"0"},
		"budgets.day_cost_usd": {"50"}, "budgets.day_tokens": {"3000000"},
	}
	wantStatus(t, ts.postForm("/settings", form), http.StatusSeeOther)
	data, _ := os.ReadFile(path)
	for _, want := range []string{`"session_cost_usd": 2.5`, `"day_tokens": 3000000`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("settings.json lacks %s:\n%s", want, data)
		}
	}
	for _, unwanted := range []string{"max_model_calls_per_turn", "day_cost_usd", "session_tokens"} {
		if strings.Contains(string(data), unwanted) {
			t.Errorf("settings.json gained %s, which the form did not change:\n%s", unwanted, data)
		}
	}
	if b := ls.Current().Budgets; b.SessionCostUSD != 2.5 || b.DayTokens != 3000000 || b.DayCostUSD != profiles.DefaultDayCostUSD {
		t.Errorf("budgets in force %+v", b)
	}
	page := ts.do("GET", "/settings", nil)
	d := parseDoc(t, page)
	if v := d.Find(`input[name='budgets.session_cost_usd']`).AttrOr("value", ""); v != "2.5" {
		t.Errorf("the page shows session_cost_usd %q, want 2.5", v)
	}
}
