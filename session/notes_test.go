package session_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myco/session"
)

// A note added while no writer is open waits in the document; the message
// that carries it marks it delivered in the same journal record, so a
// replay after a crash (no fold) sees it delivered and never pending.
func TestNotesDeliveredOnceThroughJournal(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	if err := s.Save(newDoc(journalID, t0, 1, 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(journalID, func(d *session.Document) error {
		session.AddNote(d, session.Note{ID: "n1", Kind: session.NoteText, From: "nightly", Text: "build failed", At: t0})
		session.AddNote(d, session.Note{ID: "n2", Kind: session.NoteText, Text: "second", At: t0})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	w, err := s.OpenWriter(journalID, session.Owner{PID: os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	var pending []session.Note
	w.View(func(d *session.Document) { pending = d.PendingNotes() })
	if len(pending) != 2 {
		t.Fatalf("pending = %d notes, want 2", len(pending))
	}
	if err := w.AppendDelivering(textMessage("h1", "user", "hi"), []string{"n1", "n2"}); err != nil {
		t.Fatal(err)
	}
	// The journal holds one record for the message and the marks.
	data, err := os.ReadFile(filepath.Join(dir, journalID+".journal"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(data), "\n"); lines != 1 {
		t.Fatalf("journal has %d records, want 1:\n%s", lines, data)
	}
	// Drop the writer without a fold, as a crash would: the lock goes with
	// the process; here its Close folds, so read the journal's view first.
	doc, err := s.Load(journalID)
	if err != nil {
		t.Fatal(err)
	}
	if p := doc.PendingNotes(); len(p) != 0 {
		t.Fatalf("after the message, pending = %+v, want none", p)
	}
	if got := doc.NotesIn("h1"); len(got) != 2 || got[0].ID != "n1" {
		t.Fatalf("NotesIn(h1) = %+v", got)
	}
	w.Close()
	doc, err = s.Load(journalID)
	if err != nil {
		t.Fatal(err)
	}
	if got := doc.NotesIn("h1"); len(got) != 2 {
		t.Fatalf("after the fold NotesIn(h1) = %+v", got)
	}
}

func TestRemoveNote(t *testing.T) {
	d := newDoc(journalID, t0, 1, 0)
	session.AddNote(d, session.Note{ID: "a", Kind: session.NoteFile, Text: "x"})
	session.AddNote(d, session.Note{ID: "b", Kind: session.NoteFile, Text: "y", DeliveredIn: "m"})
	if err := session.RemoveNote(d, "b"); !errors.Is(err, session.ErrNoNote) {
		t.Fatalf("removing a delivered note: %v, want ErrNoNote", err)
	}
	if err := session.RemoveNote(d, "a"); err != nil {
		t.Fatal(err)
	}
	if len(d.Notes) != 1 || d.Notes[0].ID != "b" {
		t.Fatalf("notes = %+v", d.Notes)
	}
}

// A note is one short journal record however many wait, and so are its
// removal and its delivery: the whole list is never written again until
// the fold (issue 18: notes 1,251–1,500 wrote 132 MB). Reopened without a
// fold, as after a crash, the journal gives the same notes.
func TestNoteIsOneShortRecord(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	if err := s.Save(newDoc(journalID, t0, 1, 0)); err != nil {
		t.Fatal(err)
	}
	w, err := s.OpenWriter(journalID, session.Owner{PID: os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(dir, journalID+".journal")
	size := func() int64 {
		info, err := os.Stat(journal)
		if err != nil {
			return 0
		}
		return info.Size()
	}
	const waiting = 500
	for i := range waiting {
		if err := w.AddNote(session.Note{ID: fmt.Sprintf("n%d", i), Kind: session.NoteText, Text: "the build failed again", At: t0}); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name string
		do   func() error
	}{
		{"add", func() error {
			return w.AddNote(session.Note{ID: "last", Kind: session.NoteText, Text: "one more", At: t0})
		}},
		{"remove", func() error { return w.RemoveNote("n7") }},
		{"deliver", func() error { return w.AppendDelivering(textMessage("h1", "user", "hi"), []string{"n1", "n2", "last"}) }},
	}
	for _, st := range steps {
		before := size()
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if grew := size() - before; grew > 1024 {
			t.Errorf("%s with %d notes waiting wrote %d bytes to the journal, want one short record", st.name, waiting, grew)
		}
	}
	if err := w.RemoveNote("n1"); !errors.Is(err, session.ErrNoNote) {
		t.Errorf("removing a delivered note: %v, want ErrNoNote", err)
	}
	doc, err := s.Load(journalID) // document + journal: what a crash leaves
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(doc.PendingNotes()), waiting+1-1-3; got != want {
		t.Errorf("%d notes pending after a replay, want %d", got, want)
	}
	if got := doc.NotesIn("h1"); len(got) != 3 || got[2].ID != "last" {
		t.Errorf("NotesIn(h1) = %+v", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	folded, err := s.Load(journalID)
	if err != nil {
		t.Fatal(err)
	}
	if len(folded.Notes) != len(doc.Notes) {
		t.Errorf("after the fold %d notes, before %d", len(folded.Notes), len(doc.Notes))
	}
}

// BenchmarkAddNotes adds 10,000 notes to a session through its writer,
// each durable (fsynced), as POST …/notes does for a live session.
func BenchmarkAddNotes(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		s, _ := openStore(b, session.Options{})
		if err := s.Save(newDoc(journalID, t0, 1, 0)); err != nil {
			b.Fatal(err)
		}
		w, err := s.OpenWriter(journalID, session.Owner{PID: os.Getpid()})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for i := range 10000 {
			n := session.Note{ID: fmt.Sprintf("note-%d", i), Kind: session.NoteText, From: "bench", Text: "the nightly build failed in pkg/x: see the log", At: t0}
			if err := w.AddNote(n); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// A context note left waiting (a crash between it and the message that
// carries it) is still delivered with the next message, but no page shows
// it: it is myco's word to the agent, not the person's.
func TestWaitingShownLeavesOutContext(t *testing.T) {
	d := &session.Document{Notes: []session.Note{
		{ID: "c", Kind: session.NoteContext, Text: "Today is Wednesday."},
		{ID: "n", Kind: session.NoteText, Text: "the build is green"},
		{ID: "f", Kind: session.NoteFile, Path: "a.txt", DeliveredIn: "m1"},
	}}
	var pending, shown []string
	for _, n := range d.PendingNotes() {
		pending = append(pending, n.ID)
	}
	for _, n := range d.WaitingShown() {
		shown = append(shown, n.ID)
	}
	if strings.Join(pending, ",") != "c,n" || strings.Join(shown, ",") != "n" {
		t.Errorf("pending %v, shown %v; want c,n and n", pending, shown)
	}
}
