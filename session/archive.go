package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Archive marks session id archived (durably, in place) and then moves its
// files into archived/. A crash between the two leaves a marked document in
// session/, which MigrateArchived finishes moving. A damaged document, one
// locked by another process, or one with a file in the way in archived/, is
// refused and nothing changes.
func (s *Store) Archive(id string) error {
	if _, archived, err := s.locate(id); err != nil {
		return err
	} else if archived {
		return fmt.Errorf("%w: %s", ErrAlreadyArchived, id)
	}
	return s.withWriter(id, func(w *Writer) error {
		if w.Dir() == s.archivedDir {
			return fmt.Errorf("%w: %s", ErrAlreadyArchived, id)
		}
		// A conflict found only when moving would leave the mark set.
		if _, err := checkMove(id, s.dir, s.archivedDir); err != nil {
			return err
		}
		if err := w.setArchived(true); err != nil {
			return err
		}
		if err := s.moveFiles(id, s.dir, s.archivedDir); err != nil {
			return err
		}
		w.moved(s.archivedDir)
		return nil
	})
}

// setArchived sets the archived mark and folds it into the document, so
// the document alone says where the session belongs.
func (w *Writer) setArchived(archived bool) error {
	if _, err := w.Update(func(d *Document) error {
		d.Archived = archived
		return nil
	}); err != nil {
		return err
	}
	return w.Fold()
}

// Restore clears the archived mark (durably, in archived/) and then moves
// the session's files back to session/. A crash between the two leaves an
// unmarked document in archived/, which a second Restore finishes.
func (s *Store) Restore(id string) error {
	return s.withWriter(id, func(w *Writer) error {
		archived := w.Dir() == s.archivedDir
		var marked bool
		w.View(func(d *Document) { marked = d.Archived })
		if !archived && !marked {
			return fmt.Errorf("%w: %s", ErrNotArchived, id)
		}
		if archived {
			if _, err := checkMove(id, s.archivedDir, s.dir); err != nil {
				return err
			}
		}
		if err := w.setArchived(false); err != nil {
			return err
		}
		if !archived {
			return nil // it never left session/: clearing the mark was all
		}
		if err := s.moveFiles(id, s.archivedDir, s.dir); err != nil {
			return err
		}
		w.moved(s.dir)
		return nil
	})
}

// MigrateReport says what MigrateArchived did.
type MigrateReport struct {
	Moved   []string       // sessions moved into archived/
	Locked  []*LockedError // marked archived but held by another process: left
	Damaged []Summary      // not readable: left as they are
}

// MigrateArchived moves documents in session/ that say they are archived
// into archived/, skipping those whose lock another process holds. It runs
// at startup; progress(done, total) may be nil.
func (s *Store) MigrateArchived(progress func(done, total int)) (MigrateReport, error) {
	var rep MigrateReport
	sums, err := s.scanDir(s.dir)
	if err != nil {
		return rep, err
	}
	var marked []string
	for _, sum := range sums {
		switch {
		case sum.Damaged != "":
			rep.Damaged = append(rep.Damaged, sum)
		case sum.Archived:
			marked = append(marked, sum.ID)
		}
	}
	for i, id := range marked {
		if progress != nil {
			progress(i, len(marked))
		}
		err := s.migrateOne(id)
		var le *LockedError
		switch {
		case errors.As(err, &le):
			rep.Locked = append(rep.Locked, le)
		case err != nil:
			return rep, err
		default:
			rep.Moved = append(rep.Moved, id)
		}
	}
	if progress != nil && len(marked) > 0 {
		progress(len(marked), len(marked))
	}
	return rep, nil
}

// FinishArchive moves session id into archived/ if its document is marked
// archived (an archive that waited for its live session to close); a
// session no longer marked, restored meanwhile, stays where it is.
func (s *Store) FinishArchive(id string) error { return s.migrateOne(id) }

func (s *Store) migrateOne(id string) error {
	mu := s.docMu(id) // first, as in withLock
	mu.Lock()
	defer mu.Unlock()
	// Deleted meanwhile (a delete does not wait for a pending archive to
	// finish): nothing to move, and no lock file to leave behind.
	if _, err := os.Lstat(filepath.Join(s.dir, id+".json")); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	l, err := s.Lock(id, Owner{PID: os.Getpid()})
	if err != nil {
		return err
	}
	defer l.Unlock()
	// Re-read under the lock: the holder we waited for may have changed it.
	doc, err := s.loadFrom(s.dir, id)
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrDamaged) || (err == nil && !doc.Archived) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.moveFiles(id, s.dir, s.archivedDir)
}

// moveFiles moves every file of session id (the document, its sidecars,
// anything named <id>.*) from one folder to the other, except the lock file,
// which stays put so that moving never drops a lock. The document moves last,
// so a crash leaves it where its remaining files are still looked for. No
// file at the destination is ever replaced.
func (s *Store) moveFiles(id, from, to string) error {
	names, err := checkMove(id, from, to)
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := os.Rename(filepath.Join(from, name), filepath.Join(to, name)); err != nil {
			return fmt.Errorf("move session %s: %w", id, err)
		}
	}
	if len(names) > 0 && names[len(names)-1] == id+".json" {
		s.noteMoved(id, from, to)
	}
	if err := syncDir(to); err != nil {
		return err
	}
	return syncDir(from)
}

// checkMove lists the files of session id to move from one folder to the
// other, and fails with ErrConflict if one of them exists at the destination.
func checkMove(id, from, to string) ([]string, error) {
	names, err := sessionFiles(from, id)
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		if _, err := os.Lstat(filepath.Join(to, name)); err == nil {
			return nil, fmt.Errorf("move session %s: %w: %s", id, ErrConflict, filepath.Join(to, name))
		}
	}
	return names, nil
}

// sessionFiles lists the files of session id in dir, the document last.
func sessionFiles(dir, id string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list files of session %s: %w", id, err)
	}
	var names []string
	hasDoc := false
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, id+".") || e.IsDir() {
			continue
		}
		switch name {
		case id + ".lock":
		case id + ".json":
			hasDoc = true
		default:
			names = append(names, name)
		}
	}
	if hasDoc {
		names = append(names, id+".json")
	}
	return names, nil
}

// Sidecar kinds: transcripts an earlier version of the app kept beside a
// document. They are read, shown and searched; nothing writes new ones.
const (
	SidecarReadline = "readline"
	SidecarConsole  = "console"
)

// Sidecar reads a historical sidecar of session id. Its absence is an error
// that satisfies errors.Is(err, fs.ErrNotExist).
func (s *Store) Sidecar(id, kind string) ([]byte, error) {
	if kind != SidecarReadline && kind != SidecarConsole {
		return nil, fmt.Errorf("unknown sidecar kind %q", kind)
	}
	dir, archived, err := s.locate(id)
	if err != nil {
		return nil, err
	}
	other := s.archivedDir
	if archived {
		other = s.dir
	}
	// An archive or restore cut short can leave a sidecar in the other folder.
	for _, d := range []string{dir, other} {
		data, err := readRegular(filepath.Join(d, id+"."+kind), MaxDocumentSize)
		if !errors.Is(err, fs.ErrNotExist) {
			return data, err
		}
	}
	return nil, fmt.Errorf("session %s has no %s sidecar: %w", id, kind, fs.ErrNotExist)
}

// ImageRefs is the set of images any session refers to, active or
// archived (the journal's messages included), and the documents that
// could not be read, whose references are unknown.
func (s *Store) ImageRefs(progress func(done, total int)) (map[string]bool, []Summary, error) {
	users, damaged, err := s.ImageUsers(progress)
	if err != nil {
		return nil, nil, err
	}
	refs := make(map[string]bool, len(users))
	for sha := range users {
		refs[sha] = true
	}
	return refs, damaged, nil
}
