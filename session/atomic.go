package session

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"myco/internal/atomicfile"
)

// writeFileAtomic replaces dir/name with data: a crash leaves the old file
// or the new one (package atomicfile, the one such helper of myco).
func writeFileAtomic(dir, name string, data []byte, perm os.FileMode) error {
	return atomicfile.Write(filepath.Join(dir, name), data, atomicfile.Options{Perm: perm})
}

// syncDir makes a rename or a new entry in dir durable.
func syncDir(dir string) error { return atomicfile.SyncDir(dir) }

// tempMaxAge is how old a temp file must be before sweepTemp removes it: a
// younger one may belong to another process's write in progress. A
// session's own temp files go sooner, once its writer lock is taken
// (sweepSessionTemp).
const tempMaxAge = time.Hour

// sweepTemp removes temp files left in dir by writes that a crash cut short.
func sweepTemp(dir string) error { return sweep(dir, "", tempMaxAge) }

// sweepSessionTemp removes every temp file of session id's document in
// dir, whatever its age: its writer lock is held, so no write of it is in
// progress anywhere.
func sweepSessionTemp(dir, id string) error { return sweep(dir, id+".json", 0) }

// sweep removes the temp files of atomicfile.Write in dir older than
// maxAge whose name starts with TempPrefix+name (every temp file when name
// is empty): a younger one may belong to a write in progress in another
// process.
//
// Every open of a session sweeps its folder, two names per session, so
// the folder is read without keeping its names (eachName): with
// os.File.ReadDir, 20 sessions opening at once in a 10,000-session folder
// held ~7 MB of entries between them, the most of issue 21's peak heap.
func sweep(dir, name string, maxAge time.Duration) error {
	prefix := []byte(atomicfile.TempPrefix + name)
	err := eachName(dir, func(entry []byte) error {
		if !bytes.HasPrefix(entry, prefix) {
			return nil
		}
		path := filepath.Join(dir, string(entry))
		info, err := os.Lstat(path)
		if err != nil || !info.Mode().IsRegular() || time.Since(info.ModTime()) < maxAge {
			return nil
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove leftover temp file: %w", err)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
