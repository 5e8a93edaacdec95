package session_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"myco/session"
	"myco/session/hostile"
)

// answers runs fn and fails the test if it has not returned within a
// generous deadline: a read that blocks (a FIFO) never returns at all.
// The deadline is not a speed assertion; figures are in RELIABILITY.md.
func answers(t *testing.T, what string, fn func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("%s did not return: a read blocked", what)
	}
}

// TestHostileCorpus: every entry of the hostile corpus is listed, loaded,
// searched and scanned for images without blocking, each either read
// correctly or damaged with its reason, and left byte for byte as it was.
func TestHostileCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("the corpus holds a 100 MB document")
	}
	s, dir := openStore(t, session.Options{})
	entries, skipped, err := hostile.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, why := range skipped {
		t.Logf("left out: %s", why)
	}
	if len(entries) < 30 {
		t.Fatalf("corpus has %d entries, want at least 30", len(entries))
	}
	before := map[string]string{}
	for _, e := range entries {
		for _, p := range e.Paths {
			fp, err := hostile.Fingerprint(p)
			if err != nil {
				t.Fatal(err)
			}
			before[p] = fp
		}
	}

	var sums []session.Summary
	answers(t, "List", func() { sums, err = s.List(session.ListOptions{}) })
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]session.Summary{}
	for _, sum := range sums {
		listed[sum.ID] = sum
	}
	for _, e := range entries {
		t.Run(e.Name, func(t *testing.T) {
			sum, ok := listed[e.ID]
			switch {
			case !ok:
				t.Errorf("not listed")
			case e.ListReason == "" && sum.Damaged != "":
				t.Errorf("listed damaged (%s), want readable", sum.Damaged)
			case e.ListReason != "" && !strings.Contains(sum.Damaged, e.ListReason):
				t.Errorf("listed with Damaged %q, want it to say %q", sum.Damaged, e.ListReason)
			}
			var doc *session.Document
			var lerr error
			answers(t, "Load", func() { doc, lerr = s.Load(e.ID) })
			if e.Readable() {
				if lerr != nil {
					t.Fatalf("Load: %v", lerr)
				}
				n := 0
				for _, th := range doc.Threads {
					n += len(th.Messages)
				}
				if doc.Title != e.Title || n != e.Messages {
					t.Errorf("Load: title %.40q with %d messages, want %.40q with %d", doc.Title, n, e.Title, e.Messages)
				}
			} else {
				if !errors.Is(lerr, session.ErrDamaged) || !strings.Contains(lerr.Error(), e.LoadReason) {
					t.Errorf("Load: %v, want damaged saying %q", lerr, e.LoadReason)
				}
			}
			answers(t, "Header", func() { _, lerr = s.Header(e.ID) })
			if (lerr != nil) != (e.ListReason != "") {
				t.Errorf("Header: %v, want damaged: %v", lerr, e.ListReason != "")
			}
			if !e.Readable() {
				// Nothing may replace what cannot be read.
				answers(t, "Update", func() {
					_, lerr = s.Update(e.ID, func(d *session.Document) error { d.Title = "overwritten"; return nil })
				})
				if lerr == nil {
					t.Errorf("Update of a damaged entry succeeded")
				}
			}
		})
	}
	answers(t, "Search", func() { _, err = s.Search("hello", 0) })
	if err != nil {
		t.Errorf("Search: %v", err)
	}
	var damaged []session.Summary
	answers(t, "ImageRefs", func() { _, damaged, err = s.ImageRefs(nil) })
	if err != nil {
		t.Errorf("ImageRefs: %v", err)
	}
	bad := map[string]bool{}
	for _, d := range damaged {
		bad[d.ID] = true
	}
	for _, e := range entries {
		if bad[e.ID] == e.Readable() {
			t.Errorf("%s: ImageRefs lists it damaged: %v, want %v", e.Name, bad[e.ID], !e.Readable())
		}
		for _, p := range e.Paths {
			fp, err := hostile.Fingerprint(p)
			if err != nil || fp != before[p] {
				t.Errorf("%s: %s changed: %q (%v), was %q", e.Name, p, fp, err, before[p])
			}
		}
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}
