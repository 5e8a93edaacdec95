package session

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
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
// of the JSON that follows the line, its length and its number of entries
// (so the decoder grows no slice).
const listingCacheMagic = "myco listing cache 1"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// cachedEntry is one line of the listing cache's JSON array.
type cachedEntry struct {
	ID    string  `json:"id"`
	Dev   uint64  `json:"dev"`
	Ino   uint64  `json:"ino"`
	Size  int64   `json:"size"`
	MTime int64   `json:"mtime_ns"`
	Sum   Summary `json:"summary"`
}

// errStaleCache is a listing cache that cannot be trusted as a whole.
var errStaleCache = errors.New("listing cache unusable")

// readListingCache returns the entries of dir's listing cache by ID. A
// missing file is no entries; anything else wrong is errStaleCache.
func readListingCache(dir string) (map[string]*fileEntry, error) {
	data, err := readRegular(filepath.Join(dir, ListingCacheName), MaxDocumentSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errStaleCache, err)
	}
	body, n, err := checkListingCache(data)
	if err != nil {
		return nil, err
	}
	list := make([]cachedEntry, 0, n)
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("%w: %w", errStaleCache, err)
	}
	files := make(map[string]*fileEntry, len(list))
	for i := range list {
		c := &list[i]
		if ValidateID(c.ID) != nil || c.Sum.ID != c.ID || c.Sum.Damaged != "" {
			return nil, fmt.Errorf("%w: entry %d: bad id %q", errStaleCache, i, c.ID)
		}
		files[c.ID] = &fileEntry{st: stamp{dev: c.Dev, ino: c.Ino, size: c.Size, mtime: c.MTime, ok: true}, sum: c.Sum}
	}
	return files, nil
}

// checkListingCache checks the header line and returns the JSON after it
// and the number of entries it says the JSON holds.
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
	// Each entry takes more than 64 bytes: a larger count is a lie.
	return body, min(n, len(body)/64), nil
}

// encodeListingCache makes the file's bytes from entries, sorted by ID.
func encodeListingCache(files map[string]*fileEntry) ([]byte, error) {
	list := make([]cachedEntry, 0, len(files))
	for id, e := range files {
		list = append(list, cachedEntry{ID: id, Dev: e.st.dev, Ino: e.st.ino, Size: e.st.size, MTime: e.st.mtime, Sum: e.sum})
	}
	slices.SortFunc(list, func(a, b cachedEntry) int { return strings.Compare(a.ID, b.ID) })
	body, err := json.Marshal(list)
	if err != nil {
		return nil, fmt.Errorf("encode listing cache: %w", err)
	}
	head := fmt.Sprintf("%s %08x %d %d\n", listingCacheMagic, crc32.Checksum(body, castagnoli), len(body), len(list))
	return append([]byte(head), body...), nil
}

// cacheable reports whether e may go into the listing cache: a summary of
// the file as it is (not ahead of it), healthy, whose stat was taken long
// enough after its last change to vouch for its content (recentWindow).
func (e *fileEntry) cacheable() bool {
	return e.st.ok && !e.recent && !e.ahead && e.sum.Damaged == ""
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
		data, err := encodeListingCache(files)
		if err == nil {
			err = writeFileAtomic(dir, ListingCacheName, data, 0o600)
		}
		if err != nil {
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
// written again.
func (s *Store) seedFromListingCache(dir string) {
	if !s.cache.wantSeed(dir) {
		return
	}
	files, err := readListingCache(dir)
	if err != nil {
		s.log.Warn("reading every session instead of the listing cache", "folder", dir, "err", err)
	}
	s.cache.seed(dir, files)
}

// wantSeed reports whether dir has never been scanned nor seeded, and
// marks it seeded.
func (c *listCache) wantSeed(dir string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder(dir)
	if f.seeded || f.info != nil {
		return false
	}
	f.seeded = true
	return true
}

// seed adds files to dir's entries where it has none. The folder is dirty
// (its cache due to be written) unless the cache gave every entry: the
// first scan marks it dirty again if any entry is replaced.
func (c *listCache) seed(dir string, files map[string]*fileEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder(dir)
	f.dirty = files == nil
	if len(files) == 0 {
		return
	}
	for id, e := range files {
		if _, ok := f.files[id]; !ok {
			f.files[id] = e
		}
	}
	c.bump()
}
