//go:build !unix

package session

import "io/fs"

// fileID has no inode to offer here: stamps compare size and time only,
// so an atomic save that kept both would look unchanged. myco's own saves
// change the time; the listing's folder TTL bounds the rest.
func fileID(fs.FileInfo) (dev, ino uint64) { return 0, 0 }
