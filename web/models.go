package web

import (
	"fmt"
	"strconv"
	"strings"

	"myco/profiles"
)

// ModelChoice is one model /model offers: a model a configured provider
// serves, or one settings.models names.
type ModelChoice struct {
	Name          string `json:"name"` // provider/model-id
	Provider      string `json:"provider"`
	ID            string `json:"id"`
	ContextWindow int    `json:"context_window"`
	// Price is nil when unknown (the list says "price unknown").
	Price      *profiles.Price `json:"price"`
	Local      bool            `json:"local,omitempty"` // its provider is on this machine
	Served     bool            `json:"served"`          // the provider listed it
	InSettings bool            `json:"in_settings,omitempty"`
	Default    bool            `json:"default,omitempty"`
}

// ModelProvider is one configured provider's listing: how many models it
// listed, or why it could not.
type ModelProvider struct {
	Name   string `json:"name"`
	Models int    `json:"models"`
	Error  string `json:"error,omitempty"`
}

// ModelListView is the /model panel.
type ModelListView struct {
	Choices   []ModelChoice
	Providers []ModelProvider
	// Help says how to configure a provider, when none is.
	Help string
	// AsOf is the date of the catalogue's prices (profiles.CatalogAsOf).
	AsOf string
}

// Facts is what the list says beside a model's name: its window and
// price.
func (m ModelChoice) Facts() string {
	return WindowText(m.ContextWindow) + " context · " + m.PriceText()
}

// PriceText is the model's input and output prices, "free (local)", or
// "price unknown".
func (m ModelChoice) PriceText() string {
	p := m.Price
	switch {
	case p == nil:
		return "price unknown"
	case *p == profiles.Price{} && m.Local:
		return "free (local)"
	}
	return fmt.Sprintf("%s in / %s out per M tokens", dollars(p.Input), dollars(p.Output))
}

// PriceTitle spells every price out, for the hover text.
func (m ModelChoice) PriceTitle() string {
	p := m.Price
	if p == nil {
		return "No price is known for this model: set models[\"" + m.Name + "\"].price in settings.json"
	}
	return fmt.Sprintf("US dollars per million tokens: input %s, output %s, cache read %s, cache write %s (5 min) / %s (1 h)",
		dollars(p.Input), dollars(p.Output), dollars(p.CacheRead), dollars(p.CacheWrite), dollars(p.CacheWrite1h))
}

func dollars(v float64) string { return "$" + strconv.FormatFloat(v, 'f', -1, 64) }

// WindowText writes a context window short: 200K, 1M, 1.05M.
func WindowText(n int) string {
	switch {
	case n >= 1000000:
		return strings.TrimSuffix(strings.TrimRight(strconv.FormatFloat(float64(n)/1e6, 'f', 2, 64), "0"), ".") + "M"
	case n >= 1000:
		return strconv.Itoa((n+500)/1000) + "K"
	}
	return strconv.Itoa(n)
}

// ModelListHTML renders the /model panel, for GET /api/models.
func ModelListHTML(v ModelListView) (string, error) { return renderString(ModelList(v)) }
