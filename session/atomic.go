package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// tempPrefix marks files that an interrupted atomic write can leave behind;
// SweepTemp removes them.
const tempPrefix = ".tmp-"

// writeFileAtomic replaces dir/name with data so that a crash leaves either
// the old file or the new one: temp file in the same folder, fsync, rename,
// fsync the folder. renameio skips the folder fsync, hence these few lines.
func writeFileAtomic(dir, name string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(dir, tempPrefix+name+"-*")
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
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("chmod temp file: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write temp file: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync temp file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close temp file: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("rename into place: %w", err)
	}
	ok = true
	return syncDir(dir)
}

// syncDir makes a rename or a new entry in dir durable.
func syncDir(dir string) error {
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

// tempMaxAge is how old a temp file must be before sweepTemp removes it: a
// younger one may belong to another process's write in progress.
const tempMaxAge = time.Hour

// sweepTemp removes temp files left in dir by writes that a crash cut short.
func sweepTemp(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), tempPrefix) || !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > tempMaxAge {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("remove leftover temp file: %w", err)
			}
		}
	}
	return nil
}
