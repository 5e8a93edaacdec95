package fakellm

import (
	"cmp"
	"crypto/sha256"
	"slices"
	"strings"
	"sync"
	"time"
)

// The providers' cache rules the fake simulates (README.md, "Prompt
// cache").
const (
	// defaultMinCacheTokens is the shortest prefix Anthropic caches for
	// most models; MinCacheTokens changes it.
	defaultMinCacheTokens = 1024
	// lookbackBlocks is how many block boundaries before a breakpoint
	// Anthropic also checks for an entry written by an earlier request.
	lookbackBlocks = 20
	// maxBreakpoints is the number of cache_control blocks a Messages
	// request may carry.
	maxBreakpoints = 4
	ttl5m          = 5 * time.Minute
	ttl1h          = time.Hour

	// OpenAI caches prompts of at least openaiMinTokens, in steps of
	// openaiStepTokens, and keeps a prefix openaiTTL after its last use
	// (OpenAI says 5 to 10 minutes of inactivity: the fake takes the
	// shorter), or a day with prompt_cache_retention "24h".
	openaiMinTokens  = 1024
	openaiStepTokens = 128
	openaiTTL        = 5 * time.Minute
	openaiTTL24h     = 24 * time.Hour
)

// Option configures a Server.
type Option func(*Server)

// MinCacheTokens sets the shortest Anthropic prefix that is cached
// (default 1024, as for most Claude models; some take 2048 or 4096).
func MinCacheTokens(n int) Option {
	return func(s *Server) { s.cache.minTokens = n }
}

// WithClock makes the fake read the time from now instead of the wall
// clock, e.g. a fixed instant, so that only Advance moves it.
func WithClock(now func() time.Time) Option {
	return func(s *Server) { s.cache.wall = now }
}

// promptCache is the providers' prompt caches, one store for both: an
// entry's key is a hash that starts from the provider, the model and (for
// OpenAI) the prompt_cache_key, so entries of one never match another.
type promptCache struct {
	mu        sync.Mutex
	wall      func() time.Time
	offset    time.Duration // what Advance added
	minTokens int
	entries   map[[32]byte]*cacheEntry
	totals    CacheTotals
}

// cacheEntry is one cached prefix.
type cacheEntry struct {
	provider, model, key string
	tokens               int
	ttl                  time.Duration
	expires              time.Time
	reads                int
}

func newPromptCache() *promptCache {
	return &promptCache{wall: time.Now, minTokens: defaultMinCacheTokens, entries: map[[32]byte]*cacheEntry{}}
}

// now is the fake's time: the clock plus everything Advance added.
// Callers hold mu.
func (p *promptCache) now() time.Time { return p.wall().Add(p.offset) }

// live returns the entry under h when it has not expired, dropping it
// when it has. Callers hold mu.
func (p *promptCache) live(h [32]byte, now time.Time) *cacheEntry {
	e := p.entries[h]
	if e == nil {
		return nil
	}
	if !now.Before(e.expires) {
		delete(p.entries, h)
		return nil
	}
	return e
}

// read refreshes an entry a request read from. Callers hold mu.
func (p *promptCache) read(e *cacheEntry, now time.Time) {
	e.reads++
	e.expires = now.Add(e.ttl)
}

// write stores (or refreshes) the prefix under h for ttl. An entry
// written again keeps the longer of its lifetimes. Callers hold mu.
func (p *promptCache) write(h [32]byte, e cacheEntry, now time.Time) {
	if old := p.live(h, now); old != nil {
		old.ttl = max(old.ttl, e.ttl)
		old.expires = maxTime(old.expires, now.Add(e.ttl))
		return
	}
	e.expires = now.Add(e.ttl)
	p.entries[h] = &e
}

// count adds one answered request's figures to the totals. Callers hold mu.
func (p *promptCache) count(u usage) {
	p.totals.Requests++
	p.totals.InputTokens += u.in
	p.totals.CacheReadInputTokens += u.cacheRead
	p.totals.CacheCreationInputTokens += u.cacheWrite
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// chain extends a prefix hash by one piece: the hash of a prefix names
// the prefix, so an entry is found by the hash of the request's prefix.
func chain(prev [32]byte, tag string, piece []byte) [32]byte {
	h := sha256.New()
	h.Write(prev[:])
	h.Write([]byte(tag))
	h.Write([]byte{0})
	h.Write(piece)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// seed is the hash every prefix of a cache starts from.
func seed(parts ...string) [32]byte {
	return sha256.Sum256([]byte(strings.Join(parts, "\x00")))
}

// CacheStats is what GET /_cache reports: the fake's time, its settings,
// the live entries and the figures of every request answered since the
// last clear.
type CacheStats struct {
	Now            time.Time    `json:"now"`
	MinCacheTokens int          `json:"min_cache_tokens"`
	Entries        []CacheEntry `json:"entries"`
	Totals         CacheTotals  `json:"totals"`
}

// CacheEntry is one live cached prefix.
type CacheEntry struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Key      string `json:"key,omitempty"` // OpenAI prompt_cache_key
	Tokens   int    `json:"tokens"`        // the prefix's length
	TTL      string `json:"ttl"`
	// ExpiresIn is the time left, in the fake's time.
	ExpiresIn string `json:"expires_in"`
	Reads     int    `json:"reads"`
}

// CacheTotals adds up the simulated input figures of the requests
// answered (OpenAI's cached tokens count as cache reads, the rest of its
// prompt as input).
type CacheTotals struct {
	Requests                 int `json:"requests"`
	InputTokens              int `json:"input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
}

func (p *promptCache) stats() CacheStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	st := CacheStats{Now: now, MinCacheTokens: p.minTokens, Entries: []CacheEntry{}, Totals: p.totals}
	for h := range p.entries {
		e := p.live(h, now)
		if e == nil {
			continue
		}
		st.Entries = append(st.Entries, CacheEntry{Provider: e.provider, Model: e.model, Key: e.key,
			Tokens: e.tokens, TTL: e.ttl.String(), ExpiresIn: e.expires.Sub(now).String(), Reads: e.reads})
	}
	slices.SortFunc(st.Entries, func(a, b CacheEntry) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Model, b.Model),
			cmp.Compare(a.Key, b.Key), cmp.Compare(a.Tokens, b.Tokens))
	})
	return st
}

func (p *promptCache) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.entries = map[[32]byte]*cacheEntry{}
	p.totals = CacheTotals{}
}

func (p *promptCache) advance(d time.Duration) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.offset += d
	return p.now()
}

// CacheStats returns the cache's entries and totals (GET /_cache).
func (s *Server) CacheStats() CacheStats { return s.cache.stats() }

// ClearCache forgets every cached prefix and the totals (DELETE /_cache).
// Reset does too.
func (s *Server) ClearCache() { s.cache.clear() }

// Advance moves the fake's clock forward by d (POST /_clock), so a test
// sees a cache entry expire without waiting for it.
func (s *Server) Advance(d time.Duration) time.Time { return s.cache.advance(d) }
