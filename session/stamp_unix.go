//go:build unix

package session

import (
	"io/fs"
	"syscall"
)

// fileID is the device and inode of the file info describes.
func fileID(info fs.FileInfo) (dev, ino uint64) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return uint64(st.Dev), uint64(st.Ino) //nolint:unconvert // int32 on some platforms
}
