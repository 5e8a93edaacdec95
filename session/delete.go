package session

import (
	"fmt"
	"os"
	"path/filepath"
)

// Delete removes archived session id for good: its document, its journal
// and its sidecars. Only an archived session can go (archive first: two
// steps, so one mistake cannot lose a session), and only while no process
// holds it; a damaged document is refused like every other write. The
// images it used stay until `myco images gc`.
func (s *Store) Delete(id string) error {
	dir, archived, err := s.locate(id)
	if err != nil {
		return err
	}
	if !archived {
		return fmt.Errorf("delete session %s: %w: archive it first", id, ErrNotArchived)
	}
	err = s.withLock(id, func(*Lock) error {
		if _, err := s.read(dir, id); err != nil {
			return err
		}
		names, err := sessionFiles(dir, id)
		if err != nil {
			return err
		}
		// The document goes last: until then the session is still there,
		// whole, and a second Delete finishes.
		for _, name := range names {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("delete session %s: %w", id, err)
			}
		}
		s.noteRemoved(dir, id)
		return syncDir(dir)
	})
	if err != nil {
		return err
	}
	// The lock file stays while the lock is held; nobody wants it now.
	os.Remove(s.lockPath(id))
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
