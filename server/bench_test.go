package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"myco/server"
	"myco/session"
)

// BenchmarkHomePage renders the first page of the home listing of a
// profile with many sessions, through the whole HTTP stack. "first" uses a
// new server (nothing cached); "repeated" the same one.
func BenchmarkHomePage(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		dir := b.TempDir()
		writeSessions(b, filepath.Join(dir, "session"), n)
		b.Run(fmt.Sprintf("%d/first", n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				ts := newBenchServer(b, dir)
				b.StartTimer()
				getPage(b, ts, "/")
			}
		})
		b.Run(fmt.Sprintf("%d/repeated", n), func(b *testing.B) {
			ts := newBenchServer(b, dir)
			getPage(b, ts, "/")
			for b.Loop() {
				getPage(b, ts, "/")
			}
		})
		b.Run(fmt.Sprintf("%d/search", n), func(b *testing.B) {
			ts := newBenchServer(b, dir)
			getPage(b, ts, "/")
			for b.Loop() {
				getPage(b, ts, "/partials/sessions?q=session+77")
			}
		})
	}
}

func newBenchServer(b *testing.B, dir string) *testServer {
	return newTestServerIn(b, dir)
}

func getPage(b *testing.B, ts *testServer, path string) {
	req, _ := http.NewRequest("GET", ts.url+path, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Fatalf("status %d", resp.StatusCode)
	}
}

// writeSessions writes n small documents with distinct titles and times,
// old enough to be cached by the listing.
func writeSessions(b *testing.B, dir string, n int) {
	if err := os.MkdirAll(filepath.Join(dir, "archived"), 0o700); err != nil {
		b.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for i := range n {
		id := fmt.Sprintf("0193c7b2-6c1e-7c4a-9a0e-%012d", i)
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format(time.RFC3339Nano)
		doc := fmt.Sprintf(`{"schema":1,"id":%q,"title":"session %d about things","model":"anthropic/claude-sonnet-4-5","created_at":%q,"updated_at":%q,"archived":false,"threads":[{"created_at":%q,"messages":[{"id":"m1","role":"user","human":true,"at":%q,"content":[{"type":"text","text":"hello there, please fix the build"}]},{"id":"m2","role":"assistant","at":%q,"content":[{"type":"text","text":"On it. The failing test binds a fixed port; I will change it to port 0."}]}]}]}`,
			id, i, at, at, at, at, at)
		path := filepath.Join(dir, id+".json")
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			b.Fatal(err)
		}
		os.Chtimes(path, old, old)
	}
	os.Chtimes(dir, old, old)
}

// BenchmarkListSessions answers GET /api/sessions on a profile of many
// sessions through the whole HTTP stack. "unchanged" repeats the same
// request; "changed-one" saves one session through the store between
// requests (not timed); "query" filters with ?q=; "expired" moves the
// store's clock past the folder scan's lifetime before each request, so
// each one checks every file's stat again.
func BenchmarkListSessions(b *testing.B) {
	const n = 10000
	dir := b.TempDir()
	writeSessions(b, filepath.Join(dir, "session"), n)
	clock := &benchClock{now: time.Now()}
	store, err := session.Open(filepath.Join(dir, "session"), session.Options{Now: clock.Now})
	if err != nil {
		b.Fatal(err)
	}
	ts := startServer(b, dir, func(o *server.Options) { o.Sessions = store })
	// The client counts the sessions rather than decoding them: decoding
	// 10,000 summaries would cost the client more than the server.
	get := func(b *testing.B, path string, want int) {
		b.Helper()
		if got := bytes.Count(getBody(b, ts, path), []byte(`"id":`)); got != want {
			b.Fatalf("GET %s: %d sessions, want %d", path, got, want)
		}
	}
	var sums []session.Summary
	if err := json.Unmarshal(getBody(b, ts, "/api/sessions"), &sums); err != nil || len(sums) != n {
		b.Fatalf("GET /api/sessions: %d sessions (%v), want %d", len(sums), err, n)
	}
	b.Run(fmt.Sprintf("%d/unchanged", n), func(b *testing.B) {
		for b.Loop() {
			get(b, "/api/sessions", n)
		}
	})
	b.Run(fmt.Sprintf("%d/query", n), func(b *testing.B) {
		for b.Loop() {
			get(b, "/api/sessions?q=session+77", 111)
		}
	})
	b.Run(fmt.Sprintf("%d/changed-one", n), func(b *testing.B) {
		id := fmt.Sprintf("0193c7b2-6c1e-7c4a-9a0e-%012d", 77)
		i := 0
		for b.Loop() {
			b.StopTimer()
			i++
			if _, err := store.Update(id, func(d *session.Document) error {
				d.Title = fmt.Sprintf("session 77 renamed %d", i)
				return nil
			}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			get(b, "/api/sessions", n)
		}
	})
	b.Run(fmt.Sprintf("%d/expired", n), func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			clock.advance(time.Minute)
			b.StartTimer()
			get(b, "/api/sessions", n)
		}
	})
}

// benchClock is a store clock that a benchmark moves by hand.
type benchClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *benchClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *benchClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func getBody(b *testing.B, ts *testServer, path string) []byte {
	b.Helper()
	req, _ := http.NewRequest("GET", ts.url+path, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != 200 {
		b.Fatalf("GET %s: status %d", path, resp.StatusCode)
	}
	return body
}
