package session

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFolderOrdered: the listing cache's order serves a listing only
// while the folder's entries are exactly the cache's, and once they are
// not it is dropped for good.
func TestFolderOrdered(t *testing.T) {
	a := newEntry(stamp{}, Summary{ID: "a"}, time.Time{})
	b := newEntry(stamp{}, Summary{ID: "b"}, time.Time{})
	b2 := newEntry(stamp{}, Summary{ID: "b"}, time.Time{})
	c := newEntry(stamp{}, Summary{ID: "c"}, time.Time{})
	tests := []struct {
		name  string
		files map[string]*fileEntry
		order []*fileEntry
		want  bool // ordered returns order
	}{
		{"the cache's entries", map[string]*fileEntry{"a": a, "b": b}, []*fileEntry{b, a}, true},
		{"none read", map[string]*fileEntry{"a": a}, nil, false},
		{"an entry replaced", map[string]*fileEntry{"a": a, "b": b2}, []*fileEntry{b, a}, false},
		{"an entry added", map[string]*fileEntry{"a": a, "b": b, "c": c}, []*fileEntry{b, a}, false},
		{"an entry removed", map[string]*fileEntry{"a": a}, []*fileEntry{b, a}, false},
		{"one removed, one added", map[string]*fileEntry{"a": a, "c": c}, []*fileEntry{b, a}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &folder{files: tt.files, order: tt.order}
			got := f.ordered()
			if (got != nil) != tt.want {
				t.Fatalf("ordered() = %v, want the cache's order: %v", got, tt.want)
			}
			if !tt.want && f.order != nil {
				t.Errorf("kept an order that no longer holds")
			}
			if tt.want && f.ordered() == nil {
				t.Errorf("dropped an order that holds")
			}
		})
	}
}

// TestViewOrder: a listing is newest first whether the entries come in
// the cache's order, in an order the cache no longer vouches for, or in
// the wrong order (a cache some other build wrote).
func TestViewOrder(t *testing.T) {
	at := func(min int) time.Time { return time.Date(2026, 12, 2, 10, min, 0, 0, time.UTC) }
	e := func(id string, min int) *fileEntry {
		return newEntry(stamp{}, Summary{ID: id, UpdatedAt: at(min)}, time.Time{})
	}
	a, b, c := e("a", 3), e("b", 2), e("c", 1)
	tests := []struct {
		name  string
		files map[string]*fileEntry
		order []*fileEntry
	}{
		{"the cache's order", map[string]*fileEntry{"a": a, "b": b, "c": c}, []*fileEntry{a, b, c}},
		{"an order out of date", map[string]*fileEntry{"a": a, "c": c, "d": e("d", 4)}, []*fileEntry{a, b, c}},
		{"a cache not sorted", map[string]*fileEntry{"a": a, "b": b, "c": c}, []*fileEntry{c, a, b}},
		{"no order", map[string]*fileEntry{"a": a, "b": b, "c": c}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newListCache()
			f := c.folder("s")
			f.files, f.order = tt.files, tt.order
			v := c.view("s", "s/archived", ListOptions{})
			sums := v.summaries()
			if len(sums) != len(tt.files) {
				t.Fatalf("listed %d, want %d", len(sums), len(tt.files))
			}
			for i := 1; i < len(sums); i++ {
				if newestFirst(&sums[i-1], &sums[i]) > 0 {
					t.Errorf("%s listed before %s", sums[i-1].ID, sums[i].ID)
				}
			}
		})
	}
}

// TestStartCheckWaitsForFirstListing: the start's check of every document
// (and so MigrateArchived, which waits for it) begins only once the first
// listing has its answer, not beside it.
func TestStartCheckWaitsForFirstListing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "session")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for _, id := range []string{"0193c7b2-0000-7000-8000-0000000000a1", "0193c7b2-0000-7000-8000-0000000000b2"} {
		data, err := Encode(&Document{Schema: Schema, ID: id, Title: "t " + id, CreatedAt: old, UpdatedAt: old})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, id+".json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveListingCache(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}

	s, err = Open(dir, Options{CheckLater: true})
	if err != nil {
		t.Fatal(err)
	}
	migrated := make(chan error, 1)
	go func() {
		_, err := s.MigrateArchived(nil)
		migrated <- err
	}()
	select {
	case err := <-migrated:
		t.Fatalf("MigrateArchived ended (%v) before any listing: the check ran beside the first page", err)
	case <-time.After(checkDelay / 5):
	}
	if _, err := s.List(ListOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-migrated:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("MigrateArchived still waits after the first listing")
	}
}
