package session

import (
	"io/fs"
	"os"
	"time"
)

// A start reads each session folder once. Open reads its names (to sweep
// temp files) and keeps them; Recover and the first listing use them while
// the folder's stat says nothing changed since. A folder of 10,000
// sessions holds 20,000 names, and reading them took ~10 ms each of the
// three times a start used to.
//
// With Options.CheckLater (a server's start), the first listing goes
// further: when the folder's names are exactly the listing cache's, it
// answers from the cache at once and stats every document in the
// background, as a listing does every folderTTL. A document edited since
// the cache was written then shows its old summary until that check ends,
// a few tens of milliseconds later, and ListChanged tells watchers. New and
// removed documents show at once: their names differ.
//
// That check waits for the first listing's answer (or checkDelay, if no
// listing comes): its 10,000 lstats, run at once, took a core from the
// first page on a machine of two. Nothing waits for it before then but
// the start's MigrateArchived, which runs beside the server.
//
// The listing cache itself is read and decoded from Open, on a goroutine
// of its own (prefetchListingCache), while Open reads the folder's names:
// the first page waits for the longer of the two, not for both in turn.

// checkDelay is how long the start's check waits for a first listing
// before it begins anyway, so that MigrateArchived and the listing cache
// saved after it are not held up by a server nobody has opened yet: a
// browser that a start opens asks for its page well within it.
const checkDelay = 500 * time.Millisecond

// folderRead is a folder's names and the stat taken just before they were
// read.
type folderRead struct {
	info    fs.FileInfo
	entries []fs.DirEntry
}

// keepRead keeps the names Open read from dir, whose stat info was taken
// at now before the read, if that stat can vouch for them later: a folder
// changed within recentWindow could change again in the same clock tick.
func (c *listCache) keepRead(dir string, info fs.FileInfo, entries []fs.DirEntry, now time.Time) {
	if now.Sub(info.ModTime()) < recentWindow {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.folder(dir).opened = &folderRead{info: info, entries: entries}
}

// keepNames keeps entries, read after dir's stat info was taken, for the
// next scan under that stat.
func (c *listCache) keepNames(dir string, info fs.FileInfo, entries []fs.DirEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.folder(dir).opened = &folderRead{info: info, entries: entries}
}

// keptRead returns the names Open read from dir if the folder's stat is
// still info; take drops them, as a first scan does.
func (c *listCache) keptRead(dir string, info fs.FileInfo, take bool) ([]fs.DirEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder(dir)
	r := f.opened
	if take || r == nil || !sameFile(r.info, info) {
		f.opened = nil
	}
	if r == nil || !sameFile(r.info, info) {
		return nil, false
	}
	return r.entries, true
}

// takeNames is dir's names for a scan under the folder's stat dirInfo:
// those Open read if nothing changed since, else read now.
func (s *Store) takeNames(dir string, dirInfo fs.FileInfo) ([]fs.DirEntry, error) {
	if entries, ok := s.cache.keptRead(dir, dirInfo, true); ok {
		return entries, nil
	}
	return readDocs(dir)
}

// namesAtStart is dir's names, those Open read if the folder has not
// changed since, for the start's passes before the first listing.
func (s *Store) namesAtStart(dir string) ([]fs.DirEntry, error) {
	if info, err := os.Stat(dir); err == nil {
		if entries, ok := s.cache.keptRead(dir, info, false); ok {
			return entries, nil
		}
	}
	return readDocs(dir)
}

// adoptUnchecked takes dir's entries, just seeded from its listing cache,
// as its listing under the folder's stat dirInfo, if entries (the
// folder's names, read after dirInfo was taken at now, after begin
// returned noted and gen) are exactly the cache's documents, each a
// regular file by its directory entry. Their stats are checked later.
func (c *listCache) adoptUnchecked(dir string, entries []fs.DirEntry, dirInfo fs.FileInfo, now time.Time, noted, gen uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder(dir)
	if f.info != nil || f.lastNote > gen {
		return false // scanned, or changed by this store, meanwhile
	}
	n := 0
	for _, e := range entries {
		id, ok := docID(e)
		if !ok {
			continue
		}
		n++
		if _, known := f.files[id]; !known || !e.Type().IsRegular() {
			return false
		}
	}
	if n != len(f.files) {
		return false
	}
	f.info, f.at, f.infoNoted = dirInfo, now, noted
	f.recent = now.Sub(dirInfo.ModTime()) < recentWindow
	f.unchecked = true
	return true
}

// quickScan is a first scan of dir that may take the listing cache as it
// is (adoptUnchecked) and start the check of every document in the
// background. done: the listing stands (this scan's or a concurrent
// one's); otherwise entries are the folder's names, for a full scan. One
// runs at a time, so a concurrent first listing waits for it rather than
// stat every document itself.
func (s *Store) quickScan(dir string, dirInfo fs.FileInfo, now time.Time, noted, gen uint64) (entries []fs.DirEntry, done bool, err error) {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.cache.adoptedAs(dir, dirInfo) {
		return nil, true, nil // by a first scan this one waited for
	}
	if entries, err = s.takeNames(dir, dirInfo); err != nil {
		return nil, false, err
	}
	if s.seedFromListingCache(dir) && s.cache.adoptUnchecked(dir, entries, dirInfo, now, noted, gen) {
		// The check stats the names just read, under the same stat.
		s.cache.keepNames(dir, dirInfo, entries)
		s.checkInBackground(dir, dirInfo, now, noted, gen, s.listed)
		return nil, true, nil
	}
	return entries, false, nil
}

// adoptedAs reports whether dir's entries came from the listing cache
// under the folder's stat info, and wait for their check.
func (c *listCache) adoptedAs(dir string, info fs.FileInfo) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder(dir)
	return f.unchecked && sameFile(f.info, info)
}

// waitCheck waits for the background check of dir that runs, if one does.
func (c *listCache) waitCheck(dir string) {
	c.mu.Lock()
	done := c.folder(dir).checkDone
	c.mu.Unlock()
	if done != nil {
		<-done
	}
}
