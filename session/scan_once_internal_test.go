package session

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestConcurrentListingsScanOnce: listings that all find the folder
// changed at once share the scans that run, rather than each stat every
// document at the same time, and every one of them sees the change.
func TestConcurrentListingsScanOnce(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		doc := &Document{ID: fmt.Sprintf("0193c7b2-0000-7000-8000-%012x", i+1), CreatedAt: old, UpdatedAt: old, Threads: []Thread{{}}}
		if err := s.Save(doc); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.List(ListOptions{}); err != nil {
		t.Fatal(err)
	}
	// Another process adds a document: the folder changes under the store.
	other, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	added := "0193c7b2-0000-7000-8000-0000000000ff"
	if err := other.Save(&Document{ID: added, CreatedAt: old, UpdatedAt: old, Threads: []Thread{{}}}); err != nil {
		t.Fatal(err)
	}
	// Old enough that its stat can vouch for it, as a folder changed
	// seconds ago would be.
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	before := s.cache.scans.Load()
	const listers = 8
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, listers)
	for range listers {
		wg.Go(func() {
			<-start
			sums, err := s.List(ListOptions{})
			if err != nil {
				errs <- err
				return
			}
			if len(sums) != 51 {
				errs <- fmt.Errorf("listed %d sessions, want 51 with %s", len(sums), added)
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if scans := s.cache.scans.Load() - before; scans < 1 || scans > 2 {
		t.Errorf("%d listings at once ran %d scans, want 1 or 2 (one that began after they looked)", listers, scans)
	}
	if _, err := os.Stat(filepath.Join(dir, added+".json")); err != nil {
		t.Fatal(err)
	}
}

// TestRecentFolderRereadsNames: a folder that had changed just before
// its scan is not vouched for by its stat alone; the next listing reads
// its names again, not the stat of every document, and a name that came
// in the same clock tick (the folder's time put back, as a coarse clock
// would leave it) is still found.
func TestRecentFolderRereadsNames(t *testing.T) {
	newStore := func(t *testing.T) (*Store, string) {
		dir := t.TempDir()
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			doc := &Document{ID: fmt.Sprintf("0193c7b2-0000-7000-8000-%012x", i+1), Threads: []Thread{{}}}
			if err := s.Save(doc); err != nil {
				t.Fatal(err)
			}
		}
		// A first full scan, of a folder changed just now: recent.
		if _, err := s.List(ListOptions{}); err != nil {
			t.Fatal(err)
		}
		return s, dir
	}
	t.Run("unchanged", func(t *testing.T) {
		s, _ := newStore(t)
		before := s.cache.scans.Load()
		sums, err := s.List(ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(sums) != 5 {
			t.Fatalf("listed %d, want 5", len(sums))
		}
		if scans := s.cache.scans.Load() - before; scans != 0 {
			t.Errorf("the listing after a recent scan stat'ed every document (%d scans), want its names read only", scans)
		}
	})
	t.Run("a name added in the same tick", func(t *testing.T) {
		s, dir := newStore(t)
		info, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		other, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := other.Save(&Document{ID: "0193c7b2-0000-7000-8000-0000000000ff", Threads: []Thread{{}}}); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(dir, info.ModTime(), info.ModTime()); err != nil {
			t.Fatal(err)
		}
		if now, err := os.Stat(dir); err != nil || !sameFile(info, now) {
			t.Skipf("the folder's size changed with one more name (%v): its stat tells the change already", err)
		}
		sums, err := s.List(ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(sums) != 6 {
			t.Errorf("listed %d, want 6: the name added in the same tick was missed", len(sums))
		}
	})
}
