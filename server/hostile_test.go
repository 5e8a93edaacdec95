package server_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"myco/session/hostile"
)

// hangBound turns a hang into a failure; it is no speed target (those are
// in docs/RELIABILITY.md): a hostile entry that blocked the server would
// take forever, not a few seconds more on a loaded machine. The page of
// the 100 MB document takes about 20 s under -race on a quiet machine of
// two cores (reading, redacting and copying the document); a fresh
// clone's run, loaded, once took over 60.
const hangBound = 180 * time.Second

// TestHostileCorpusServer serves a profile full of hostile entries (a
// FIFO, a link to /dev/zero, a folder, a 100 MB string…): after each
// entry's page is asked for, the server still answers the home page and
// the listing, and every damaged entry is byte for byte what it was.
func TestHostileCorpusServer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a 100 MB entry")
	}
	dir := t.TempDir()
	sessions := filepath.Join(dir, "session")
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	entries, skipped, err := hostile.Build(sessions)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range skipped {
		t.Logf("left out: %s", s)
	}
	// A readable entry's page opens it as any session (a tool_use without
	// its result is repaired then, as documented): only the damaged and
	// the hostile ones must stay byte for byte as they are.
	before := map[string]string{}
	for _, e := range entries {
		if e.Readable() {
			continue
		}
		for _, p := range e.Paths {
			fp, err := hostile.Fingerprint(p)
			if err != nil {
				t.Fatal(err)
			}
			before[p] = fp
		}
	}
	ts := newTestServerIn(t, dir)
	get := func(path string) int {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), hangBound)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, "GET", ts.url+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v (the server no longer answers)", path, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, e := range entries {
		status := get("/s/" + e.ID)
		switch {
		case e.Readable() && status != http.StatusOK:
			t.Errorf("%s: page %d, want 200", e.Name, status)
		case !e.Readable() && (status == http.StatusOK || status >= 500):
			t.Errorf("%s: page %d, want it refused as damaged (4xx)", e.Name, status)
		}
		if s := get("/"); s != http.StatusOK {
			t.Fatalf("after %s: home page %d", e.Name, s)
		}
		if s := get("/api/sessions"); s != http.StatusOK {
			t.Fatalf("after %s: listing %d", e.Name, s)
		}
	}
	for p, fp := range before {
		now, err := hostile.Fingerprint(p)
		if err != nil || now != fp {
			t.Errorf("%s changed: %s → %s (%v)", p, fp, now, err)
		}
	}
}
