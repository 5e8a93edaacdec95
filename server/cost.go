package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"myco/session"
	"myco/web"
)

// price is the Pricer of every page and fragment: what an answer's tokens
// cost at the list prices settings know (profiles.Settings.Cost, the one
// rule). An answer that names no model, in a session that names none, is
// priced at the default model, which it was asked of.
func (s *Server) price(model string, u session.Usage) (float64, bool) {
	if model == "" {
		model = s.defaultModel()
	}
	return costAt(s.settings(), model, u)
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
