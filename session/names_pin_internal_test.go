package session

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
	"unsafe"
	"weak"
)

// TestScanKeepsNoFolderNames: a listing's entries are keyed by strings of
// their own, not by slices of the names a scan read (readFolder keeps a
// folder's names in one string). Keyed by slices, one 10,000-session
// folder's 2 MB of names stayed live for as long as the listing did, in
// every server of issue 21's load run.
func TestScanKeepsNoFolderNames(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	w, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		doc := &Document{ID: fmt.Sprintf("0193c7b2-0000-7000-8000-%012x", i+1), CreatedAt: old, UpdatedAt: old, Threads: []Thread{{}}}
		if err := w.Save(doc); err != nil {
			t.Fatal(err)
		}
		// Old files: the next scan takes their entries as they are.
		if err := os.Chtimes(filepath.Join(dir, doc.ID+".json"), old, old); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// scan lists dir with names read here, and reports whether they are
	// still reachable once the listing stands.
	scan := func(t *testing.T, want int) bool {
		t.Helper()
		// Old enough that the folder's stat can vouch for the names.
		if err := os.Chtimes(dir, old, old); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := readDocs(dir)
		if err != nil {
			t.Fatal(err)
		}
		fe, ok := entries[0].(*folderEntry)
		if !ok {
			t.Skip("this system's folder read keeps a string per name")
		}
		names := weak.Make(unsafe.StringData(fe.names.all))
		s.cache.keepNames(dir, info, entries)
		entries, fe = nil, nil
		before := s.cache.scans.Load()
		sums, err := s.List(ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(sums) != want {
			t.Fatalf("listed %d sessions, want %d", len(sums), want)
		}
		if s.cache.scans.Load() != before+1 {
			t.Fatalf("%d scans, want the one that takes the names", s.cache.scans.Load()-before)
		}
		runtime.GC()
		runtime.GC()
		held := names.Value() != nil
		runtime.KeepAlive(s) // the listing is what might hold them
		return held
	}
	if scan(t, 200) {
		t.Error("a first scan (every document read) keeps the folder's names")
	}
	// Another process adds one: the next scan reuses the 200 entries.
	other, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Save(&Document{ID: "0193c7b2-0000-7000-8000-0000000000ff", CreatedAt: old, UpdatedAt: old, Threads: []Thread{{}}}); err != nil {
		t.Fatal(err)
	}
	old = old.Add(time.Minute) // a stat that differs from the last scan's
	if scan(t, 201) {
		t.Error("a scan that reuses entries keeps the folder's names")
	}
}
