package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// listCache keeps each document's summary with the stat it was read under,
// so a repeated listing reads only documents that changed.
type listCache struct {
	mu      sync.Mutex
	entries map[string]cacheEntry
	folders map[string]folderEntry
}

// folderEntry is the last scan of a folder, valid while the folder's own
// stat is unchanged and the scan is younger than folderTTL.
type folderEntry struct {
	info fs.FileInfo
	at   time.Time // when the scan began, by the store's clock
	sums []Summary
}

// folderTTL is how long an unchanged folder's scan is reused. A save that
// renames a new file into place changes the folder, but an editor that
// writes into the old file does not: its edit shows once the scan expires.
const folderTTL = 10 * time.Second

type cacheEntry struct {
	info fs.FileInfo
	sum  Summary
}

func newListCache() *listCache {
	return &listCache{entries: map[string]cacheEntry{}, folders: map[string]folderEntry{}}
}

// folder returns a copy of the last scan of dir if dir is unchanged since
// and the scan, at now, is younger than folderTTL.
func (c *listCache) folder(dir string, info fs.FileInfo, now time.Time) ([]Summary, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.folders[dir]
	if !ok || !sameFile(f.info, info) || now.Sub(f.at) >= folderTTL {
		return nil, false
	}
	return slices.Clone(f.sums), true
}

// putFolder keeps a scan of dir begun at at, taken after info was read: a
// change made during the scan changes the folder's stat, so the scan is not
// reused. Like files, a folder changed within the last moments is not kept.
func (c *listCache) putFolder(dir string, info fs.FileInfo, sums []Summary, at time.Time) {
	if at.Sub(info.ModTime()) < recentWindow {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.folders[dir] = folderEntry{info: info, at: at, sums: slices.Clone(sums)}
}

func (c *listCache) get(path string, info fs.FileInfo) (Summary, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[path]
	if !ok || !sameFile(e.info, info) {
		return Summary{}, false
	}
	return e.sum, true
}

// recentWindow is how fresh a file may be and still be cached: a save in
// the same coarse clock tick as the last one, reusing its inode and size,
// would otherwise look unchanged on kernels with coarse file times.
const recentWindow = 2 * time.Second

// put keeps a file's summary, its stat read no earlier than now.
func (c *listCache) put(path string, info fs.FileInfo, sum Summary, now time.Time) {
	if now.Sub(info.ModTime()) < recentWindow {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[path] = cacheEntry{info: info, sum: sum}
}

// prune forgets documents that are gone from the folder just listed.
func (c *listCache) prune(dir string, seen map[string]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for path := range c.entries {
		if filepath.Dir(path) == dir && !seen[path] {
			delete(c.entries, path)
		}
	}
}

// ListOptions choose what List returns.
type ListOptions struct {
	// Archived lists archived sessions instead of active ones.
	Archived bool
}

// List returns summaries newest first (by updated_at). Active listing reads
// session/ only; a document there that says it is archived (an archive cut
// short, waiting for MigrateArchived) is listed with the archived ones.
// Damaged documents are included with Damaged set and their file time as
// UpdatedAt; they are only read, never touched.
func (s *Store) List(opts ListOptions) ([]Summary, error) {
	active, err := s.scanDir(s.dir)
	if err != nil {
		return nil, err
	}
	out := make([]Summary, 0, len(active))
	if opts.Archived {
		archived, err := s.scanDir(s.archivedDir)
		if err != nil {
			return nil, err
		}
		out = archived
	}
	for _, sum := range active {
		if sum.Archived == opts.Archived {
			out = append(out, sum)
		}
	}
	sortNewestFirst(out)
	return out, nil
}

func sortNewestFirst(sums []Summary) {
	slices.SortFunc(sums, func(a, b Summary) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
}

// scanDir summarises every document in dir. When the folder itself has not
// changed since a recent scan (every save renames a new file into place,
// which changes the folder), that result stands; otherwise each file comes
// from the cache where it is unchanged and the rest are read in parallel.
func (s *Store) scanDir(dir string) ([]Summary, error) {
	// The clock is read before any stat, so a file or folder is never
	// taken for older than it is.
	now := s.now()
	dirInfo, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	if sums, ok := s.cache.folder(dir, dirInfo, now); ok {
		return sums, nil
	}
	sums, err := s.scanFiles(dir, now)
	if err == nil {
		s.cache.putFolder(dir, dirInfo, sums, now)
	}
	return sums, err
}

func (s *Store) scanFiles(dir string, now time.Time) ([]Summary, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	sums := make([]Summary, 0, len(entries))
	seen := make(map[string]bool, len(entries))
	var misses []miss
	for _, e := range entries {
		id, ok := docID(e)
		if !ok {
			continue
		}
		path := filepath.Join(dir, e.Name())
		seen[path] = true
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // moved away since ReadDir
		} else if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		if sum, ok := s.cache.get(path, info); ok {
			sums = append(sums, sum)
			continue
		}
		misses = append(misses, miss{id: id, path: path, info: info})
	}
	s.cache.prune(dir, seen)
	return append(sums, s.summarize(misses, now)...), nil
}

type miss struct {
	id, path string
	info     fs.FileInfo
	sum      Summary
	gone     bool
}

// docID reports whether a folder entry is a session document.
func docID(e fs.DirEntry) (string, bool) {
	id, ok := strings.CutSuffix(e.Name(), ".json")
	if !ok || !e.Type().IsRegular() || ValidateID(id) != nil {
		return "", false
	}
	return id, true
}

// summarize reads documents on a few goroutines: a cold listing of
// thousands of files is bound by syscalls and parsing, both parallel. now
// is the time before their stats were read.
func (s *Store) summarize(misses []miss, now time.Time) []Summary {
	workers := min(runtime.GOMAXPROCS(0)*2, len(misses))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				misses[i].sum, misses[i].gone = summarizeFile(misses[i])
			}
		})
	}
	for i := range misses {
		next <- i
	}
	close(next)
	wg.Wait()
	out := make([]Summary, 0, len(misses))
	for _, m := range misses {
		if m.gone {
			continue
		}
		s.cache.put(m.path, m.info, m.sum, now)
		out = append(out, m.sum)
	}
	return out
}

func summarizeFile(m miss) (sum Summary, gone bool) {
	f, err := os.Open(m.path)
	if errors.Is(err, fs.ErrNotExist) {
		return Summary{}, true
	}
	if err != nil {
		return Summary{ID: m.id, UpdatedAt: m.info.ModTime(), Damaged: err.Error()}, false
	}
	defer f.Close()
	sum, err = scanSummary(f, m.path, m.id)
	if err != nil {
		sum.UpdatedAt = m.info.ModTime()
	}
	return sum, false
}

// Resolve turns an ID or a unique prefix of one into the full ID, looking
// in both the active and the archived folder.
func (s *Store) Resolve(prefix string) (string, error) {
	if prefix == "" || ValidateID(prefix) != nil {
		return "", fmt.Errorf("%w: %q", ErrInvalidID, prefix)
	}
	found := map[string]bool{}
	for _, dir := range []string{s.dir, s.archivedDir} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return "", fmt.Errorf("resolve session: %w", err)
		}
		for _, e := range entries {
			if id, ok := docID(e); ok && strings.HasPrefix(id, prefix) {
				if id == prefix {
					return id, nil
				}
				found[id] = true
			}
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%w: %s", ErrNotFound, prefix)
	case 1:
		for id := range found {
			return id, nil
		}
	}
	matches := make([]string, 0, len(found))
	for id := range found {
		matches = append(matches, id)
	}
	slices.Sort(matches)
	return "", &AmbiguousError{Prefix: prefix, Matches: matches}
}

// Exists reports whether the session folder dir (active or archived) holds
// a session whose ID starts with prefix. It opens no store and creates
// nothing, so it can look into other profiles.
func Exists(dir, prefix string) bool {
	if ValidateID(prefix) != nil {
		return false
	}
	for _, d := range []string{dir, filepath.Join(dir, ArchivedDir)} {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if id, ok := docID(e); ok && strings.HasPrefix(id, prefix) {
				return true
			}
		}
	}
	return false
}

// Header summarises session id from its header, reading no message into
// memory: cheaper than Load for a document that may be large.
func (s *Store) Header(id string) (Summary, error) {
	dir, archived, err := s.locate(id)
	if err != nil {
		return Summary{}, err
	}
	path := filepath.Join(dir, id+".json")
	now := s.now()
	info, err := os.Lstat(path)
	if err != nil {
		return Summary{}, fmt.Errorf("read session %s: %w", id, err)
	}
	if sum, ok := s.cache.get(path, info); ok {
		return sum, nil
	}
	sum, gone := summarizeFile(miss{id: id, path: path, info: info})
	if gone {
		return Summary{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	s.cache.put(path, info, sum, now)
	if sum.Damaged != "" {
		return sum, &DamagedError{Path: path, Reason: sum.Damaged}
	}
	sum.Archived = sum.Archived || archived
	return sum, nil
}
