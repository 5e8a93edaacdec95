package session_test

import (
	"testing"

	"myco/session"
)

func TestListShowsWriterChangesBeforeFold(t *testing.T) {
	s, _ := openStore(t, session.Options{})
	doc, err := s.Create(session.NewSession{Title: "old"})
	if err != nil {
		t.Fatal(err)
	}
	listOne(t, s, doc.ID)
	w, err := s.OpenWriter(doc.ID, session.Owner{PID: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Update(func(d *session.Document) error { d.Title = "new"; return nil }); err != nil {
		t.Fatal(err)
	}
	if got := listOne(t, s, doc.ID).Title; got != "new" {
		t.Errorf("title %q, want new", got)
	}
	if err := w.Append(textMessage("m9", "user", "hi")); err != nil {
		t.Fatal(err)
	}
	if got := listOne(t, s, doc.ID).Messages; got != 1 {
		t.Errorf("messages %d, want 1", got)
	}
}
