package server

import (
	"bufio"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"myco/server/event"
)

// BenchmarkBurstTail publishes a 2,000-delta reply as fast as a model at
// full speed could, to one SSE client, and reports the tail: the time from
// the last Publish to the client reading the last text.delta.
func BenchmarkBurstTail(b *testing.B) {
	const n = 2000
	h := newHub(func(string) (event.Snapshot, error) { return event.Snapshot{Status: statusIdle}, nil }, slog.New(slog.DiscardHandler))
	defer h.close()
	srv := httptest.NewServer(benchStreamHandler(h))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewReader(resp.Body)
	readUntil(b, lines, "event: snapshot")
	var tails time.Duration
	for i := 0; b.Loop(); i++ {
		msg := "m" + string(rune('a'+i%26))
		var last time.Time
		for j := range n {
			text := "word "
			if j == n-1 {
				text = "END "
			}
			h.Publish("s", event.TextDelta{Message: msg, Text: text})
			last = time.Now()
		}
		readUntil(b, lines, `END `)
		tails += time.Since(last)
	}
	b.ReportMetric(float64(tails.Microseconds())/float64(b.N)/1000, "tail-ms")
}

func readUntil(b *testing.B, r *bufio.Reader, marker string) {
	b.Helper()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			b.Fatalf("stream: %v", err)
		}
		if strings.Contains(line, marker) {
			return
		}
	}
}

// benchStreamHandler serves session "s" of h as sessionEvents does.
func benchStreamHandler(h *Hub) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = h.serve(w, r, "s")
	})
}
