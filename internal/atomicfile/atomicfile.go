// Package atomicfile replaces files so that a crash leaves the old file or
// the new one, never a mix: the one way myco writes a whole file (session
// documents, settings, server.json, the agent's file edits).
//
// renameio/v2 does the same but skips the fsync of the folder, without
// which a rename may not survive a power cut; hence these few lines.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// TempPrefix starts the name of every temp file Write makes; Sweep removes
// those a crash left behind.
const TempPrefix = ".tmp-"

// Options tune Write. The zero value writes a private (0600) file.
type Options struct {
	// Perm is the mode the temp file is created with (the umask applies);
	// 0600 when zero.
	Perm fs.FileMode
	// Prepare, when set, runs on the temp file after the data is written
	// and before it is synced: to chown or chmod it like the file it
	// replaces.
	Prepare func(*os.File) error
	// Volatile skips both fsyncs, keeping the rename's all-or-nothing for
	// readers: for a file that only describes the running process
	// (server.json), stale after a crash whether it reached the disk or
	// not, and written on the way to serving the first page.
	Volatile bool
}

// Write replaces path with data: temp file in the same folder, write,
// fsync, rename, fsync the folder (no fsync when opts.Volatile). On
// failure the temp file is removed and path is untouched.
func Write(path string, data []byte, opts Options) error {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	perm := opts.Perm
	if perm == 0 {
		perm = 0o600
	}
	f, err := createTemp(dir, name, perm)
	if err != nil {
		return fmt.Errorf("create temp file: %w", err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write temp file: %w", err)
	}
	if opts.Prepare != nil {
		if err := opts.Prepare(f); err != nil {
			return err
		}
	}
	if !opts.Volatile {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("sync temp file: %w", err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close temp file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename into place: %w", err)
	}
	ok = true
	if opts.Volatile {
		return nil
	}
	return SyncDir(dir)
}

// createTemp makes a new file beside name with perm (os.CreateTemp always
// uses 0600; a new file of the person's wants the umask's say).
func createTemp(dir, name string, perm fs.FileMode) (*os.File, error) {
	for range 100 {
		tmp := filepath.Join(dir, TempPrefix+name+"-"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, errors.New("no free temp file name")
}

// SyncDir makes a rename or a new entry in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open folder for sync: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	return nil
}
