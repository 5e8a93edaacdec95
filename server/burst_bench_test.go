package server_test

import (
	"bufio"
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"myco/e2e/fakellm"
	"myco/profiles"
	"myco/server"
	"myco/server/llm"
)

// BenchmarkBurstTailEndToEnd is a 2,000-token reply at full speed from the
// fake model, through the real SDK client, the live session and the hub,
// to one SSE client. tail-ms is the time from the fake writing its last
// text delta to the client reading the last text.delta event; burst-ms,
// issue 21's row, from the fake writing its first text delta to the client
// reading the last (the fake's own span, fake-ms, included: it writes no
// faster than myco reads).
func BenchmarkBurstTailEndToEnd(b *testing.B) {
	fake := &lastDeltaFake{h: fakellm.New()}
	fsrv := httptest.NewServer(fake)
	defer fsrv.Close()
	settings := profiles.DefaultSettings()
	settings.DefaultModel, settings.TitleModel = "anthropic/fake-model", "anthropic/fake-title"
	settings.Providers = map[string]profiles.Provider{"anthropic": {BaseURL: fsrv.URL, APIKeyEnv: "FAKE_KEY"}}
	getenv := func(k string) string {
		if k == "FAKE_KEY" {
			return "sk-test"
		}
		return ""
	}
	ts := startServer(b, b.TempDir(), func(o *server.Options) {
		o.DefaultModel, o.Settings = settings.DefaultModel, profiles.NewLiveSettings(settings)
		o.Models = llm.NewRegistry(settings, getenv, o.Images)
	})
	s := ts.create("burst")
	resp := ts.do("GET", "/api/sessions/"+s.ID+"/events", nil)
	wantStatus(b, resp, http.StatusOK)
	r := bufio.NewReaderSize(resp.Body, 1<<16)
	var tails, fakeSpan, clientSpan, burst time.Duration
	for b.Loop() {
		fake.reset()
		var firstDelta time.Time
		wantStatus(b, ts.do("POST", "/api/sessions/"+s.ID+"/messages", strings.NewReader(`{"text":"[[text:2000]]"}`)), http.StatusAccepted)
		var lastDelta time.Time
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				b.Fatal(err)
			}
			if strings.HasPrefix(line, "event: text.delta") {
				lastDelta = time.Now()
				if firstDelta.IsZero() {
					firstDelta = lastDelta
				}
			}
			if strings.HasPrefix(line, "event: turn.end") {
				break
			}
		}
		first, last := fake.span()
		tails += lastDelta.Sub(last)
		fakeSpan += last.Sub(first)
		clientSpan += lastDelta.Sub(firstDelta)
		burst += lastDelta.Sub(first)
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) / 1000 }
	b.ReportMetric(ms(tails), "tail-ms")
	b.ReportMetric(ms(fakeSpan), "fake-ms")
	b.ReportMetric(ms(clientSpan), "client-ms")
	b.ReportMetric(ms(burst), "burst-ms")
}

// lastDeltaFake notes when the fake writes a text delta; it flushes each
// event, so that is when the delta leaves.
type lastDeltaFake struct {
	h           http.Handler
	mu          sync.Mutex
	first, last time.Time
}

func (f *lastDeltaFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.h.ServeHTTP(&deltaStamper{ResponseWriter: w, f: f}, r)
}

func (f *lastDeltaFake) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.first, f.last = time.Time{}, time.Time{}
}

// span is when the fake wrote its first and its last text delta.
func (f *lastDeltaFake) span() (time.Time, time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.first, f.last
}

type deltaStamper struct {
	http.ResponseWriter
	f *lastDeltaFake
}

func (s *deltaStamper) Write(p []byte) (int, error) {
	n, err := s.ResponseWriter.Write(p)
	if bytes.Contains(p, []byte(`"text_delta"`)) {
		now := time.Now()
		s.f.mu.Lock()
		if s.f.first.IsZero() {
			s.f.first = now
		}
		s.f.last = now
		s.f.mu.Unlock()
	}
	return n, err
}

func (s *deltaStamper) Unwrap() http.ResponseWriter { return s.ResponseWriter }
