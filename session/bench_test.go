package session_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"myco/session"
)

// docOfSize builds a realistic document (rounds of question, answer with a
// tool call, tool output) of about size bytes once encoded.
func docOfSize(b *testing.B, size int) *session.Document {
	b.Helper()
	const id, textLen = "0193c7b2-0000-7000-8000-0000000000be", 2000
	encoded := func(rounds int) int {
		data, err := session.Encode(realisticDoc(id, rounds, textLen))
		if err != nil {
			b.Fatal(err)
		}
		return len(data)
	}
	perRound := (encoded(20) - encoded(10)) / 10
	rounds := max(1, (size-encoded(0))/perRound)
	return realisticDoc(id, rounds, textLen)
}

func BenchmarkSave(b *testing.B) {
	for _, tt := range []struct {
		name string
		size int
	}{{"1MB", 1 << 20}, {"10MB", 10 << 20}, {"50MB", 50 << 20}} {
		b.Run(tt.name, func(b *testing.B) {
			doc := docOfSize(b, tt.size)
			data, err := session.Encode(doc)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			s, _ := openStore(b, session.Options{})
			if err := s.Save(doc); err != nil { // the file exists: each Save replaces it
				b.Fatal(err)
			}
			for b.Loop() {
				if err := s.Save(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// writeListFixture writes n realistic documents of 6 to 18 messages into
// dir, directly (no fsync), with updated_at in no particular order.
func writeListFixture(b *testing.B, dir string, n int) {
	b.Helper()
	if err := os.MkdirAll(filepath.Join(dir, session.ArchivedDir), 0o700); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		id := fmt.Sprintf("0193c7b2-%04x-7000-8000-%012x", i%0x10000, i)
		doc := realisticDoc(id, 2+i%5, 300+(i%7)*100)
		doc.UpdatedAt = t0.Add(time.Duration(i*7919%n) * time.Second)
		data, err := session.Encode(doc)
		if err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(dir, id+".json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
		// Files (and folders) written in the last moments are never cached;
		// a real profile's documents are older.
		old := time.Now().Add(-time.Hour)
		os.Chtimes(path, old, old)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(dir, old, old)
}

func BenchmarkList(b *testing.B) {
	root := b.TempDir()
	for _, n := range []int{1000, 10000} {
		dir := filepath.Join(root, fmt.Sprint(n))
		writeListFixture(b, dir, n)
		list := func(b *testing.B, s *session.Store) {
			sums, err := s.List(session.ListOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if len(sums) != n {
				b.Fatalf("listed %d sessions, want %d", len(sums), n)
			}
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.Run("first", func(b *testing.B) {
				for range b.N {
					b.StopTimer()
					s := mustOpen(b, dir, session.Options{}) // a new store: nothing cached
					b.StartTimer()
					list(b, s)
				}
			})
			b.Run("repeated", func(b *testing.B) {
				s := mustOpen(b, dir, session.Options{})
				list(b, s)
				for b.Loop() {
					list(b, s)
				}
			})
		})
	}
}

// listBench writes 10,000 realistic documents, opens a store on them with a clock the
// benchmark moves, and lists once, so the cache is warm.
func listBench(b *testing.B) (*session.Store, *clock, func(*testing.B)) {
	b.Helper()
	dir := b.TempDir()
	writeListFixture(b, dir, 10000)
	c := &clock{now: time.Now()}
	s := mustOpen(b, dir, session.Options{Now: c.Now})
	list := func(b *testing.B) {
		sums, err := s.List(session.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(sums) != 10000 {
			b.Fatalf("listed %d sessions, want 10000", len(sums))
		}
	}
	list(b)
	return s, c, list
}

// BenchmarkList10000Unchanged lists a folder nothing changed in since the
// last listing.
func BenchmarkList10000Unchanged(b *testing.B) {
	_, _, list := listBench(b)
	for b.Loop() {
		list(b)
	}
}

// BenchmarkList10000ChangedOne lists after this store changed one session's
// title (the save itself is not timed).
func BenchmarkList10000ChangedOne(b *testing.B) {
	s, _, list := listBench(b)
	id := fmt.Sprintf("0193c7b2-%04x-7000-8000-%012x", 77, 77)
	i := 0
	for b.Loop() {
		b.StopTimer()
		i++
		if _, err := s.Update(id, func(d *session.Document) error {
			d.Title = fmt.Sprint("renamed ", i)
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		list(b)
	}
}

// BenchmarkList10000Expired lists once the folder's scan has expired
// (folderTTL), so every file's stat is checked again; none changed.
func BenchmarkList10000Expired(b *testing.B) {
	_, c, list := listBench(b)
	for b.Loop() {
		c.advance(time.Minute)
		list(b)
	}
}

// BenchmarkSummarize is the listing's summary of a live session's
// document, made again after every message it appends (noteChanged): it
// counts the usage of every answer by model, so it grows with the
// session, but stays far below the append's fsync.
func BenchmarkSummarize(b *testing.B) {
	for _, rounds := range []int{100, 3000} {
		doc := realisticDoc("0193c7b2-0000-7000-8000-0000000000bf", rounds, 200)
		b.Run(fmt.Sprint(rounds*3, "msgs"), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				_ = doc.Summarize()
			}
		})
	}
}

// BenchmarkScanSummary is a first listing's cost for one document: the
// whole file decoded, each message counted (and its usage kept) and
// dropped.
func BenchmarkScanSummary(b *testing.B) {
	dir := b.TempDir()
	doc := realisticDoc("0193c7b2-0000-7000-8000-0000000000c0", 3000, 200)
	data, err := session.Encode(doc)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, doc.ID+".json"), data, 0o600); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for range b.N {
		s, err := session.Open(dir, session.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if sums, err := s.List(session.ListOptions{}); err != nil || len(sums) != 1 {
			b.Fatal(len(sums), err)
		}
	}
}

// BenchmarkLoad1000Messages is the load row: Load of a session of 1,002
// messages (334 rounds of question, answer with a tool call, tool output;
// about 1 MB) from disk, journal included.
func BenchmarkLoad1000Messages(b *testing.B) {
	doc := realisticDoc("0193c7b2-0000-7000-8000-0000000001e8", 334, 600)
	s, _ := openStore(b, session.Options{})
	if err := s.Save(doc); err != nil {
		b.Fatal(err)
	}
	data, err := session.Encode(doc)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		got, err := s.Load(doc.ID)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(got.Threads[0].Messages); n != 1002 {
			b.Fatalf("loaded %d messages, want 1002", n)
		}
	}
}

// BenchmarkList10000Restart is the store's part of a restart: a new store
// lists 10,000 unchanged documents whose listing cache an earlier store
// saved (SaveListingCache), as a command's start does (every document's
// stat checked first).
func BenchmarkList10000Restart(b *testing.B) { benchRestart(b, session.Options{}) }

// BenchmarkList10000RestartCheckLater is the same for a server's start
// (Options.CheckLater): the first listing answers from the cache, and the
// check of every document that follows in the background is not timed.
func BenchmarkList10000RestartCheckLater(b *testing.B) {
	benchRestart(b, session.Options{CheckLater: true})
}

func benchRestart(b *testing.B, opts session.Options) {
	dir := b.TempDir()
	writeListFixture(b, dir, 10000)
	first := mustOpen(b, dir, session.Options{})
	if _, err := first.List(session.ListOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := first.SaveListingCache(); err != nil {
		b.Fatal(err)
	}
	old := time.Now().Add(-time.Hour) // a folder changed just now cannot vouch for its names
	if err := os.Chtimes(dir, old, old); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s := mustOpen(b, dir, opts)
		sums, err := s.List(session.ListOptions{})
		if err != nil || len(sums) != 10000 {
			b.Fatalf("listed %d sessions (%v), want 10000", len(sums), err)
		}
		b.StopTimer()
		if _, err := s.MigrateArchived(nil); err != nil { // waits for the check
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
