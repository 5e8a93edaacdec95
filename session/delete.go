package session

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Delete removes archived session id for good: its document, its journal
// and its sidecars. Only an archived session can go (archive first: two
// steps, so one mistake cannot lose a session), and only while no process
// holds it; a damaged document is refused like every other write. A session
// marked archived whose files have not moved yet (its archive waited for a
// turn, or a crash came between) counts as archived: it goes from where it
// is, and nothing of it is left in either folder. The images it used stay
// until `myco images gc`.
func (s *Store) Delete(id string) error {
	// Not found is told before any lock: locking would leave a lock file
	// for a session that never was.
	if _, _, err := s.locate(id); err != nil {
		return err
	}
	// withLock, but for the lock file: it goes once the lock is let go
	// (it stays while held), still under the document's mutex, so that no
	// probe of this store (Owner) makes it again in between.
	mu := s.docMu(id)
	mu.Lock()
	defer mu.Unlock()
	l, err := s.Lock(id, Owner{PID: os.Getpid()})
	if err != nil {
		return err
	}
	err = s.deleteLocked(id)
	l.Unlock()
	if err != nil {
		return err
	}
	os.Remove(s.lockPath(id))
	return nil
}

// deleteLocked is Delete under session id's lock.
func (s *Store) deleteLocked(id string) error {
	// Again under the lock: a pending archive may have moved it since.
	dir, archived, err := s.locate(id)
	if err != nil {
		return err
	}
	doc, err := s.read(dir, id)
	if err != nil {
		return err
	}
	if !archived && !doc.Archived {
		return fmt.Errorf("delete session %s: %w: archive it first", id, ErrNotArchived)
	}
	return s.removeFiles(id, dir)
}

// removeFiles removes every file of session id: first those an archive or
// restore cut short left in the other folder, then those in dir, its
// document last, so that until then the session is still there, whole,
// and a second Delete finishes. A document in the other folder too is
// another copy (a conflict a move refused): that folder is left alone.
func (s *Store) removeFiles(id, dir string) error {
	other := s.archivedDir
	if dir == s.archivedDir {
		other = s.dir
	}
	for _, d := range []string{other, dir} {
		names, err := sessionFiles(d, id)
		if err != nil {
			return err
		}
		if d == other && slices.Contains(names, id+".json") {
			continue
		}
		for _, name := range names {
			if err := os.Remove(filepath.Join(d, name)); err != nil {
				return fmt.Errorf("delete session %s: %w", id, err)
			}
		}
		if len(names) > 0 {
			if err := syncDir(d); err != nil {
				return err
			}
		}
	}
	s.noteRemoved(dir, id)
	return nil
}

// noteRemoved tells the listing that this store has removed session id's
// document from dir.
func (s *Store) noteRemoved(dir, id string) {
	c := s.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder(dir)
	c.bump()
	f.noted++
	f.lastNote = c.gen
	delete(f.files, id)
}
