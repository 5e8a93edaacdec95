package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"
)

// Stamp is what a read saw of a file: enough to tell later whether it
// changed.
type Stamp struct {
	SHA256  string // of the whole content
	ModTime time.Time
	Size    int64
}

// Same reports whether two stamps are of the same content. The time is
// not compared: a file saved again unchanged (or touched) holds what the
// agent read.
func (s Stamp) Same(o Stamp) bool { return s.Size == o.Size && s.SHA256 == o.SHA256 }

func stampOf(data []byte, mod time.Time) Stamp {
	sum := sha256.Sum256(data)
	return Stamp{SHA256: hex.EncodeToString(sum[:]), ModTime: mod, Size: int64(len(data))}
}

// Stamps are a live session's read stamps, by real path, with the views of
// each file the agent was sent in full. They live in memory only: a session
// opened by a new process reads its files again. The zero value is ready;
// a Stamps is safe for concurrent use.
type Stamps struct {
	mu    sync.Mutex
	files map[string]*stamped
}

type stamped struct {
	stamp Stamp
	views map[string]string // a view sent in full → the call that sent it
}

// Get returns the stamp of the last read or write of path.
func (ss *Stamps) Get(path string) (Stamp, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	f, ok := ss.files[path]
	if !ok {
		return Stamp{}, false
	}
	return f.stamp, true
}

// Sent returns the call that already sent this view of this content of
// path, if one did. A view names what was shown and where (the caller's
// choice: a range of lines in a thread, say).
func (ss *Stamps) Sent(path string, st Stamp, view string) (string, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	f, ok := ss.files[path]
	if !ok || !f.stamp.Same(st) {
		return "", false
	}
	by, ok := f.views[view]
	return by, ok
}

// Read records that call by sent view of path, whose content st stamps.
// Views sent of other content are forgotten.
func (ss *Stamps) Read(path string, st Stamp, view, by string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	f := ss.file(path, st)
	f.views[view] = by
}

// Wrote records the stamp of what a write left in path: the agent knows
// the file, but was sent no view of its new content.
func (ss *Stamps) Wrote(path string, st Stamp) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	f := ss.file(path, st)
	clear(f.views)
}

// file returns path's entry stamped st; ss.mu is held.
func (ss *Stamps) file(path string, st Stamp) *stamped {
	if ss.files == nil {
		ss.files = map[string]*stamped{}
	}
	f, ok := ss.files[path]
	if !ok || !f.stamp.Same(st) {
		f = &stamped{views: map[string]string{}}
		ss.files[path] = f
	}
	f.stamp = st
	return f
}
