package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"myco/profiles"
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
	return s.settings().Cost(model, tokensOf(u))
}

// tokensOf is an answer's usage by how it is priced: the cache writes
// split by lifetime, input already without the cache (FORMAT.md).
func tokensOf(u session.Usage) profiles.Tokens {
	oneHour := min(u.CacheCreation1hInputTokens, u.CacheCreationInputTokens)
	return profiles.Tokens{
		Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadInputTokens,
		CacheWrite: u.CacheCreationInputTokens - oneHour, CacheWrite1h: oneHour,
	}
}

// usageCard is what /usage shows: the last turn's figures and the
// session's, from the document (the live one when the session is open
// here), so a reload changes nothing.
func (s *Server) usageCard(c echo.Context) error {
	doc, _, _, err := s.pageDocument(c.Param("id"))
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.UsageCard(web.NewUsageCardView(doc, s.price)))
}
