package server

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"myco/server/llm"
)

// countingLister answers every listing with its models or its error,
// counts the calls, and holds each call until gate lets it go (nil: at
// once).
type countingLister struct {
	mu     sync.Mutex
	calls  int
	gate   chan struct{}
	err    error
	models []llm.ServedModel
}

func (l *countingLister) Providers() []string { return []string{"p"} }

func (l *countingLister) ListModels(context.Context, string) ([]llm.ServedModel, error) {
	l.mu.Lock()
	l.calls++
	gate := l.gate
	l.mu.Unlock()
	if gate != nil {
		<-gate
	}
	return l.models, l.err
}

func (l *countingLister) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls
}

func TestServedCacheKeepsListings(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	ok := &countingLister{models: []llm.ServedModel{{ID: "m"}}}
	failing := &countingLister{err: errors.New("refused")}
	tests := []struct {
		name  string
		l     *countingLister
		after time.Duration // since the first listing, before the last get
		calls int
	}{
		{"kept within its time", ok, servedTTL - time.Second, 1},
		{"asked again after it", ok, servedTTL, 2},
		{"a failure is kept a short while", failing, servedErrorTTL - time.Second, 1},
		{"and asked again after it", failing, servedErrorTTL, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.l.calls = 0
			now = time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
			c := newServedCache(clock)
			models, err := c.get(context.Background(), tt.l, "p", "p@url")
			if len(models) != len(tt.l.models) || !errors.Is(err, tt.l.err) {
				t.Fatalf("get = %v, %v", models, err)
			}
			now = now.Add(tt.after)
			c.get(context.Background(), tt.l, "p", "p@url")
			if got := tt.l.count(); got != tt.calls {
				t.Errorf("%d listings, want %d", got, tt.calls)
			}
		})
	}
}

func TestServedCacheAsksOnceForConcurrentRequests(t *testing.T) {
	t.Parallel()
	l := &countingLister{gate: make(chan struct{}), models: []llm.ServedModel{{ID: "m"}}}
	c := newServedCache(time.Now)
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			if models, err := c.get(context.Background(), l, "p", "p@url"); err != nil || len(models) != 1 {
				t.Errorf("get = %v, %v", models, err)
			}
		})
	}
	// A get that gives up waiting leaves the listing to the others.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.get(ctx, l, "p", "p@url"); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled get: %v", err)
	}
	close(l.gate)
	wg.Wait()
	if got := l.count(); got != 1 {
		t.Errorf("%d listings for concurrent gets, want 1", got)
	}
	if _, err := c.get(context.Background(), l, "p", "p@other-url"); err != nil || l.count() != 2 {
		t.Errorf("a changed base URL was answered from the old listing (%d listings, %v)", l.count(), err)
	}
}
