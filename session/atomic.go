package session

import (
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
func sweepTemp(dir string) error { return atomicfile.Sweep(dir, "", tempMaxAge) }

// sweepSessionTemp removes every temp file of session id's document in
// dir, whatever its age: its writer lock is held, so no write of it is in
// progress anywhere.
func sweepSessionTemp(dir, id string) error { return atomicfile.Sweep(dir, id+".json", 0) }
