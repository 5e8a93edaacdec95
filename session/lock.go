package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// Owner is the hint a lock holder writes into the lock file: who holds the
// session and where its server answers. The kernel, not this text, decides
// who holds the lock; the hint may be stale once the lock is free.
type Owner struct {
	PID   int       `json:"pid"`
	URL   string    `json:"url,omitempty"`
	Nonce string    `json:"nonce,omitempty"`
	Since time.Time `json:"since,omitzero"`
}

// Lock is a held writer lock on one session. Unlock releases it; the lock
// file itself is never deleted (unlinking after unlock races with the next
// locker, who would then lock a file nobody else can find).
type Lock struct {
	store *Store
	id    string
	fl    *flock.Flock
}

// ID is the locked session's ID.
func (l *Lock) ID() string { return l.id }

// Lock takes the writer lock of session id without waiting. A lock held by
// another process, or already held in this process (flock excludes a second
// open file but not a second lock through the same one, and other platforms
// lock per process), fails with a *LockedError naming the holder.
func (s *Store) Lock(id string, owner Owner) (*Lock, error) {
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if held, ok := s.locks[id]; ok {
		return nil, &LockedError{ID: id, Owner: held.owner}
	}
	path := s.lockPath(id)
	fl := flock.New(path, flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	if !ok {
		return nil, &LockedError{ID: id, Owner: readOwner(path)}
	}
	// A zero owner is a probe: it leaves the hint file alone.
	hinted := owner.PID != 0
	if hinted {
		if owner.Since.IsZero() {
			owner.Since = s.now()
		}
		if err := writeOwner(path, owner); err != nil {
			fl.Unlock()
			return nil, fmt.Errorf("lock session %s: write owner hint: %w", id, err)
		}
	}
	s.locks[id] = heldLock{fl: fl, owner: owner, hinted: hinted}
	return &Lock{store: s, id: id, fl: fl}, nil
}

type heldLock struct {
	fl     *flock.Flock
	owner  Owner
	hinted bool
}

// Unlock clears the owner hint and releases the lock. It is safe to call
// more than once.
func (l *Lock) Unlock() error {
	s := l.store
	s.mu.Lock()
	defer s.mu.Unlock()
	held, ok := s.locks[l.id]
	if !ok || held.fl != l.fl {
		return nil
	}
	delete(s.locks, l.id)
	if held.hinted {
		// Best effort: a stale hint is harmless, the kernel decides who holds.
		os.Truncate(s.lockPath(l.id), 0)
	}
	if err := l.fl.Close(); err != nil {
		return fmt.Errorf("unlock session %s: %w", l.id, err)
	}
	return nil
}

// Owner reads the hint in session id's lock file if another process holds
// the lock; ok is false when nobody does (the hint is then stale, if any).
// It probes under the document's mutex, as withLock locks: a probe's brief
// lock must not pass for one held by a save running in this process.
func (s *Store) Owner(id string) (owner Owner, ok bool, err error) {
	if err := ValidateID(id); err != nil {
		return Owner{}, false, err
	}
	mu := s.docMu(id)
	mu.Lock()
	defer mu.Unlock()
	// No lock file, no holder (a holder made it, and only Delete removes
	// it, once let go): a probe must not make one for a deleted session.
	if _, err := os.Lstat(s.lockPath(id)); errors.Is(err, fs.ErrNotExist) {
		return Owner{}, false, nil
	}
	l, err := s.Lock(id, Owner{})
	if err == nil {
		return Owner{}, false, l.Unlock()
	}
	var le *LockedError
	if errors.As(err, &le) {
		return le.Owner, true, nil
	}
	return Owner{}, false, err
}

// Holds reports whether this store holds session id's writer lock.
func (s *Store) Holds(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.locks[id]
	return ok
}

// withLock runs fn holding the document's mutex and a writer lock taken for
// the call. A session whose lock is held, by another process or by a Lock
// of this store (a live session), is refused with *LockedError: its holder
// writes it, through its Writer, and nobody else.
func (s *Store) withLock(id string, fn func(*Lock) error) error {
	if err := ValidateID(id); err != nil {
		return err
	}
	mu := s.docMu(id)
	mu.Lock()
	defer mu.Unlock()
	l, err := s.Lock(id, Owner{PID: os.Getpid()})
	if err != nil {
		return err
	}
	defer l.Unlock()
	return fn(l)
}

// writeOwner writes the hint through its own file descriptor: flock belongs
// to the locking descriptor, so closing this one keeps the lock.
func writeOwner(path string, owner Owner) error {
	data, err := json.Marshal(owner)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readOwner reads a lock file's hint; an empty or unreadable hint gives the
// zero Owner (the holder may be between taking the lock and writing it).
func readOwner(path string) Owner {
	data, err := os.ReadFile(path)
	if err != nil {
		return Owner{}
	}
	var o Owner
	if json.Unmarshal([]byte(strings.TrimSpace(string(data))), &o) != nil {
		return Owner{}
	}
	return o
}

func (s *Store) lockPath(id string) string { return filepath.Join(s.dir, id+".lock") }
