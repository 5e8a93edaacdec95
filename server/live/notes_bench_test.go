package live

import (
	"fmt"
	"path/filepath"
	"testing"

	"myco/session"
	"myco/web"
)

// notesBench is a live session for the notes benchmarks, its notes'
// cards rendered as the server renders them.
func notesBench(b *testing.B) *Session {
	b.Helper()
	dir := b.TempDir()
	store, err := session.Open(filepath.Join(dir, "session"), session.Options{})
	if err != nil {
		b.Fatal(err)
	}
	images, err := session.OpenImages(filepath.Join(dir, "images"))
	if err != nil {
		b.Fatal(err)
	}
	m := NewManager(Options{
		Store: store, Images: images, Models: noModels{}, Events: &recorder{ch: make(chan published)},
		DefaultCwd: dir, ProfileDir: dir, RenderNote: web.NoteHTML,
	})
	b.Cleanup(m.Close)
	doc, err := store.Create(session.NewSession{Title: "notes"})
	if err != nil {
		b.Fatal(err)
	}
	s, err := m.Open(doc.ID)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func leaveNotes(b *testing.B, s *Session, n int) {
	b.Helper()
	for i := range n {
		if _, err := s.SendNote("nightly build", fmt.Sprintf("build %d failed in pkg/x: see the log", i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLeaveNotes leaves 10,000 notes for a live session, each saved
// durably (POST …/notes); one op is all 10,000 (issue 18: 602 s, the bound
// 10 s).
func BenchmarkLeaveNotes(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		s := notesBench(b)
		b.StartTimer()
		leaveNotes(b, s, 10000)
	}
}

// BenchmarkSnapshotWithNotes is the snapshot a tab (re)connecting to a
// session with 10,000 notes waiting starts from (issue 18: 19.5 s, the
// bound 100 ms).
func BenchmarkSnapshotWithNotes(b *testing.B) {
	s := notesBench(b)
	leaveNotes(b, s, 10000)
	for b.Loop() {
		snap := s.Snapshot()
		if len(snap.Notes) == 0 {
			b.Fatal("no notes in the snapshot")
		}
	}
}

// BenchmarkOpenWithNotes opens a session with 10,000 notes waiting, as a
// new process does, and takes the snapshot a tab starts from.
func BenchmarkOpenWithNotes(b *testing.B) {
	s := notesBench(b)
	leaveNotes(b, s, 10000)
	id, opts := s.ID(), s.m.opts
	s.m.Close() // folds the journal into the document
	for b.Loop() {
		m := NewManager(opts)
		s, err := m.Open(id)
		if err != nil {
			b.Fatal(err)
		}
		if snap := s.Snapshot(); len(snap.Notes) != 10000 {
			b.Fatalf("%d notes in the snapshot", len(snap.Notes))
		}
		m.Close()
	}
}
