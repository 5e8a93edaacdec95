package session

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ListingCacheName is the file, in each session folder, where the store
// keeps what its last listing knew: each document's stamp (device, inode,
// size, modification time) and summary. It is derived data. A restart
// reads it instead of the documents; an entry counts only while its
// document's stat still matches its stamp, and a file that is damaged,
// truncated, of another version or not matching its checksum is ignored
// whole and written again. Deleting it costs one full read of the folder.
const ListingCacheName = "listing.cache"

// listingCacheMagic starts the file's first line, followed by the CRC-32C
// of the body that follows the line, its length and its number of entries
// (so the decoder grows no map). Version 2 is a binary body: version 1's
// JSON took 50-90 ms to decode for 10,000 sessions, most of a restart's
// listing; this one takes a few (listing_cache_codec.go). Version 3 adds
// each session's name at the end of its entry; version 4 its pin (a flag)
// and tags, after the name.
const listingCacheMagic = "myco listing cache 4"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errStaleCache is a listing cache that cannot be trusted as a whole.
var errStaleCache = errors.New("listing cache unusable")

// readListingCache returns the entries of dir's listing cache by ID, and
// in the file's order (newest first). A missing file is no entries;
// anything else wrong is errStaleCache.
func readListingCache(dir string) (map[string]*fileEntry, []*fileEntry, error) {
	data, err := readRegular(filepath.Join(dir, ListingCacheName), MaxDocumentSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", errStaleCache, err)
	}
	body, n, err := checkListingCache(data)
	if err != nil {
		return nil, nil, err
	}
	files, order, err := decodeCacheBody(body, n)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", errStaleCache, err)
	}
	return files, order, nil
}

// checkListingCache checks the header line and returns the body after it
// and the number of entries it says the body holds.
func checkListingCache(data []byte) ([]byte, int, error) {
	line, body, ok := bytes.Cut(data, []byte("\n"))
	fields := strings.Fields(string(line))
	if !ok || len(fields) != 7 || strings.Join(fields[:4], " ") != listingCacheMagic {
		return nil, 0, fmt.Errorf("%w: not a listing cache of this version", errStaleCache)
	}
	sum, err1 := strconv.ParseUint(fields[4], 16, 32)
	size, err2 := strconv.Atoi(fields[5])
	n, err3 := strconv.Atoi(fields[6])
	if err := errors.Join(err1, err2, err3); err != nil || size != len(body) || uint32(sum) != crc32.Checksum(body, castagnoli) {
		return nil, 0, fmt.Errorf("%w: length or checksum does not match", errStaleCache)
	}
	// Each entry takes more than minEntrySize bytes: a larger count is a lie.
	if n < 0 || n > len(body)/minEntrySize {
		return nil, 0, fmt.Errorf("%w: %d entries cannot fit in %d bytes", errStaleCache, n, len(body))
	}
	return body, n, nil
}

// encodeListingCache makes the file's bytes from entries, newest first
// (pinned first, the order a listing sorts them in, which then finds them sorted).
func encodeListingCache(files map[string]*fileEntry) []byte {
	list := slices.SortedFunc(maps.Values(files), entryOrder)
	body := make([]byte, 0, len(list)*256)
	for _, e := range list {
		body = appendCacheEntry(body, e)
	}
	head := fmt.Sprintf("%s %08x %d %d\n", listingCacheMagic, crc32.Checksum(body, castagnoli), len(body), len(list))
	return append([]byte(head), body...)
}

// cacheable reports whether e may go into the listing cache: a summary of
// the file as it is (not ahead of it), healthy, whose stat was taken long
// enough after its last change to vouch for its content (recentWindow).
func (e *fileEntry) cacheable() bool {
	return e.st.ok && !e.recent && !e.ahead && !e.damaged()
}

// SaveListingCache writes each session folder's listing cache (see
// ListingCacheName) if what the store knows of the folder changed since
// the cache was last read or written, so that the next start reads it
// instead of every document. A server calls it once its first listing is
// done and when it stops; a crash in between costs the next start a read
// of the documents that changed. Nothing is written for a folder no
// listing has read yet.
func (s *Store) SaveListingCache() error {
	// One save at a time: a slower one that took its entries earlier must
	// not replace a later one's file.
	s.cacheSaveMu.Lock()
	defer s.cacheSaveMu.Unlock()
	var errs []error
	for _, dir := range []string{s.dir, s.archivedDir} {
		files, ok := s.cache.toSave(dir)
		if !ok {
			continue
		}
		if err := writeFileAtomic(dir, ListingCacheName, encodeListingCache(files), 0o600); err != nil {
			s.cache.saveFailed(dir)
			errs = append(errs, fmt.Errorf("save listing cache: %w", err))
			continue
		}
		s.cache.noteOwnFolderChange(dir)
	}
	return errors.Join(errs...)
}

// toSave returns dir's cacheable entries if the folder was listed whole
// and changed since its cache was last read or written, and marks it
// saved.
func (c *listCache) toSave(dir string) (map[string]*fileEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder(dir)
	if f.info == nil || !f.dirty {
		return nil, false
	}
	f.dirty = false
	files := make(map[string]*fileEntry, len(f.files))
	for id, e := range f.files {
		if e.cacheable() {
			files[id] = e
		}
	}
	return files, true
}

// saveFailed marks dir to be saved again at the next chance.
func (c *listCache) saveFailed(dir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.folder(dir).dirty = true
}

// noteOwnFolderChange counts a file this store put in dir that is not a
// document (the listing cache): the folder's stat changed, but only by
// this store, so the next listing reads the folder's names, not every
// file's stat.
func (c *listCache) noteOwnFolderChange(dir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.folder(dir).noted++
}

// seedFromListingCache fills dir's entries from its listing cache before
// the folder's first scan, which then reads only the documents whose stat
// no longer matches. A cache that cannot be used is logged and left to be
// written again. It reports whether it seeded entries just now.
func (s *Store) seedFromListingCache(dir string) bool {
	want, prefetched := s.cache.wantSeed(dir)
	if !want {
		return false
	}
	files, order, err := takeListingCache(dir, prefetched)
	if err != nil {
		s.log.Warn("reading every session instead of the listing cache", "folder", dir, "err", err)
	}
	s.cache.seed(dir, files, order)
	return len(files) > 0
}

// cacheRead is what readListingCache returned.
type cacheRead struct {
	files map[string]*fileEntry
	order []*fileEntry
	err   error
}

// prefetchListingCache reads dir's listing cache on a goroutine of its
// own. A server's start does it as it opens the store, beside reading
// the folder's names: on a machine of two cores the first page then
// waits for the longer of the two rather than for both in turn (the
// cache of 10,000 sessions is 2 MB, and decoding it ~25 ms here).
func prefetchListingCache(dir string) <-chan cacheRead {
	ch := make(chan cacheRead, 1)
	go func() {
		files, order, err := readListingCache(dir)
		ch <- cacheRead{files, order, err}
	}()
	return ch
}

// takeListingCache is dir's listing cache: the read Open started, if it
// did, else a read now.
func takeListingCache(dir string, prefetched <-chan cacheRead) (map[string]*fileEntry, []*fileEntry, error) {
	if prefetched != nil {
		r := <-prefetched
		return r.files, r.order, r.err
	}
	return readListingCache(dir)
}

// wantSeed reports whether dir has never been scanned nor seeded, and
// marks it seeded; prefetched is the read of its cache Open started, if
// one is waiting, which it hands over once.
func (c *listCache) wantSeed(dir string) (want bool, prefetched <-chan cacheRead) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder(dir)
	prefetched, f.prefetch = f.prefetch, nil
	if f.seeded || f.info != nil {
		return false, nil
	}
	f.seeded = true
	return true, prefetched
}

// seed adds files to dir's entries where it has none. The folder is dirty
// (its cache due to be written) unless the cache gave every entry: the
// first scan marks it dirty again if any entry is replaced. order is
// files in the cache's order, kept as the listing's order while it holds
// exactly the folder's entries (folder.ordered).
func (c *listCache) seed(dir string, files map[string]*fileEntry, order []*fileEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder(dir)
	f.dirty = files == nil
	if len(files) == 0 {
		return
	}
	if len(f.files) == 0 {
		f.files = files // the start's case: 10,000 inserts saved
		f.order = order
		c.bump()
		return
	}
	for id, e := range files {
		if _, ok := f.files[id]; !ok {
			f.files[id] = e
		}
	}
	c.bump()
}
