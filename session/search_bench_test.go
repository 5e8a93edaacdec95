package session_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"myco/session"
)

// writeSearchFixture writes realistic documents (about 100 KB each) into
// dir until they total size bytes, directly (no fsync), as writeListFixture
// does: a profile of long conversations, none of which holds the rare word.
func writeSearchFixture(b *testing.B, dir string, size int64) {
	b.Helper()
	if err := os.MkdirAll(filepath.Join(dir, session.ArchivedDir), 0o700); err != nil {
		b.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	var total int64
	for i := 0; total < size; i++ {
		id := fmt.Sprintf("0193c7b2-%04x-7000-8000-%012x", i%0x10000, i)
		doc := realisticDoc(id, 20+i%10, 1500+(i%7)*100)
		doc.UpdatedAt = t0.Add(time.Duration(i) * time.Second)
		data, err := session.Encode(doc)
		if err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(dir, id+".json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
		os.Chtimes(path, old, old)
		total += int64(len(data))
	}
	os.Chtimes(dir, old, old)
	b.SetBytes(total)
}

// BenchmarkSearch searches a profile of 100 MB (and of 1 GB when
// MYCO_BENCH_1GB is set: it takes a while to write) for a word no document
// holds, the slow case: every document must be looked at. The listing's
// cache is warm, as in a running server.
func BenchmarkSearch(b *testing.B) {
	sizes := []struct {
		name string
		size int64
	}{{"100MB", 100 << 20}}
	if os.Getenv("MYCO_BENCH_1GB") != "" {
		sizes = append(sizes, struct {
			name string
			size int64
		}{"1GB", 1 << 30})
	}
	for _, tt := range sizes {
		b.Run(tt.name, func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "session")
			writeSearchFixture(b, dir, tt.size)
			s := mustOpen(b, dir, session.Options{})
			if _, err := s.Search("warmup", 0); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				hits, err := s.Search("Zanzibar", 0)
				if err != nil {
					b.Fatal(err)
				}
				if len(hits) != 0 {
					b.Fatalf("hits = %d, want 0", len(hits))
				}
			}
		})
	}
}

// BenchmarkSearchGroups is what the search box runs (SearchGroups) on the
// profile of BenchmarkSearch: for a word no document holds (every
// document looked at, as BenchmarkSearch), and for a word every message
// holds ("cache": the scan stops at the 20th session, where the flat
// Search, which the page ran before issue 20, stopped at its 50th hit, in
// the first session). flat/common is that flat Search, for comparison.
func BenchmarkSearchGroups(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "session")
	writeSearchFixture(b, dir, 100<<20)
	s := mustOpen(b, dir, session.Options{})
	if _, err := s.Search("warmup", 0); err != nil {
		b.Fatal(err)
	}
	b.Run("100MB/rare", func(b *testing.B) {
		for b.Loop() {
			if groups, err := s.SearchGroups("Zanzibar", session.GroupOptions{}); err != nil || len(groups) != 0 {
				b.Fatalf("groups = %d, %v; want none", len(groups), err)
			}
		}
	})
	b.Run("100MB/common", func(b *testing.B) {
		for b.Loop() {
			groups, err := s.SearchGroups("cache", session.GroupOptions{})
			if err != nil || len(groups) != session.DefaultGroupSessions {
				b.Fatalf("groups = %d, %v; want %d", len(groups), err, session.DefaultGroupSessions)
			}
		}
	})
	b.Run("100MB/flat-common", func(b *testing.B) {
		for b.Loop() {
			if hits, err := s.Search("cache", 0); err != nil || len(hits) != session.DefaultSearchLimit {
				b.Fatalf("hits = %d, %v", len(hits), err)
			}
		}
	})
}
