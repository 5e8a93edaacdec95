//go:build !linux

package session

import "io/fs"

func readFolder(dir string) ([]fs.DirEntry, error) { return readFolderPortable(dir) }
