package session_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"myco/session"
)

// settle dates dir's last change an hour back, as a profile's folder is
// at a start: a folder changed within a clock tick or two cannot vouch for
// its names.
func settle(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
}

// titlesAfterCheck lists, waits for what the background check finds, and
// lists again.
func titlesAfterCheck(t *testing.T, s *session.Store) map[string]string {
	t.Helper()
	changed := s.ListChanged()
	titles(t, s)
	// The check ends with a change found, or with none: a scan of the
	// folder (scanDir, through MigrateArchived) waits for it either way.
	if _, err := s.MigrateArchived(nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	default:
	}
	return titles(t, s)
}

// TestCheckLaterRestart: a server's start (Options.CheckLater) answers its
// first listing from the listing cache and checks each document after,
// and ends with what a start that checks first shows.
func TestCheckLaterRestart(t *testing.T) {
	const newID = "0193c7b2-0000-7000-8000-0000000000d4"
	tests := []struct {
		name   string
		change func(t *testing.T, dir string, paths map[string]string)
		// first is what the first listing shows (nil: the cache's or the
		// document's, as the check is slower or faster than the listing),
		// want what it shows once every document was checked.
		first, want map[string]string
	}{
		{
			name:   "unchanged",
			change: func(*testing.T, string, map[string]string) {},
			first:  map[string]string{cacheA: "Title AAAA a1", cacheB: "Title AAAA b2", cacheC: "Title AAAA c3"},
			want:   map[string]string{cacheA: "Title AAAA a1", cacheB: "Title AAAA b2", cacheC: "Title AAAA c3"},
		},
		{
			name: "a document saved in place since shows once checked",
			change: func(t *testing.T, dir string, paths map[string]string) {
				writeOld(t, dir, titledDoc(cacheA, "A new and longer title"))
			},
			want: map[string]string{cacheA: "A new and longer title", cacheB: "Title AAAA b2", cacheC: "Title AAAA c3"},
		},
		{
			name: "a new document and a deleted one show at once",
			change: func(t *testing.T, dir string, paths map[string]string) {
				if err := os.Remove(paths[cacheB]); err != nil {
					t.Fatal(err)
				}
				writeOld(t, dir, titledDoc(newID, "new"))
			},
			first: map[string]string{cacheA: "Title AAAA a1", cacheC: "Title AAAA c3", newID: "new"},
			want:  map[string]string{cacheA: "Title AAAA a1", cacheC: "Title AAAA c3", newID: "new"},
		},
		{
			name: "a document replaced by a folder is damaged at once",
			change: func(t *testing.T, dir string, paths map[string]string) {
				if err := os.Remove(paths[cacheC]); err != nil {
					t.Fatal(err)
				}
				if err := os.Mkdir(paths[cacheC], 0o700); err != nil {
					t.Fatal(err)
				}
			},
			first: map[string]string{cacheA: "Title AAAA a1", cacheB: "Title AAAA b2", cacheC: "damaged: a folder, not a file"},
			want:  map[string]string{cacheA: "Title AAAA a1", cacheB: "Title AAAA b2", cacheC: "damaged: a folder, not a file"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, paths := cachedProfile(t)
			tt.change(t, dir, paths)
			settle(t, dir)
			s := mustOpen(t, dir, session.Options{CheckLater: true})
			if got := titles(t, s); tt.first != nil && fmt.Sprint(got) != fmt.Sprint(tt.first) {
				t.Errorf("the first listing says\n%v\nwant\n%v", got, tt.first)
			}
			if got := titlesAfterCheck(t, s); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("once checked the listing says\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
}

// TestCheckLaterMigrates: the start's MigrateArchived sees a document
// archived since the cache was written, though the listing had it from
// the cache unchecked: it waits for the check.
func TestCheckLaterMigrates(t *testing.T) {
	dir, _ := cachedProfile(t)
	doc := titledDoc(cacheB, "Title AAAA b2")
	doc.Archived = true
	writeOld(t, dir, doc)
	settle(t, dir)
	s := mustOpen(t, dir, session.Options{CheckLater: true})
	titles(t, s)
	rep, err := s.MigrateArchived(nil)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rep.Moved) != fmt.Sprint([]string{cacheB}) {
		t.Errorf("moved %v, want [%s]", rep.Moved, cacheB)
	}
	assertExists(t, filepath.Join(dir, session.ArchivedDir, cacheB+".json"))
}

// TestCheckLaterOff: a store that checks first (a command) never shows
// the cache's summary of a document saved since.
func TestCheckLaterOff(t *testing.T) {
	dir, _ := cachedProfile(t)
	writeOld(t, dir, titledDoc(cacheA, "A new and longer title"))
	settle(t, dir)
	s := mustOpen(t, dir, session.Options{})
	if got := titles(t, s)[cacheA]; got != "A new and longer title" {
		t.Errorf("the first listing says %q, want the document's new title", got)
	}
}

// TestRecoverWithNamesOpenRead: Recover finds a journal whether it was
// there when Open read the folder or written after (the folder changed,
// so what Open read is not used), and the listing then shows the folded
// document, not the cache's summary.
func TestRecoverWithNamesOpenRead(t *testing.T) {
	journal := `{"seq":1,"op":"partial","message":{"id":"a","role":"assistant","content":[]}}` + "\n" +
		`{"seq":2,"op":"delta","id":"a","text":"half an answer"}` + "\n"
	for _, afterOpen := range []bool{false, true} {
		t.Run(fmt.Sprintf("journal written after Open %v", afterOpen), func(t *testing.T) {
			dir, _ := cachedProfile(t)
			path := filepath.Join(dir, cacheA+".journal")
			if !afterOpen {
				writeFile(t, path, journal)
			}
			settle(t, dir)
			s := mustOpen(t, dir, session.Options{CheckLater: true})
			if afterOpen {
				writeFile(t, path, journal)
			}
			rep, err := s.Recover(nil)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(rep.Recovered) != fmt.Sprint([]string{cacheA}) {
				t.Fatalf("recovered %v, want [%s]", rep.Recovered, cacheA)
			}
			sums, err := s.List(session.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, sum := range sums {
				if sum.ID == cacheA && sum.Messages != 3 {
					t.Errorf("the listing says %d messages, want the 2 saved and the one recovered", sum.Messages)
				}
			}
		})
	}
}

// TestCheckLaterSeesNewDocuments: a document written while the start's
// listing is still unchecked shows at the next listing.
func TestCheckLaterSeesNewDocuments(t *testing.T) {
	const newID = "0193c7b2-0000-7000-8000-0000000000d4"
	dir, _ := cachedProfile(t)
	settle(t, dir)
	s := mustOpen(t, dir, session.Options{CheckLater: true})
	titles(t, s)
	writeOld(t, dir, titledDoc(newID, "new"))
	if got := titles(t, s)[newID]; got != "new" {
		t.Errorf("the next listing says %q of the new document, want its title", got)
	}
}

// TestCheckLaterSavesNothingUnchanged: a server that started from the
// listing cache and changed nothing does not write its 10,000 entries
// again when it stops.
func TestCheckLaterSavesNothingUnchanged(t *testing.T) {
	dir, _ := cachedProfile(t)
	settle(t, dir)
	path := filepath.Join(dir, session.ListingCacheName)
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, dir, session.Options{CheckLater: true})
	titlesAfterCheck(t, s)
	if err := s.SaveListingCache(); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(path); err != nil || !os.SameFile(before, after) {
		t.Errorf("the cache was written again though nothing changed (%v)", err)
	}
}
