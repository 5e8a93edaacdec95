package session

import (
	"fmt"
	"io/fs"
	"os"
)

// readDocs lists the entries of dir, documents and the rest, in no
// particular order (os.ReadDir sorts, which a listing does not need).
// The Linux build reads them in a few large getdents calls
// (readdir_linux.go); this is the portable one it falls back to.
func readDocs(dir string) ([]fs.DirEntry, error) {
	entries, err := readFolder(dir)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return entries, nil
}

func readFolderPortable(dir string) ([]fs.DirEntry, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(-1)
}
