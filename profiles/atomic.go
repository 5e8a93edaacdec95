package profiles

import (
	"fmt"
	"os"
	"path/filepath"
)

// fileMode keeps settings and server.json private: server.json holds the
// token that opens the agent's shell.
const fileMode = 0o600

// writeFileAtomic replaces path with data so that a crash leaves either the
// old file or the new one: temp file in the same folder, fsync, rename, fsync
// the folder.
func writeFileAtomic(path string, data []byte) error {
	dir, name := filepath.Split(path)
	f, err := os.CreateTemp(dir, ".tmp-"+name+"-*")
	if err != nil {
		return fmt.Errorf("create temp file: %w", err)
	}
	tmp := f.Name()
	if err := writeAndClose(f, data); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rename into place: %w", err)
	}
	return syncDir(filepath.Dir(path))
}

func writeAndClose(f *os.File, data []byte) error {
	err := f.Chmod(fileMode)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write temp file: %w", err)
	}
	return nil
}

// syncDir makes a rename in dir durable.
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
