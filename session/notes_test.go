package session_test

import (
	"errors"
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

func TestCutText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 3, "hel"},
		{"héllo", 2, "h"},
		{"héllo", 3, "hé"},
	} {
		if got := session.CutText(tc.in, tc.n); got != tc.want {
			t.Errorf("CutText(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
