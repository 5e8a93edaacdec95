package profiles

import (
	"net"
	"net/url"
	"strings"
)

// CatalogAsOf is the day the catalogue's prices and context windows were
// read from the providers' pricing and model pages. A price that changed
// since, or a model that came out since, is set in settings.json
// (models["provider/id"].price and .context_window).
const CatalogAsOf = "2026-12-02"

// Price is what a model costs, in US dollars per million tokens. Input is
// the uncached input; CacheRead the input read from the prompt cache;
// CacheWrite and CacheWrite1h the input written to it with the 5-minute
// and the 1-hour lifetime. OpenAI charges nothing extra to write its
// cache, so both writes cost its input price there.
type Price struct {
	Input        float64 `json:"input"`
	Output       float64 `json:"output"`
	CacheRead    float64 `json:"cache_read"`
	CacheWrite   float64 `json:"cache_write"`
	CacheWrite1h float64 `json:"cache_write_1h"`
}

// Tokens are the tokens of one answer, or a sum of answers, by how they
// are priced. Input is the uncached input only, as Anthropic counts it
// (session.Usage holds OpenAI's the same way): cache reads and writes
// are not in it.
type Tokens struct {
	Input        int64
	Output       int64
	CacheRead    int64
	CacheWrite   int64 // written with the 5-minute lifetime
	CacheWrite1h int64 // written with the 1-hour lifetime
}

// TokensOf sorts an answer's usage as session.Usage counts it into
// Tokens: cache writes are priced at the lifetime cache_ttl asks for
// (Anthropic's usage does not say which one a write had). input is the
// uncached input.
func (s Settings) TokensOf(input, output, cacheRead, cacheWrite int64) Tokens {
	t := Tokens{Input: input, Output: output, CacheRead: cacheRead}
	if s.CacheTTL == CacheTTL5m {
		t.CacheWrite = cacheWrite
	} else {
		t.CacheWrite1h = cacheWrite
	}
	return t
}

// CatalogModel is one model of the catalogue: its provider's model ID,
// its context window in tokens and its list price.
type CatalogModel struct {
	ID            string
	ContextWindow int
	Price         Price
}

// anthropicPrice builds a Claude price from its input and output prices:
// Anthropic charges 1.25 times the input price for a 5-minute cache
// write, twice it for a 1-hour one, and a tenth of it for a cache read.
func anthropicPrice(input, output float64) Price {
	return Price{Input: input, Output: output, CacheRead: input / 10, CacheWrite: input * 1.25, CacheWrite1h: input * 2}
}

// openAIPrice builds an OpenAI price: writing its cache costs the input
// price, reading it the cached-input price.
func openAIPrice(input, cached, output float64) Price {
	return Price{Input: input, Output: output, CacheRead: cached, CacheWrite: input, CacheWrite1h: input}
}

// catalog holds the current Anthropic and OpenAI models, as of
// CatalogAsOf, from platform.claude.com/docs/en/about-claude/pricing, the
// models' overview pages, and developers.openai.com/api/docs/pricing.
// Prices are the standard (not batch, not priority) ones; Sonnet 4 and
// 4.5 cost more per token above 200K input tokens, which is not shown
// here. A model ID matches its entry exactly or with a date appended
// (claude-sonnet-4-5-20250929, gpt-4o-2024-08-06), never by a looser
// prefix: a new model must read "price unknown", not an older one's price.
var catalog = []CatalogModel{
	{"claude-opus-4-8", 1000000, anthropicPrice(5, 25)},
	{"claude-opus-4-7", 1000000, anthropicPrice(5, 25)},
	{"claude-opus-4-6", 1000000, anthropicPrice(5, 25)},
	{"claude-opus-4-5", 200000, anthropicPrice(5, 25)},
	{"claude-opus-4-1", 200000, anthropicPrice(15, 75)},
	{"claude-opus-4-0", 200000, anthropicPrice(15, 75)},
	{"claude-opus-4", 200000, anthropicPrice(15, 75)},
	{"claude-sonnet-4-6", 1000000, anthropicPrice(3, 15)},
	{"claude-sonnet-4-5", 200000, anthropicPrice(3, 15)},
	{"claude-sonnet-4-0", 200000, anthropicPrice(3, 15)},
	{"claude-sonnet-4", 200000, anthropicPrice(3, 15)},
	{"claude-haiku-4-5", 200000, anthropicPrice(1, 5)},

	{"gpt-5.5", 1050000, openAIPrice(5, 0.5, 30)},
	{"gpt-5.4", 1050000, openAIPrice(2.5, 0.25, 15)},
	{"gpt-5.4-mini", 400000, openAIPrice(0.75, 0.075, 4.5)},
	{"gpt-5.4-nano", 400000, openAIPrice(0.2, 0.02, 1.25)},
	{"gpt-5.2", 400000, openAIPrice(1.75, 0.175, 14)},
	{"gpt-5.1", 400000, openAIPrice(1.25, 0.125, 10)},
	{"gpt-5", 400000, openAIPrice(1.25, 0.125, 10)},
	{"gpt-5-mini", 400000, openAIPrice(0.25, 0.025, 2)},
	{"gpt-5-nano", 400000, openAIPrice(0.05, 0.005, 0.4)},
	{"gpt-4.1", 1047576, openAIPrice(2, 0.5, 8)},
	{"gpt-4.1-mini", 1047576, openAIPrice(0.4, 0.1, 1.6)},
	{"gpt-4.1-nano", 1047576, openAIPrice(0.1, 0.025, 0.4)},
	{"gpt-4o", 128000, openAIPrice(2.5, 1.25, 10)},
	{"gpt-4o-mini", 128000, openAIPrice(0.15, 0.075, 0.6)},
	{"o3", 200000, openAIPrice(2, 0.5, 8)},
	{"o3-mini", 200000, openAIPrice(1.1, 0.55, 4.4)},
	{"o4-mini", 200000, openAIPrice(1.1, 0.275, 4.4)},
}

// familyWindows are the context windows of model families, by a prefix
// of the model ID, for models the catalogue and settings do not name. A
// window, unlike a price, is safe to guess from the family: a wrong guess
// only moves when automatic compaction starts.
var familyWindows = []struct {
	prefix string
	window int
}{
	{"claude-", 200000},
	{"gpt-4.1", 1047576},
	{"gpt-4o", 128000},
	{"gpt-5", 400000},
	{"o3", 200000},
	{"o4", 200000},
}

// fallbackContextWindow is assumed for a model nobody described: small
// enough that automatic compaction starts before most servers refuse.
const fallbackContextWindow = 128000

// Catalog returns a copy of the catalogue.
func Catalog() []CatalogModel {
	return append([]CatalogModel(nil), catalog...)
}

// LookupCatalog finds a model ID (without "provider/") in the catalogue:
// the entry of that ID, or of that ID with a date appended.
func LookupCatalog(id string) (CatalogModel, bool) {
	for _, m := range catalog {
		if rest, ok := strings.CutPrefix(id, m.ID); ok && (rest == "" || isDateSuffix(rest)) {
			return m, true
		}
	}
	return CatalogModel{}, false
}

// isDateSuffix reports whether rest, what follows a catalogue ID, is a
// snapshot's date: Anthropic's -YYYYMMDD or OpenAI's -YYYY-MM-DD.
func isDateSuffix(rest string) bool {
	var shape string
	switch len(rest) {
	case len("-20250929"):
		shape = "-dddddddd"
	case len("-2024-08-06"):
		shape = "-dddd-dd-dd"
	default:
		return false
	}
	for i := range len(shape) {
		digit := rest[i] >= '0' && rest[i] <= '9'
		if (shape[i] == 'd') != digit || (shape[i] == '-' && rest[i] != '-') {
			return false
		}
	}
	return true
}

// ModelLimits returns what settings say of model ("provider/model-id"),
// with the context window filled in from the catalogue, else from the
// model's family, when settings leave it out. CompactAt of the result is
// the automatic compaction threshold: auto_compact_at when set (0 turns
// it off), else 80% of the window.
func (s Settings) ModelLimits(model string) Model {
	m := s.Models[model]
	if m.ContextWindow == 0 {
		m.ContextWindow = knownWindow(modelID(model))
	}
	return m
}

func knownWindow(id string) int {
	if c, ok := LookupCatalog(id); ok {
		return c.ContextWindow
	}
	for _, k := range familyWindows {
		if strings.HasPrefix(id, k.prefix) {
			return k.window
		}
	}
	return fallbackContextWindow
}

// modelID is the model ID of "provider/model-id", or the whole name when
// it has no provider.
func modelID(model string) string {
	if _, id, err := SplitModel(model); err == nil {
		return id
	}
	return model
}

// Price returns what model ("provider/model-id") costs, and false when
// that is unknown. models[model].price in settings decides when set;
// else the catalogue's price of the model ID; else a model of a provider
// on this machine (a base_url on loopback: Ollama, llama.cpp, LM Studio)
// is free. A local server that serves a catalogue ID is taken to proxy
// the paid model, so the catalogue comes first; price it at 0 in
// settings if it does not.
func (s Settings) Price(model string) (Price, bool) {
	if m, ok := s.Models[model]; ok && m.Price != nil {
		return *m.Price, true
	}
	if c, ok := LookupCatalog(modelID(model)); ok {
		return c.Price, true
	}
	if provider, _, err := SplitModel(model); err == nil && s.IsLocal(provider) {
		return Price{}, true
	}
	return Price{}, false
}

// Cost returns what tokens of model cost in US dollars, and false (with
// 0) when the model's price is unknown, so a page can say "price unknown"
// rather than show a wrong cost.
func (s Settings) Cost(model string, t Tokens) (float64, bool) {
	p, ok := s.Price(model)
	if !ok {
		return 0, false
	}
	return p.Cost(t), true
}

// Cost returns what tokens cost at p, in US dollars.
func (p Price) Cost(t Tokens) float64 {
	micro := float64(t.Input)*p.Input + float64(t.Output)*p.Output +
		float64(t.CacheRead)*p.CacheRead + float64(t.CacheWrite)*p.CacheWrite +
		float64(t.CacheWrite1h)*p.CacheWrite1h
	return micro / 1e6
}

// IsLocal reports whether provider's base_url is on this machine
// (localhost or a loopback address), where a model costs nothing.
func (s Settings) IsLocal(provider string) bool {
	p, ok := s.Providers[provider]
	if !ok || p.BaseURL == "" {
		return false
	}
	u, err := url.Parse(p.BaseURL)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
