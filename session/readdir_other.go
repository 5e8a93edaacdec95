//go:build !linux

package session

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

func readFolder(dir string) ([]fs.DirEntry, error) { return readFolderPortable(dir) }

// eachName calls fn with every name in dir, reading it a batch at a time.
func eachName(dir string, fn func(name []byte) error) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	for {
		entries, err := d.ReadDir(256)
		for _, e := range entries {
			if err := fn([]byte(e.Name())); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
