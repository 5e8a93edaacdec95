package live

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

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

// Messages a process queued and never ran (it ended first) are kept as the
// person's messages when the session is opened again; nothing runs.
func TestReopenKeepsQueuedMessages(t *testing.T) {
	e := newFileEnv(t)
	doc, err := e.store.Create(session.NewSession{Title: "queued", Cwd: e.work})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Update(doc.ID, func(d *session.Document) error {
		d.Queued = []session.Queued{{ID: "q1", Text: "first waiting"}, {ID: "q2", Text: "second waiting"}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s := e.open(t, doc.ID)
	if snap := s.Snapshot(); len(snap.Queued) != 0 || snap.Turn != "" {
		t.Errorf("after reopening: queued %v, turn %q", snap.Queued, snap.Turn)
	}
	got, err := e.store.Load(doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	msgs := got.Threads[len(got.Threads)-1].Messages
	if len(got.Queued) != 0 || len(msgs) != 2 || !msgs[0].Human || msgs[1].Content[0].Text != "second waiting" {
		t.Errorf("queued %v, messages %+v", got.Queued, msgs)
	}
}

// The idle release: a live session with no turn and no activity for
// IdleClose closes, folding its journal and letting its lock go; a busy
// or recently used one stays.
func TestIdleSessionCloses(t *testing.T) {
	now := time.Now()
	e := newFileEnv(t, func(o *Options) {
		o.Now = func() time.Time { return now }
		o.IdleClose = time.Minute
	})
	s := e.newSession(t)
	m := s.m
	if _, err := s.appendHuman("kept", nil); err != nil {
		t.Fatal(err)
	}
	now = now.Add(30 * time.Second)
	m.closeIdle()
	if _, ok := m.Get(s.ID()); !ok {
		t.Fatal("a session idle for less than IdleClose was closed")
	}
	now = now.Add(2 * time.Minute)
	m.closeIdle()
	if _, ok := m.Get(s.ID()); ok {
		t.Fatal("a session idle for longer than IdleClose is still open")
	}
	if e.store.Holds(s.ID()) {
		t.Error("the closed session still holds its writer lock")
	}
	if _, err := s.Update(func(d *session.Document) error { d.Title = "late"; return nil }); !errors.Is(err, ErrSessionClosed) {
		t.Errorf("Update after the idle close = %v, want ErrSessionClosed", err)
	}
	doc, err := e.store.Load(s.ID())
	if err != nil || doc.MessageCount() != 1 {
		t.Fatalf("after the idle close: %v, %d messages", err, doc.MessageCount())
	}
	if _, err := os.Stat(filepath.Join(e.profile, "session", s.ID()+".journal")); err == nil {
		t.Error("the journal was not folded in when the session closed")
	}
}
