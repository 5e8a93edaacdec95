package server

import (
	"encoding/json"
	"math"
	"strconv"

	"myco/profiles"
	"myco/web"
)

// budgetSettingsView is st's budgets and turn guard as the form shows them.
func budgetSettingsView(st profiles.Settings) web.BudgetSettingsView {
	b := st.Budgets
	return web.BudgetSettingsView{
		MaxModelCalls:  strconv.Itoa(st.MaxModelCalls),
		SessionCostUSD: decimal(b.SessionCostUSD), SessionTokens: strconv.FormatInt(b.SessionTokens, 10),
		DayCostUSD: decimal(b.DayCostUSD), DayTokens: strconv.FormatInt(b.DayTokens, 10),
	}
}

// fillBudgets puts the posted budgets into v, for a form shown again.
func fillBudgets(v *web.BudgetSettingsView, get func(name string, into *string)) {
	get("max_model_calls_per_turn", &v.MaxModelCalls)
	get("budgets.session_cost_usd", &v.SessionCostUSD)
	get("budgets.session_tokens", &v.SessionTokens)
	get("budgets.day_cost_usd", &v.DayCostUSD)
	get("budgets.day_tokens", &v.DayTokens)
}

// budgets writes the form's budgets and turn guard that changed.
func (e *settingsEdit) budgets(doc profiles.SettingsDoc) error {
	cur := budgetSettingsView(e.cur)
	if err := e.number(doc, "max_model_calls_per_turn", cur.MaxModelCalls, "max_model_calls_per_turn"); err != nil {
		return err
	}
	if err := e.dollars(doc, "budgets.session_cost_usd", cur.SessionCostUSD, "budgets", "session_cost_usd"); err != nil {
		return err
	}
	if err := e.number(doc, "budgets.session_tokens", cur.SessionTokens, "budgets", "session_tokens"); err != nil {
		return err
	}
	if err := e.dollars(doc, "budgets.day_cost_usd", cur.DayCostUSD, "budgets", "day_cost_usd"); err != nil {
		return err
	}
	return e.number(doc, "budgets.day_tokens", cur.DayTokens, "budgets", "day_tokens")
}

// dollars is number for an amount in US dollars, which may have cents.
func (e *settingsEdit) dollars(doc profiles.SettingsDoc, field, cur string, path ...string) error {
	if !e.form.Has(field) {
		return nil
	}
	e.fields[pathOf(path)] = field
	v := trimmed(e.form, field)
	switch f, err := strconv.ParseFloat(v, 64); {
	case v == cur:
	case v == "":
		doc.Delete(path...)
	case err != nil || !(f >= 0) || math.IsInf(f, 0):
		return &formError{field, "must be an amount in US dollars, 0 (no limit) or more, not " + strconv.Quote(v)}
	default:
		doc.Set(json.Number(decimal(f)), path...)
	}
	return nil
}
