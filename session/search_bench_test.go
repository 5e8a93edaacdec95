package session_test

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"myco/session"
)

// writeSearchFixture writes realistic documents (about 100 KB each) into
// dir until they total size bytes, and returns that total, directly (no fsync), as writeListFixture
// does: a profile of long conversations, none of which holds the rare word.
func writeSearchFixture(b *testing.B, dir string, size int64) int64 {
	b.Helper()
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
	return total
}

// BenchmarkSearch searches a profile of 100 MB of long conversations for
// a word no document holds, the slow case: every document must be looked
// at. The listing's cache is warm, as in a running server.
//
// Its 1GB case, run when MYCO_BENCH_1GB is set, is BenchmarkSearch1GB under
// the name task bench:compare's search row used before that benchmark
// existed (both share one fixture).
func BenchmarkSearch(b *testing.B) {
	b.Run("100MB", func(b *testing.B) { benchSearchRare(b, bigFixture(b, "100MB", 100<<20)) })
	if os.Getenv("MYCO_BENCH_1GB") != "" {
		b.Run("1GB", BenchmarkSearch1GB)
	}
}

// BenchmarkSearch1GB is BenchmarkSearch over 1 GB (about 10,000 documents
// of 100 KB); writing the fixture takes about 20 s, once per test binary.
func BenchmarkSearch1GB(b *testing.B) {
	benchSearchRare(b, bigFixture(b, "1GB", 1<<30))
}

// BenchmarkSearch10000Small searches 10,000 sessions of about 12 KB, the
// shape of e2e/load's profile (118 MB), for a word none holds: where the
// cost per file, not per byte, shows.
func BenchmarkSearch10000Small(b *testing.B) {
	benchSearchRare(b, smallFixture(b, 10000))
}

// BenchmarkSearchGroups10000Small is what the search box runs on
// BenchmarkSearch10000Small's profile: a rare word (every session looked
// at) and a common one ("cache", in most sessions: the scan stops at the
// 20th group).
func BenchmarkSearchGroups10000Small(b *testing.B) {
	s := smallFixture(b, 10000)
	b.Run("rare", func(b *testing.B) { benchGroups(b, s, "Zanzibar", 0) })
	b.Run("common", func(b *testing.B) { benchGroups(b, s, "cache", session.DefaultGroupSessions) })
}

// bigFixture opens a store on a shared profile of size bytes of 100 KB
// documents, its listing cache warm.
func bigFixture(b *testing.B, name string, size int64) *session.Store {
	dir, total := sharedFixture(b, "big-"+name, func(dir string) int64 { return writeSearchFixture(b, dir, size) })
	b.SetBytes(total)
	return warmStore(b, dir)
}

// smallFixture opens a store on a shared profile of n small sessions, its
// listing cache warm.
func smallFixture(b *testing.B, n int) *session.Store {
	dir, total := sharedFixture(b, fmt.Sprintf("small-%d", n), func(dir string) int64 { return writeSmallFixture(b, dir, n) })
	b.SetBytes(total)
	return warmStore(b, dir)
}

func warmStore(b *testing.B, dir string) *session.Store {
	s := mustOpen(b, dir, session.Options{})
	if _, err := s.Search("warmup", 0); err != nil {
		b.Fatal(err)
	}
	return s
}

// benchSearchRare times Search for a word no document holds.
func benchSearchRare(b *testing.B, s *session.Store) {
	defer reportCPU(b)()
	for b.Loop() {
		hits, err := s.Search("Zanzibar", 0)
		if err != nil {
			b.Fatal(err)
		}
		if len(hits) != 0 {
			b.Fatalf("hits = %d, want 0", len(hits))
		}
	}
}

// benchGroups times SearchGroups for q, which must find want groups.
func benchGroups(b *testing.B, s *session.Store, q string, want int) {
	defer reportCPU(b)()
	for b.Loop() {
		groups, err := s.SearchGroups(q, session.GroupOptions{})
		if err != nil || len(groups) != want {
			b.Fatalf("groups = %d, %v; want %d", len(groups), err, want)
		}
	}
}

// BenchmarkSearchGroups is what the search box runs (SearchGroups) on the
// profile of BenchmarkSearch: for a word no document holds (every
// document looked at, as BenchmarkSearch), and for a word every message
// holds ("cache": the scan stops at the 20th session, where the flat
// Search, which the page ran before issue 20, stopped at its 50th hit, in
// the first session). flat/common is that flat Search, for comparison.
func BenchmarkSearchGroups(b *testing.B) {
	b.Run("100MB/rare", func(b *testing.B) { benchGroups(b, bigFixture(b, "100MB", 100<<20), "Zanzibar", 0) })
	b.Run("100MB/common", func(b *testing.B) {
		benchGroups(b, bigFixture(b, "100MB", 100<<20), "cache", session.DefaultGroupSessions)
	})
	b.Run("100MB/flat-common", func(b *testing.B) {
		s := bigFixture(b, "100MB", 100<<20)
		defer reportCPU(b)()
		for b.Loop() {
			if hits, err := s.Search("cache", 0); err != nil || len(hits) != session.DefaultSearchLimit {
				b.Fatalf("hits = %d, %v", len(hits), err)
			}
		}
	})
}

// reportCPU, deferred after its call, reports the CPU time (user and
// system, all threads) the process spent per iteration: on a shared
// machine the wall time measures the queue, this measures the work.
func reportCPU(b *testing.B) func() {
	start := cpuTime(b)
	return func() {
		b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N)/1e6, "cpu-ms/op")
	}
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
