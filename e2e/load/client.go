package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// requestTimeout bounds one ordinary request; streams have no timeout of
// their own, only the run's.
const requestTimeout = 30 * time.Second

// client talks to one myco with its token, as a script would.
type client struct {
	base, token string
	http        *http.Client
}

func newClient(m *myco) *client {
	tr := &http.Transport{MaxIdleConns: 64, MaxIdleConnsPerHost: 64, IdleConnTimeout: time.Minute}
	return &client{base: m.base, token: m.token, http: &http.Client{Transport: tr}}
}

func (c *client) request(ctx context.Context, method, path string, body any) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// do sends a request and reads the whole answer, which must have status
// want.
func (c *client) do(ctx context.Context, method, path string, body any, want int) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := c.request(ctx, method, path, body)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	if resp.StatusCode != want {
		return data, fmt.Errorf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, want, strings.TrimSpace(string(data)))
	}
	return data, nil
}

func (c *client) get(ctx context.Context, path string) ([]byte, error) {
	return c.do(ctx, http.MethodGet, path, nil, http.StatusOK)
}

func (c *client) getJSON(ctx context.Context, path string, v any) error {
	data, err := c.get(ctx, path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return nil
}

func (c *client) postJSON(ctx context.Context, path string, body any, want int, v any) error {
	data, err := c.do(ctx, http.MethodPost, path, body, want)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	return nil
}

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
		if _, err := c.get(ctx, path); err != nil {
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
