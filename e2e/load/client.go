package main

import (
	"context"
	"slices"
	"sync"
	"time"

	"myco/e2e/internal/mycotest"
)

// client is a mycotest.Client with the load script's measurements.
type client struct{ *mycotest.Client }

func newClient(m *mycotest.Server) *client { return &client{m.Client()} }

// latencies are the durations of one measurement, in the order taken.
type latencies []time.Duration

// pct is the p-th percentile by nearest rank (p in 0..100).
func (l latencies) pct(p float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	i := int(p/100*float64(len(s))+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func (l latencies) max() time.Duration {
	if len(l) == 0 {
		return 0
	}
	return slices.Max(l)
}

// timeGets requests path n times one after another.
func (c *client) timeGets(ctx context.Context, path string, n int) (latencies, error) {
	l := make(latencies, 0, n)
	for range n {
		start := time.Now()
		if _, err := c.Get(ctx, path); err != nil {
			return l, err
		}
		l = append(l, time.Since(start))
	}
	return l, nil
}

// throughput is n requests of path shared by clients goroutines.
type throughput struct {
	lat  latencies
	wall time.Duration
}

func (t throughput) perSecond() float64 { return float64(len(t.lat)) / t.wall.Seconds() }

func (c *client) timeConcurrentGets(ctx context.Context, path string, n, clients int) (throughput, error) {
	var (
		mu   sync.Mutex
		all  latencies
		errs []error
		wg   sync.WaitGroup
	)
	start := time.Now()
	for i := range clients {
		share := n / clients
		if i < n%clients {
			share++
		}
		wg.Go(func() {
			l, err := c.timeGets(ctx, path, share)
			mu.Lock()
			defer mu.Unlock()
			all = append(all, l...)
			if err != nil {
				errs = append(errs, err)
			}
		})
	}
	wg.Wait()
	t := throughput{lat: all, wall: time.Since(start)}
	if len(errs) > 0 {
		return t, errs[0]
	}
	return t, nil
}
