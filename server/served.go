package server

import (
	"context"
	"sync"
	"time"

	"myco/server/live"
	"myco/server/llm"
)

// How long a provider's listing of its models is kept. Ten minutes: the
// list and every PATCH of a session's model then cost no request, and a
// model pulled into Ollama meanwhile shows within minutes. A failed
// listing is kept 30 s, so a server started later is seen soon while a
// provider that does not answer is not asked on every request.
const (
	servedTTL      = 10 * time.Minute
	servedErrorTTL = 30 * time.Second
	// servedTimeout bounds one listing: a page waits for it.
	servedTimeout = 5 * time.Second
)

// modelLister lists what a configured provider serves (llm.Registry).
type modelLister interface {
	Providers() []string
	ListModels(ctx context.Context, provider string) ([]llm.ServedModel, error)
}

// The registry myco serves with is found a lister by type assertion:
// these guards keep a method added to one from being missed by the other.
var (
	_ modelLister = (*llm.Registry)(nil)
	_ modelLister = (*llm.LiveRegistry)(nil)
	_ live.Models = (*llm.LiveRegistry)(nil)
)

// servedCache keeps each provider's listing for a while and asks a
// provider once however many requests want its list at the same moment.
// It is a few lines of its own rather than x/sync/singleflight plus a
// cache: the two together are what is needed, and this is both.
type servedCache struct {
	now     func() time.Time
	mu      sync.Mutex
	entries map[string]*servedEntry // by provider and base URL
}

// servedEntry is one listing, in flight until done is closed; the other
// fields are written before that and only read after it.
type servedEntry struct {
	done   chan struct{}
	models []llm.ServedModel
	err    error
	at     time.Time
}

func newServedCache(now func() time.Time) *servedCache {
	return &servedCache{now: now, entries: map[string]*servedEntry{}}
}

// get returns provider's listing, asking it when none is kept or the kept
// one is too old. key names the provider's configuration (its base URL
// too), so a changed setting is never answered from the old one. A
// cancelled ctx stops the wait, not the listing, which others may share.
func (c *servedCache) get(ctx context.Context, l modelLister, provider, key string) ([]llm.ServedModel, error) {
	c.mu.Lock()
	e := c.entries[key]
	if e == nil || c.stale(e) {
		e = &servedEntry{done: make(chan struct{})}
		c.entries[key] = e
		go c.fill(l, provider, e)
	}
	c.mu.Unlock()
	select {
	case <-e.done:
		return e.models, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// stale reports whether a finished listing is past its time; one in
// flight is never stale. c.mu is held.
func (c *servedCache) stale(e *servedEntry) bool {
	select {
	case <-e.done:
	default:
		return false
	}
	ttl := servedTTL
	if e.err != nil {
		ttl = servedErrorTTL
	}
	return c.now().Sub(e.at) >= ttl
}

func (c *servedCache) fill(l modelLister, provider string, e *servedEntry) {
	ctx, cancel := context.WithTimeout(context.Background(), servedTimeout)
	defer cancel()
	e.models, e.err = l.ListModels(ctx, provider)
	e.at = c.now()
	close(e.done)
}
