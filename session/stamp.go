package session

import (
	"io/fs"
	"time"
)

// stamp is what a file's stat says of its identity and content, kept
// instead of the fs.FileInfo: a quarter of its size, and it can be written
// to the listing cache (listing_cache.go) and compared after a restart.
// An atomic save always makes a new inode, an edit in place a new size or
// time.
type stamp struct {
	dev, ino uint64
	size     int64
	mtime    int64 // Unix nanoseconds
	ok       bool  // taken from a stat; the zero stamp matches nothing
}

// stampOf is info's stamp; a nil info gives the zero stamp.
func stampOf(info fs.FileInfo) stamp {
	if info == nil {
		return stamp{}
	}
	dev, ino := fileID(info)
	return stamp{dev: dev, ino: ino, size: info.Size(), mtime: info.ModTime().UnixNano(), ok: true}
}

// same reports whether two stamps describe the same, unchanged file.
func (a stamp) same(b stamp) bool { return a.ok && a == b }

func (a stamp) modTime() time.Time { return time.Unix(0, a.mtime) }
