package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"myco/profiles"
	"myco/server/live"
	"myco/session"
	"myco/web"
)

// price is the Pricer of every page and fragment: what an answer's tokens
// cost at the list prices settings know now (profiles.Settings.Cost, the
// one rule), so a price changed in settings shows on the next render. An
// answer that names no model, in a session that names none, is priced at
// the default model, which it was asked of.
func (s *Server) price(model string, u session.Usage) (float64, bool) {
	if model == "" {
		model = s.defaultModel()
	}
	st := s.settings()
	return st.Cost(model, tokensOf(st, u))
}

// tokensOf is an answer's usage by how it is priced, input already without
// the cache (FORMAT.md): cache writes at the lifetime the provider reported
// for them; those it did not say (OpenAI-compatible servers, documents
// written before the split was kept) at the lifetime settings ask for
// (profiles.Settings.TokensOf).
func tokensOf(st profiles.Settings, u session.Usage) profiles.Tokens {
	oneHour := min(u.CacheCreation1hInputTokens, u.CacheCreationInputTokens)
	fiveMin := min(u.CacheCreation5mInputTokens, u.CacheCreationInputTokens-oneHour)
	t := st.TokensOf(u.InputTokens, u.OutputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens-oneHour-fiveMin)
	t.CacheWrite += fiveMin
	t.CacheWrite1h += oneHour
	return t
}

// usageCard is what /usage shows: the last turn's figures and the
// session's, from the document (the live one when the session is open
// here), so a reload changes nothing.
func (s *Server) usageCard(c echo.Context) error {
	doc, _, _, err := s.pageDocument(c.Param("id"))
	if err != nil {
		return err
	}
	v := web.NewUsageCardView(doc, s.price)
	b := s.live.Budget(doc)
	v.SessionBudget, v.DayBudget = budgetView(b.Session), budgetView(b.Day)
	return render(c, http.StatusOK, web.UsageCard(v))
}

// budgetView is a budget as the /usage card shows it.
func budgetView(f live.BudgetFigures) *web.BudgetView {
	return &web.BudgetView{Tokens: f.Tokens, CostUSD: f.CostUSD, LimitTokens: f.LimitTokens, LimitCostUSD: f.LimitCostUSD}
}

// budget is GET /api/sessions/{id}/budget: what the session's budget and
// today's were charged, and what they leave (live.BudgetLeft).
func (s *Server) budget(c echo.Context) error {
	doc, _, _, err := s.pageDocument(c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.live.Budget(doc))
}
