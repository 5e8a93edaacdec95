package session_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"myco/session"
)

const lockID = "0193c7b2-0000-7000-8000-0000000000e1"

// ignoreSince leaves out the time a lock was taken.
var ignoreSince = cmpopts.IgnoreFields(session.Owner{}, "Since")

func lockedBy(t *testing.T, err error) session.Owner {
	t.Helper()
	var le *session.LockedError
	if !errors.As(err, &le) || !errors.Is(err, session.ErrLocked) {
		t.Fatalf("error %v is not a *LockedError", err)
	}
	if le.ID != lockID {
		t.Errorf("LockedError names session %q, want %q", le.ID, lockID)
	}
	return le.Owner
}

func TestLockSameStore(t *testing.T) {
	s, _ := openStore(t, session.Options{})
	me := session.Owner{PID: os.Getpid(), URL: "http://127.0.0.1:4000"}
	l, err := s.Lock(lockID, me)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if l.ID() != lockID {
		t.Errorf("ID() = %q", l.ID())
	}
	_, err = s.Lock(lockID, session.Owner{PID: os.Getpid(), URL: "http://127.0.0.1:5000"})
	if diff := cmp.Diff(me, lockedBy(t, err), ignoreSince); diff != "" {
		t.Errorf("second Lock: owner (-want +got):\n%s", diff)
	}
}

// TestLockSecondStore: flock excludes another open file description in the
// same process too, so two stores on one folder cannot both write.
func TestLockSecondStore(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	other := mustOpen(t, dir, session.Options{})
	me := session.Owner{PID: os.Getpid(), URL: "http://127.0.0.1:4000"}
	if err := s.Save(newDoc(lockID, t0, 0, 0)); err != nil {
		t.Fatal(err)
	}
	l, err := s.OpenWriter(lockID, me)
	if err != nil {
		t.Fatal(err)
	}
	_, err = other.Lock(lockID, session.Owner{PID: os.Getpid()})
	if diff := cmp.Diff(me, lockedBy(t, err), ignoreSince); diff != "" {
		t.Errorf("Lock from the second store: owner (-want +got):\n%s", diff)
	}
	owner, held, err := other.Owner(lockID)
	if err != nil || !held {
		t.Fatalf("Owner = %v, %v, %v; want held", owner, held, err)
	}
	if diff := cmp.Diff(me, owner, ignoreSince); diff != "" {
		t.Errorf("Owner (-want +got):\n%s", diff)
	}
	if err := other.Save(newDoc(lockID, t0, 1, 0)); !errors.Is(err, session.ErrLocked) {
		t.Errorf("Save from the second store = %v, want ErrLocked", err)
	}
	// The holder itself writes through its Writer, and only through it: a
	// Save or Update of the same store that does not hold it is refused, as
	// it would be from another process.
	if err := l.Replace(newDoc(lockID, t0, 1, 0)); err != nil {
		t.Errorf("Replace through the held writer: %v", err)
	}
	if err := s.Save(newDoc(lockID, t0, 1, 0)); !errors.Is(err, session.ErrLocked) {
		t.Errorf("Save by the store beside its held lock = %v, want ErrLocked", err)
	}
	if _, err := s.Update(lockID, func(*session.Document) error { return nil }); !errors.Is(err, session.ErrLocked) {
		t.Errorf("Update by the store beside its held lock = %v, want ErrLocked", err)
	}

	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// A writer that was let go cannot write any more.
	if err := l.Replace(newDoc(lockID, t0, 2, 0)); !errors.Is(err, session.ErrWriterClosed) {
		t.Errorf("Replace through a closed writer = %v, want ErrWriterClosed", err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, held, err := other.Owner(lockID); held || err != nil {
		t.Errorf("Owner after Unlock = held %v, %v; want free", held, err)
	}
	l2, err := other.Lock(lockID, session.Owner{PID: os.Getpid()})
	if err != nil {
		t.Fatalf("Lock after Unlock: %v", err)
	}
	l2.Unlock()
}

func TestUnlockKeepsLockFile(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	path := filepath.Join(dir, lockID+".lock")
	for range 3 {
		l, err := s.Lock(lockID, session.Owner{PID: os.Getpid()})
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Unlock(); err != nil {
			t.Fatal(err)
		}
		assertExists(t, path)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != 0o600 {
		t.Errorf("lock file mode %v, want 0600", got)
	}
	// Saving, archiving and restoring take and release the lock: the file stays.
	if err := s.Save(newDoc(lockID, t0, 1, 0)); err != nil {
		t.Fatal(err)
	}
	if err := s.Archive(lockID); err != nil {
		t.Fatal(err)
	}
	assertExists(t, path)
	if err := s.Restore(lockID); err != nil {
		t.Fatal(err)
	}
	assertExists(t, path)
}

func TestOwnerHintWritten(t *testing.T) {
	s, dir := openStore(t, session.Options{Now: func() time.Time { return t0 }})
	want := session.Owner{PID: 4242, URL: "http://127.0.0.1:9999", Nonce: "n1"}
	l, err := s.Lock(lockID, want)
	if err != nil {
		t.Fatal(err)
	}
	var got session.Owner
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, lockID+".lock")), &got); err != nil {
		t.Fatalf("lock file hint: %v", err)
	}
	want.Since = t0
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hint in the lock file (-want +got):\n%s", diff)
	}
	l.Unlock()
}

// TestLockOtherProcess: a session locked by another process cannot be
// archived, saved or updated here, the error names that process, nothing
// moves; once the process dies, the kernel frees the lock.
func TestLockOtherProcess(t *testing.T) {
	const url = "http://127.0.0.1:9999"
	s, dir := openStore(t, session.Options{})
	doc := newDoc(lockID, t0, 1, 2)
	if err := s.Save(doc); err != nil {
		t.Fatal(err)
	}
	docPath := filepath.Join(dir, lockID+".json")
	sidecar := filepath.Join(dir, lockID+".readline")
	writeFile(t, sidecar, "$ make\n")
	before := map[string]fileState{docPath: freeze(t, docPath), sidecar: freeze(t, sidecar)}

	c := startLockChild(t, dir, url, lockID)
	want := session.Owner{PID: c.pid(), URL: url}
	ops := []struct {
		name string
		do   func() error
	}{
		{"Archive", func() error { return s.Archive(lockID) }},
		{"Save", func() error { return s.Save(doc) }},
		{"Update", func() error {
			_, err := s.Update(lockID, func(*session.Document) error {
				t.Error("Update called fn while another process holds the lock")
				return nil
			})
			return err
		}},
		{"Lock", func() error { _, err := s.Lock(lockID, session.Owner{PID: os.Getpid()}); return err }},
	}
	for _, op := range ops {
		err := op.do()
		if diff := cmp.Diff(want, lockedBy(t, err), ignoreSince); diff != "" {
			t.Errorf("%s: owner (-want +got):\n%s", op.name, diff)
		}
		for path, st := range before {
			assertUnchanged(t, path, st)
		}
		assertMissing(t, filepath.Join(dir, session.ArchivedDir, lockID+".json"))
	}
	owner, held, err := s.Owner(lockID)
	if err != nil || !held {
		t.Fatalf("Owner = %v, %v, %v; want held", owner, held, err)
	}
	if diff := cmp.Diff(want, owner, ignoreSince); diff != "" {
		t.Errorf("Owner (-want +got):\n%s", diff)
	}
	// Reading needs no lock.
	if _, err := s.Load(lockID); err != nil {
		t.Errorf("Load while locked elsewhere: %v", err)
	}

	c.kill()
	if err := s.Archive(lockID); err != nil {
		t.Fatalf("Archive after the holder died: %v", err)
	}
	assertExists(t, filepath.Join(dir, session.ArchivedDir, lockID+".json"))
	assertExists(t, filepath.Join(dir, session.ArchivedDir, lockID+".readline"))
}
