package server

import (
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"time"

	"myco/internal/atomicfile"
)

// seenFile is where a profile keeps when the person last looked at each
// session, for the board's "done since you last looked" (docs/FORMAT.md).
const seenFile = "seen.json"

// seenSaveDelay gathers the looks of a moment into one write.
const seenSaveDelay = 2 * time.Second

// seenTracker knows when the person last looked at each session: a tab
// that shows it (its event stream open) is looking now, and the moment the
// last such tab went is when they last looked. Since is when the profile
// started keeping track: a session that changed before it and was never
// looked at since is not news.
type seenTracker struct {
	path string // "" keeps it in memory only
	log  *slog.Logger
	now  func() time.Time

	mu      sync.Mutex
	since   time.Time
	last    map[string]time.Time
	open    map[string]int
	pending *time.Timer // the save that is due, nil for none
	closed  bool        // the server is down: saves happen now, not later
}

type seenJSON struct {
	Since time.Time            `json:"since"`
	Seen  map[string]time.Time `json:"seen"`
}

// loadSeen reads the profile's file; a missing or damaged one starts
// anew from now (the board then shows no old work as news).
func loadSeen(path string, now func() time.Time, log *slog.Logger) *seenTracker {
	t := &seenTracker{path: path, log: log, now: now, last: map[string]time.Time{}, open: map[string]int{}}
	if path != "" {
		data, err := os.ReadFile(path)
		var f seenJSON
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			log.Warn("cannot read when sessions were last looked at; starting anew", "path", path, "err", err)
		case json.Unmarshal(data, &f) != nil:
			log.Warn("when sessions were last looked at is damaged; starting anew", "path", path)
		default:
			t.since = f.Since
			for id, at := range f.Seen {
				t.last[id] = at
			}
		}
	}
	if t.since.IsZero() {
		t.since = now().UTC()
		t.saveSoon()
	}
	return t
}

// looking records a tab showing session id from now until done is called.
func (t *seenTracker) looking(id string) (done func()) {
	t.mu.Lock()
	t.open[id]++
	t.last[id] = t.now().UTC()
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		if t.open[id]--; t.open[id] <= 0 {
			delete(t.open, id)
		}
		t.last[id] = t.now().UTC()
		t.mu.Unlock()
		t.saveSoon()
	}
}

// unseen says whether session id changed (at updated) since the person
// last looked at it, and no tab shows it now.
func (t *seenTracker) unseen(id string, updated time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.open[id] > 0 {
		return false
	}
	last, ok := t.last[id]
	if !ok {
		last = t.since
	}
	return updated.After(last)
}

// forget drops a deleted session.
func (t *seenTracker) forget(id string) {
	t.mu.Lock()
	delete(t.last, id)
	t.mu.Unlock()
	t.saveSoon()
}

// saveSoon writes the file after seenSaveDelay, once for every look of
// that moment. A look lost to a crash only shows a session as news again.
func (t *seenTracker) saveSoon() {
	if t.path == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pending != nil || t.closed {
		return
	}
	t.pending = time.AfterFunc(seenSaveDelay, t.save)
}

// close writes what is due at once; later looks are not saved.
func (t *seenTracker) close() {
	t.mu.Lock()
	due := t.pending != nil && t.pending.Stop()
	t.closed = true
	t.mu.Unlock()
	if due {
		t.save()
	}
}

func (t *seenTracker) save() {
	t.mu.Lock()
	t.pending = nil
	f := seenJSON{Since: t.since, Seen: make(map[string]time.Time, len(t.last))}
	for id, at := range t.last {
		f.Seen[id] = at
	}
	t.mu.Unlock()
	data, err := json.Marshal(f)
	if err == nil {
		err = atomicfile.Write(t.path, append(data, '\n'), atomicfile.Options{Perm: 0o600})
	}
	if err != nil {
		t.log.Warn("cannot save when sessions were last looked at", "path", t.path, "err", err)
	}
}
