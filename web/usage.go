package web

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"myco/session"
)

// Pricer is what tokens of a model ("provider/model-id") cost in US
// dollars at its list prices, and false when its price is unknown. The
// server passes the settings' one (profiles.Settings.Cost); nil knows no
// price.
type Pricer func(model string, u session.Usage) (usd float64, known bool)

// UsageView is token accounting as the page shows it, with its cost: each
// turn's line, the side panel's session total, /usage, and a listing
// row's figures. Every one is figured here from the document, so a reload
// shows what the live page showed.
type UsageView struct {
	Input      int64 // uncached input, as Anthropic counts it (FORMAT.md)
	Output     int64
	CacheRead  int64
	CacheWrite int64
	// USD is the cost at list prices of the answers whose model has a
	// price; Unpriced says some tokens came from a model without one, so
	// the cost shown is "price unknown", never a part of the bill.
	USD      float64
	Unpriced bool
	// Models are the models the answers came from, in the order met.
	Models []string
}

// add counts an answer's usage, priced at its model's prices. model is
// the answer's own (Message.Model), else the session's.
func (v *UsageView) add(model string, u session.Usage, price Pricer) {
	v.Input += u.InputTokens
	v.Output += u.OutputTokens
	v.CacheRead += u.CacheReadInputTokens
	v.CacheWrite += u.CacheCreationInputTokens
	if !slices.Contains(v.Models, model) {
		v.Models = append(v.Models, model)
	}
	if isZero(u) {
		return // nothing to pay for, whatever the price
	}
	usd, ok := 0.0, false
	if price != nil && model != "" {
		usd, ok = price(model, u)
	}
	v.USD += usd
	v.Unpriced = v.Unpriced || !ok
}

func isZero(u session.Usage) bool {
	return u.InputTokens == 0 && u.OutputTokens == 0 && u.CacheReadInputTokens == 0 && u.CacheCreationInputTokens == 0
}

// answerModel is the model an answer's usage is priced at: its own, as
// "provider/model-id"; an older document's bare model ID takes the
// provider of the session's model; an answer that names none is priced
// at the session's model (sessionModel, "" for the settings' default,
// which the server's Pricer knows).
func answerModel(model, sessionModel string) string {
	switch {
	case model == "":
		return sessionModel
	case strings.Contains(model, "/"):
		return model
	}
	if provider, _, ok := strings.Cut(sessionModel, "/"); ok {
		return provider + "/" + model
	}
	return model
}

// sessionUsage is the session's total, as session.Document.UsageByModel
// counts it (carried messages once), each model's tokens at its price.
func sessionUsage(doc *session.Document, price Pricer) UsageView {
	return usageByModel(doc.UsageByModel(), doc.Model, price)
}

// usageByModel totals per-model usage, as a document or a listing's
// summary holds it.
func usageByModel(byModel []session.ModelUsage, sessionModel string, price Pricer) UsageView {
	var v UsageView
	for _, mu := range byModel {
		v.add(answerModel(mu.Model, sessionModel), mu.Usage, price)
	}
	return v
}

// Used reports whether any tokens were counted.
func (u UsageView) Used() bool {
	return u.Input+u.Output+u.CacheRead+u.CacheWrite > 0
}

// Text is the tokens in one line: "in 1,234 · out 56 · cache read 1,000
// · cache write 200". Cache figures appear only when there are some.
func (u UsageView) Text() string { return strings.Join(u.TokenParts(), " · ") }

// TokenParts are Text's figures, each kept on one line by the page.
func (u UsageView) TokenParts() []string {
	parts := []string{"in " + groupDigits(u.Input), "out " + groupDigits(u.Output)}
	if u.CacheRead > 0 {
		parts = append(parts, "cache read "+groupDigits(u.CacheRead))
	}
	if u.CacheWrite > 0 {
		parts = append(parts, "cache write "+groupDigits(u.CacheWrite))
	}
	return parts
}

// HitPercent is the share of the input read from the prompt cache:
// cache_read / (input + cache_read + cache_write), rounded down (99.6% is
// not a 100% hit). ok is false when there was no input.
func (u UsageView) HitPercent() (pct int, ok bool) {
	total := u.Input + u.CacheRead + u.CacheWrite
	if total <= 0 {
		return 0, false
	}
	return int(u.CacheRead * 100 / total), true
}

// HitText is "93% cache hit", or "" with no input.
func (u UsageView) HitText() string {
	if p := u.PercentText(); p != "" {
		return p + " cache hit"
	}
	return ""
}

// PercentText is the cache hit alone, "93%", or "" with no input: what
// the side panel and a listing row show beside their own label.
func (u UsageView) PercentText() string {
	pct, ok := u.HitPercent()
	if !ok {
		return ""
	}
	return strconv.Itoa(pct) + "%"
}

// CostText is the cost at list prices ("$0.0132", "$1.24"), or "price
// unknown" when a model counted has no price.
func (u UsageView) CostText() string {
	if u.Unpriced {
		return "price unknown"
	}
	return formatUSD(u.USD)
}

// Line is the whole figure in one line: tokens, cache hit and cost.
func (u UsageView) Line() string {
	parts := []string{u.Text()}
	if h := u.HitText(); h != "" {
		parts = append(parts, h)
	}
	return strings.Join(append(parts, u.CostText()), " · ")
}

// CostTitle says what the cost is, for a tooltip.
func (u UsageView) CostTitle() string {
	models := strings.Join(u.Models, ", ")
	if models == "" {
		models = "the session's model"
	}
	if u.Unpriced {
		return "No price is known for " + models + ": set models[\"provider/model\"].price in settings.json to see a cost."
	}
	return "At list prices for " + models + ", cache reads and writes at their own prices; your bill may differ."
}

// HitTitle explains the cache hit, for a tooltip.
func (u UsageView) HitTitle() string {
	return "Share of the input read from the prompt cache: cache read ÷ (in + cache read + cache write)"
}

// formatUSD writes a cost with the digits that matter: four decimals
// under ten cents (a turn's cost), two up to $100, whole dollars above.
func formatUSD(usd float64) string {
	switch {
	case usd == 0:
		return "$0.00"
	case usd < 0.0001:
		return "< $0.0001"
	case usd < 0.1:
		return fmt.Sprintf("$%.4f", usd)
	case usd < 100:
		return fmt.Sprintf("$%.2f", usd)
	}
	return "$" + groupDigits(int64(math.Round(usd)))
}

// RowText is a listing row's figure: "$0.42 · 93% cached", compact (a
// phone's row leaves out the word "cached").
func (u UsageView) RowText() string {
	if !u.Used() {
		return ""
	}
	if p := u.PercentText(); p != "" {
		return u.CostText() + " · " + p + " cached"
	}
	return u.CostText()
}

// RowTitle is a listing row's tooltip: the tokens, and what the figures are.
func (u UsageView) RowTitle() string {
	return u.Text() + ". " + u.CostTitle() + " Cached: " + u.HitTitle() + "."
}

// groupDigits writes n with commas between groups of three digits.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + b.String()
}

func int64Attr(n int64) string { return strconv.FormatInt(n, 10) }
