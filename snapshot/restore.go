package snapshot

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"myco/internal/errkind"
)

// A restore (undo, redo) writes only beneath the session's folder: every
// change goes through an os.Root opened on it, which refuses "..",
// absolute names and links that lead out on every call, so no path in a
// manifest, no link made since and no folder swapped for a link can make
// it write elsewhere. And it changes the folder whole or not at all: what
// could stop it halfway (a file where the snapshot has a folder, a link
// on the way, a folder holding files no snapshot knows) is looked for
// first, and refused with a *ConflictError before anything is changed.

// ErrConflict is a restore refused before it changed anything; the error
// is a *ConflictError, which says where and why.
var ErrConflict = errkind.New(errkind.Conflict, "the folder cannot be restored as it is")

// ConflictError is a path whose shape now keeps a restore from being done
// whole.
type ConflictError struct {
	Path string // slash-separated, relative to the folder
	Why  string // a sentence that goes on from the path
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("nothing was changed: %s %s", e.Path, e.Why)
}

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// Restore makes the folder of now look like target: it writes the files
// that differ and removes those target does not have. It returns what it
// changed, as a change from now to target. A restore that could not be
// done whole is refused (*ConflictError) before anything changes.
func (s *Store) Restore(target, now *Manifest) ([]Change, error) {
	root, err := os.OpenRoot(target.Dir)
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	defer root.Close()
	changes := Compare(now, target)
	if err := check(root, changes); err != nil {
		return nil, err
	}
	// Removals first, deepest first: a folder that becomes a file is
	// empty, and a file that becomes a folder is gone, before the writes.
	for i := len(changes) - 1; i >= 0; i-- {
		c := changes[i]
		if c.Kind != Removed {
			continue
		}
		if err := root.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("restore %s: %w", c.Path, err)
		}
		removeEmptyParents(root, path.Dir(c.Path))
	}
	for _, c := range changes {
		if c.Kind == Removed {
			continue
		}
		if err := s.writeEntry(root, c.Path, *c.After); err != nil {
			return nil, fmt.Errorf("restore %s: %w", c.Path, err)
		}
	}
	return changes, nil
}

// Check says, without changing anything, whether Restore(target, now)
// would be refused, and why: the plan of an undo says so before it is
// confirmed.
func (s *Store) Check(target, now *Manifest) error {
	root, err := os.OpenRoot(target.Dir)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	defer root.Close()
	return check(root, Compare(now, target))
}

// check looks for what would keep changes (from the folder now to a
// snapshot) from being made whole in root.
func check(root *os.Root, changes []Change) error {
	removed := map[string]bool{}
	for _, c := range changes {
		if c.Kind == Removed {
			removed[c.Path] = true
		}
	}
	for _, c := range changes {
		if c.Kind == Removed {
			continue
		}
		if err := checkParents(root, c.Path, removed); err != nil {
			return err
		}
		if err := checkSpot(root, c.Path, removed); err != nil {
			return err
		}
	}
	return nil
}

// checkParents: each folder above rel must be a folder, be missing (it is
// made), or be a file or link the restore removes first.
func checkParents(root *os.Root, rel string, removed map[string]bool) error {
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		p := strings.Join(parts[:i], "/")
		fi, err := root.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return &ConflictError{Path: p, Why: "cannot be looked at (" + err.Error() + ")"}
		case fi.IsDir():
			continue
		case removed[p]:
			return nil
		case fi.Mode()&fs.ModeSymlink != 0:
			return &ConflictError{Path: p, Why: "is a link now, where the snapshot has a folder (holding " + rel +
				"). Files are never written through a link, and no snapshot holds this one (.gitignore leaves it out), " +
				"so it is not removed either: move it away, then ask again"}
		default:
			return &ConflictError{Path: p, Why: "is a file now, where the snapshot has a folder (holding " + rel +
				"), and no snapshot holds that file (.gitignore or the size limit leaves it out), so it is not deleted: " +
				"move it away, then ask again"}
		}
	}
	return nil
}

// checkSpot: where rel goes back as a file, a folder now must hold only
// files the restore removes (it is then removed, empty).
func checkSpot(root *os.Root, rel string, removed map[string]bool) error {
	fi, err := root.Lstat(rel)
	if err != nil || !fi.IsDir() {
		return nil // missing, or a file or link: replaced whole
	}
	extra, err := unknownIn(root, rel, removed)
	if err != nil {
		return &ConflictError{Path: rel, Why: "is a folder now, where the snapshot has a file, and cannot be read (" + err.Error() + ")"}
	}
	if extra != "" {
		return &ConflictError{Path: rel, Why: "is a folder now, where the snapshot has a file, and it holds " + extra +
			", which no snapshot holds (.gitignore or the size limit leaves it out), so it is not deleted: move it away, then ask again"}
	}
	return nil
}

// unknownIn is the first file under folder dir that removed does not name.
func unknownIn(root *os.Root, dir string, removed map[string]bool) (string, error) {
	f, err := root.Open(dir)
	if err != nil {
		return "", err
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		p := dir + "/" + e.Name()
		if !e.IsDir() {
			if !removed[p] {
				return p, nil
			}
			continue
		}
		if extra, err := unknownIn(root, p, removed); extra != "" || err != nil {
			return extra, err
		}
	}
	return "", nil
}

// writeEntry writes e at rel: a link made anew, a file through a
// temporary file renamed over whatever is there (a link there is replaced,
// never written through).
func (s *Store) writeEntry(root *os.Root, rel string, e Entry) error {
	data, err := s.Blob(e.SHA256)
	if err != nil {
		return err
	}
	dir := path.Dir(rel)
	if err := root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if e.Mode&fs.ModeSymlink != 0 {
		if err := root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return root.Symlink(string(data), rel)
	}
	tmp, err := writeTemp(root, dir, data, e.Mode.Perm())
	if err != nil {
		return err
	}
	if err := root.Rename(tmp, rel); err != nil {
		root.Remove(tmp)
		return err
	}
	// The file's old mtime back: it is what the file was, and the next
	// scan then trusts it without reading it again.
	mt := time.Unix(0, e.MtimeNS)
	return root.Chtimes(rel, mt, mt)
}

// writeTemp writes data to a new file in dir of root, and names it.
func writeTemp(root *os.Root, dir string, data []byte, perm fs.FileMode) (string, error) {
	var b [8]byte
	rand.Read(b[:])
	tmp := path.Join(dir, ".myco-restore-"+hex.EncodeToString(b[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Chmod(tmp, perm)
	}
	if err != nil {
		root.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// removeEmptyParents removes folders a restore emptied, up to the root.
func removeEmptyParents(root *os.Root, dir string) {
	for dir != "." && dir != "/" && dir != "" {
		if root.Remove(dir) != nil {
			return
		}
		dir = path.Dir(dir)
	}
}
