package live

import (
	"errors"
	"testing"

	"myco/session"
)

// A live session that was closed writes nothing more: a late writer (a
// title being made when the session was released, say) must not overwrite
// what the session's next live incarnation saved.
func TestClosedSessionCannotOverwriteItsSuccessor(t *testing.T) {
	e := newFileEnv(t)
	old := e.newSession(t)
	m := old.m
	m.Release(old.ID())
	reopened, err := m.Open(old.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reopened.appendHuman("kept", nil); err != nil {
		t.Fatal(err)
	}
	_, err = old.Update(func(d *session.Document) error { d.Title = "late"; return nil })
	if !errors.Is(err, ErrSessionClosed) {
		t.Errorf("Update of a closed session = %v, want ErrSessionClosed", err)
	}
	doc, err := e.store.Load(old.ID())
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title == "late" || doc.MessageCount() != 1 {
		t.Errorf("after a late write: title %q, %d messages", doc.Title, doc.MessageCount())
	}
	// The store itself refuses a session a live session holds.
	if err := e.store.Archive(old.ID()); !errors.Is(err, session.ErrLocked) {
		t.Errorf("Archive under a live session = %v, want ErrLocked", err)
	}
}

// Exclusive keeps a session from reopening while it is being moved.
func TestExclusiveBlocksOpen(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	m := s.m
	err := m.Exclusive(s.ID(), func() error {
		if _, err := m.Open(s.ID()); !errors.Is(err, ErrReadOnly) {
			t.Errorf("Open during Exclusive = %v, want ErrReadOnly", err)
		}
		return e.store.Archive(s.ID())
	})
	if err != nil {
		t.Fatalf("archive through Exclusive: %v", err)
	}
	if archived, _ := e.store.IsArchived(s.ID()); !archived {
		t.Error("not archived")
	}
}
