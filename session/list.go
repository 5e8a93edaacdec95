package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// listCache is the store's one cache of what its documents say. For each
// folder it keeps every document's summary, with the stat it was read or
// written under and the summary encoded as the API answers it; and it
// keeps the last listing of each kind, sorted and encoded. This store's own
// writes and moves update it directly (noteWritten, noteMoved), so the
// next listing reads nothing; changes made by anyone else are found by the
// folder's stat and each file's stat.
type listCache struct {
	mu  sync.Mutex
	gen uint64 // bumped by every change of what a listing returns
	// changed is closed by the next bump: a watcher of the listing waits
	// on it instead of polling for this store's own changes.
	changed chan struct{}
	folders map[string]*folder
	views   [4]*listView // by ListOptions (viewKey); nil until built
	// scans counts the scans that stat every document (scanFiles past a
	// quick start), for the tests.
	scans atomic.Int64
}

// folder is what the cache knows of one folder of documents.
type folder struct {
	// files are the folder's documents by ID, as of the last scan plus
	// this store's own writes and moves since.
	files map[string]*fileEntry
	// info is the folder's stat when files was last known complete (nil:
	// never). While the stat is unchanged and the last full scan is
	// younger than folderTTL, files stand without a stat of any file.
	info fs.FileInfo
	// recent: a full scan found the folder changed within recentWindow,
	// so (as for a file) its stat alone cannot tell a later change apart
	// and the next listing scans again.
	recent bool
	at     time.Time // when the last full scan began, by the store's clock
	// noted counts this store's changes to the folder, and infoNoted how
	// many of them info reflects: with more, a changed stat may be only
	// this store's doing.
	noted, infoNoted uint64
	// lastNote is the cache's gen at this store's last change here: an
	// observation begun before it may be out of date.
	lastNote uint64
	// dirty: files changed since the folder's listing cache was read or
	// written (SaveListingCache); seeded: the cache was read, or tried.
	dirty, seeded bool
	// checkDone is closed when the background check of an expired scan
	// that runs ends; nil when none runs.
	checkDone chan struct{}
	// unchecked: files came from the listing cache at start without a
	// stat of each document (Options.CheckLater); a check in the
	// background vouches for them (list_start.go).
	unchecked bool
	// opened is the folder's names as Open read them, for the start's
	// first uses; nil once taken or out of date.
	opened *folderRead
	// order is files in the listing cache's order (newest first), as the
	// start read it, for view: a sort of 10,000 entries taken from a map
	// in random order was a few ms of the start's first page. Checked
	// before use (ordered), dropped once files differ.
	order []*fileEntry
	// prefetch is the read of the folder's listing cache that Open
	// started (Options.CheckLater), until a seed takes it or a scan makes
	// it moot: dropping it lets its entries go.
	prefetch <-chan cacheRead
	// scanMu is held by the scan of the folder that runs (scanOnce).
	scanMu sync.Mutex
}

// ordered returns f's entries in the listing cache's order if they are
// still exactly the cache's, else nil, dropping that order for good.
func (f *folder) ordered() []*fileEntry {
	if f.order == nil {
		return nil
	}
	if len(f.order) == len(f.files) {
		same := true
		for _, e := range f.order {
			if f.files[e.id] != e {
				same = false
				break
			}
		}
		if same {
			return f.order
		}
	}
	f.order = nil
	return nil
}

// fileEntry is one document as the cache knows it. An entry is never
// changed once made, so a listing may keep it.
//
// Its head (ID, update time, flags, parent) is what every listing sorts and
// filters 10,000 entries by. The rest of the summary is either the
// entry's own (full, from a document read or written) or, for an entry
// the start read from the listing cache, its bytes in the cache's body
// (raw), decoded when a page, the JSON list or a search reaches it: a
// restart then makes 120 bytes an entry, not 400, before its first page,
// and a process that lists 100 rows at a time never holds the rest
// decoded (docs/PERFORMANCE.md, "A listing decoded when it is read").
type fileEntry struct {
	st      stamp
	id      string
	updated time.Time
	flags   byte   // flagArchived, flagSubagent, flagPinned, flagUnencodable
	parent  string // the session it was forked from: a session's page finds its forks by it
	full    *Summary
	raw     string // the cache's encoding of the entry, when full is nil
	// recent: the file had changed within recentWindow of when its stat
	// was taken, so that stat alone cannot tell a later change apart. The
	// entry serves listings, but the next stat of the file reads it again.
	recent bool
	// ahead: the summary is ahead of the file, with changes this store's
	// writer has journaled but not yet folded into it (noteChanged). It
	// stands while the file's stat is unchanged, recent or not: the writer
	// holds the lock, and its next fold replaces the file.
	ahead bool
	// loaded: this store decoded or encoded the whole document, so it is
	// known good (checkOverwrite), not only summarised.
	loaded bool
	seq    uint64 // the cache's gen when this store noted it; 0 if scanned
}

// flagUnencodable, beside the cache's flags in fileEntry.flags: a time
// of the summary that JSON cannot hold (encodableYears).
const flagUnencodable = 1 << 7

// headFlags are the flags of sum that an entry's head keeps.
func headFlags(sum *Summary) byte {
	f := cacheFlags(sum) & (flagArchived | flagSubagent | flagPinned)
	if !encodableYears(sum) {
		f |= flagUnencodable
	}
	return f
}

func (e *fileEntry) archived() bool { return e.flags&flagArchived != 0 }
func (e *fileEntry) subagent() bool { return e.flags&flagSubagent != 0 }
func (e *fileEntry) pinned() bool   { return e.flags&flagPinned != 0 }

// damaged reports whether e summarises a damaged document; the listing
// cache holds none.
func (e *fileEntry) damaged() bool { return e.full != nil && e.full.Damaged != "" }

// summary is e's summary. A cached entry's is decoded anew, its strings
// slices of the cache's body, its Usage and Tags its own.
func (e *fileEntry) summary() Summary {
	if e.full != nil {
		return *e.full
	}
	var sum Summary
	r := cacheReader{exact: true}
	r.summaryOf(e, &sum)
	return sum
}

// ownEntry is a fileEntry with its summary, in one allocation.
type ownEntry struct {
	fileEntry
	sum Summary
}

// listView is one listing as it was at gen: its entries newest first,
// shared read-only by every List until the listing changes. An entry's
// summary is never changed once made (a change makes a new entry), so
// the view holds the entries themselves. Whole []Summary copies (2.2 MB
// for 10,000 sessions, most of a restart's first page on a machine where
// each fresh page of memory costs ~15 us) are made only for List's
// callers, once a view; a page (ListPage) and the JSON copy none.
type listView struct {
	gen     uint64
	entries []*fileEntry
	once    sync.Once
	sums    []Summary // made by the first List of this view
	// unencodable is the first entry whose times JSON cannot hold (a year
	// outside 0–9999), found as the view is made: writeJSON fails before
	// its first write without a pass of its own over 10,000 entries.
	unencodable *fileEntry
}

// encodableYears reports whether encoding/json can encode sum's times.
func encodableYears(sum *Summary) bool {
	y1, y2 := sum.CreatedAt.Year(), sum.UpdatedAt.Year()
	return y1 >= 0 && y1 <= 9999 && y2 >= 0 && y2 <= 9999
}

// summaries is the view as a []Summary, made on the first call.
func (v *listView) summaries() []Summary {
	v.once.Do(func() {
		v.sums = make([]Summary, len(v.entries))
		var r cacheReader // one Usage slab for every cached entry
		for i, e := range v.entries {
			r.summaryOf(e, &v.sums[i])
		}
	})
	return v.sums
}

// folderTTL is how long a folder's scan is trusted while its stat is
// unchanged. A save that renames a new file into place changes the folder,
// but an editor that writes into the old file does not: its edit shows
// once the scan expires. The same bound covers a change another process
// makes to the folder in the same clock tick as one a listing already saw
// (the folder's stat cannot tell them apart), and another process's save
// of an existing document between two listings in which this store also
// wrote to the folder (see noteWritten).
const folderTTL = 10 * time.Second

// recentWindow is how fresh a file may be for its stat alone to vouch for
// its content: a save in the same coarse clock tick as the last one,
// reusing its inode and size, would otherwise look unchanged on kernels
// with coarse file times. A fresher file is read again at its next stat.
const recentWindow = 2 * time.Second

func newListCache() *listCache {
	return &listCache{folders: map[string]*folder{}, changed: make(chan struct{})}
}

// bump marks a change of what a listing returns; c.mu is held.
func (c *listCache) bump() {
	c.gen++
	close(c.changed)
	c.changed = make(chan struct{})
}

// ListChanged returns a channel closed at the next change this store makes
// or finds to what List returns: a write, a move, a file read or a scan
// that found another process's change. Changes by other processes are
// found only by listing, so a watcher still lists from time to time.
func (s *Store) ListChanged() <-chan struct{} {
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	return s.cache.changed
}

// folder returns dir's entry, made empty if absent; c.mu is held.
func (c *listCache) folder(dir string) *folder {
	f, ok := c.folders[dir]
	if !ok {
		f = &folder{files: map[string]*fileEntry{}}
		c.folders[dir] = f
	}
	return f
}

// newEntry makes the entry of a document whose stat st was taken no
// earlier than now.
func newEntry(st stamp, sum Summary, now time.Time) *fileEntry {
	o := &ownEntry{sum: sum}
	o.fileEntry = fileEntry{
		st: st, id: sum.ID, updated: sum.UpdatedAt, flags: headFlags(&sum), parent: sum.Parent, full: &o.sum,
		recent: !st.ok || now.Sub(st.modTime()) < recentWindow,
	}
	return &o.fileEntry
}

// noteWritten tells the listing that this store has just written doc to
// dir/<doc.ID>.json, whose stat (taken after the rename into place) is
// info. The next listing shows it without reading the file or the folder
// again. Every write of a document by this store calls it once the file
// is in place, and only then.
//
// The rename changes the folder's stat; the next listing then reads the
// folder's names only (no stat of each file), and if they are the ones the
// cache has, trusts the cache. A new or removed document still shows at
// once; another process's save of an existing document made between two
// listings in which this store also wrote shows within folderTTL.
func (s *Store) noteWritten(dir string, doc *Document, info fs.FileInfo) {
	e := newEntry(stampOf(info), doc.Summarize(), s.now())
	e.loaded = true
	c := s.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder(dir)
	c.bump()
	e.seq = c.gen
	f.files[doc.ID] = e
	f.noted++
	f.lastNote = c.gen
	f.dirty = true
}

// noteRead tells the cache that this store has decoded doc, whole and
// healthy, from dir/<doc.ID>.json under stat info, so that knows vouches
// for it. It adds a document the cache did not have, but never replaces a
// summary the cache has under another stat: a read that raced with a
// save would put an old one back.
func (s *Store) noteRead(dir string, doc *Document, info fs.FileInfo) {
	e := newEntry(stampOf(info), doc.Summarize(), s.now())
	e.loaded = true
	c := s.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder(dir)
	switch cur, ok := f.files[doc.ID]; {
	case !ok:
		c.bump()
		e.seq = c.gen
		f.files[doc.ID] = e
		f.dirty = true
	case cur.st.same(stampOf(info)) && !cur.loaded:
		loaded := *cur // the same summary: no listing changes
		loaded.loaded = true
		f.files[doc.ID] = &loaded
	}
}

// knows reports whether dir/<id>.json, now under stat info, is a document
// this store itself decoded or wrote, unchanged since.
func (s *Store) knows(dir, id string, info fs.FileInfo) bool {
	c := s.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.folders[dir]
	if !ok {
		return false
	}
	e, ok := f.files[id]
	return ok && e.loaded && !e.damaged() && e.st.same(stampOf(info))
}

// noteChanged tells the listing that session id in dir, whose writer this
// store holds, now says doc: a change journaled but not yet folded into
// the file, whose stat is still the one the cache has. The next listing
// shows it. It reads no file, so a writer may call it under its mutex;
// after a fold (noteWritten) it is due again for changes made meanwhile.
func (s *Store) noteChanged(dir string, doc *Document) {
	sum := doc.Summarize()
	now := s.now()
	c := s.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder(dir)
	cur, ok := f.files[doc.ID]
	if !ok || cur.summary().equal(sum) {
		return // not known here: the next scan reads the file
	}
	e := newEntry(cur.st, sum, now)
	e.recent, e.loaded, e.ahead = cur.recent, cur.loaded, true
	c.bump()
	e.seq = c.gen
	f.files[doc.ID] = e
	f.lastNote = c.gen
	f.dirty = true
}

// noteMoved tells the listing that this store has just moved session id's
// document from one folder to the other (archive, restore). A rename keeps
// the file's stat, so its entry moves as it is.
func (s *Store) noteMoved(id, from, to string) {
	c := s.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	src, dst := c.folder(from), c.folder(to)
	c.bump()
	for _, f := range []*folder{src, dst} {
		f.noted++
		f.lastNote = c.gen
		f.dirty = true
	}
	e, ok := src.files[id]
	if !ok {
		dst.info = nil // not known where it came from: read the folder again
		return
	}
	delete(src.files, id)
	moved := *e
	moved.seq = c.gen
	dst.files[id] = &moved
}

// observe keeps what a stat and read begun at gen since found, unless this
// store changed the folder in the meantime.
func (c *listCache) observe(dir, id string, e *fileEntry, since uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder(dir)
	if f.lastNote > since || f.files[id] == e {
		return
	}
	c.bump()
	f.files[id] = e
	f.dirty = true
}

// lookup returns the entry of dir/<id>.json if the cache has one that its
// stat info vouches for.
func (c *listCache) lookup(dir, id string, info fs.FileInfo) (*fileEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.folders[dir]
	if !ok {
		return nil, false
	}
	e, ok := f.files[id]
	if !ok || (e.recent && !e.ahead) || !e.st.same(stampOf(info)) {
		return nil, false
	}
	return e, true
}

// folderCheck is what a folder's stat says about the cache's entries.
type folderCheck int

const (
	folderScan      folderCheck = iota // unknown or changed: stat every file
	folderUnchanged                    // the entries stand
	folderOwnWrites                    // changed, maybe only by this store
	folderExpired                      // unchanged, but its scan is older than folderTTL
	folderRecent                       // unchanged, but changed within recentWindow of its scan
)

// begin returns how many of this store's changes dir has seen and the
// cache's gen: read before a stat, they date what the stat shows.
func (c *listCache) begin(dir string) (noted, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.folder(dir).noted, c.gen
}

// check says what dir's stat info, taken at now after begin returned
// noted, means for its entries.
func (c *listCache) check(dir string, info fs.FileInfo, now time.Time) folderCheck {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder(dir)
	expired := now.Sub(f.at) >= folderTTL
	switch {
	case f.info == nil || now.Before(f.at):
		return folderScan
	case sameFile(f.info, info) && !f.recent && (expired || f.unchecked):
		return folderExpired
	case sameFile(f.info, info) && !f.recent:
		return folderUnchanged
	case expired:
		return folderScan
	case f.noted > f.infoNoted:
		return folderOwnWrites
	case sameFile(f.info, info):
		// The folder had changed within recentWindow of its last scan, so
		// its stat alone cannot vouch that no name came or went since, in
		// the same clock tick. Its names can, as after this store's own
		// writes: a stat of every document (10,000 of them, ~8 MB of
		// garbage) at each listing for two seconds after any save was the
		// load run's peak. A document replaced in that same tick, names
		// unchanged, shows when the scan expires (folderTTL), as an edit
		// in place always does.
		return folderRecent
	}
	return folderScan
}

// startCheck reports whether no background check of dir runs, and marks
// one running; done is closed when the one that runs ends.
func (c *listCache) startCheck(dir string) (done chan struct{}, started bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder(dir)
	if f.checkDone != nil {
		return f.checkDone, false
	}
	f.checkDone = make(chan struct{})
	return f.checkDone, true
}

func (c *listCache) endCheck(dir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder(dir)
	close(f.checkDone)
	f.checkDone = nil
}

// adopt takes info as dir's stat if the folder's documents are exactly the
// entries the cache has (ids, read after info); noted is what begin
// returned before info was taken.
func (c *listCache) adopt(dir string, info fs.FileInfo, ids []string, noted uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder(dir)
	if len(ids) != len(f.files) {
		return false
	}
	for _, id := range ids {
		if _, ok := f.files[id]; !ok {
			return false
		}
	}
	f.info, f.infoNoted, f.recent = info, noted, false
	return true
}

// entries returns a copy of dir's entries.
func (c *listCache) entries(dir string) map[string]*fileEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.folder(dir).files)
}

// commit keeps a full scan of dir begun at at, under the folder's stat
// info, after begin returned noted and gen. Documents this store wrote or
// moved in during the scan keep what it noted: the scan may have seen the
// file before.
func (c *listCache) commit(dir string, files map[string]*fileEntry, info fs.FileInfo, at time.Time, noted, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder(dir)
	f.prefetch = nil
	for id, e := range f.files {
		if e.seq > gen {
			files[id] = e
		}
	}
	changed := len(files) != len(f.files)
	for id, e := range files {
		if changed {
			break
		}
		changed = f.files[id] != e
	}
	f.files, f.info, f.at, f.infoNoted = files, info, at, noted
	f.recent = at.Sub(info.ModTime()) < recentWindow
	f.unchecked = false
	if changed {
		c.bump()
		f.dirty = true
	}
}

// view returns the listing of the cache's entries opts asks for: active
// or archived sessions (from the active and archived folders), the
// person's own or sub-agents'. An unchanged one is kept, sorted and
// encoded.
func (c *listCache) view(active, archived string, opts ListOptions) *listView {
	k := 0
	if opts.Archived {
		k |= 1
	}
	if opts.Subagents {
		k |= 2
	}
	wanted := func(e *fileEntry) bool { return e.archived() == opts.Archived && e.subagent() == opts.Subagents }
	c.mu.Lock()
	if v := c.views[k]; v != nil && v.gen == c.gen {
		c.mu.Unlock()
		return v
	}
	gen := c.gen
	var entries []*fileEntry
	if opts.Archived {
		// Everything in the archive folder is archived, whatever its
		// document says (an archive cut short).
		f := c.folder(archived)
		order := f.ordered()
		if order == nil {
			order = slices.AppendSeq(order, maps.Values(f.files))
		}
		for _, e := range order {
			if e.subagent() == opts.Subagents {
				entries = append(entries, e)
			}
		}
	}
	f := c.folder(active)
	if order := f.ordered(); order != nil {
		for _, e := range order {
			if wanted(e) {
				entries = append(entries, e)
			}
		}
	} else {
		for _, e := range f.files {
			if wanted(e) {
				entries = append(entries, e)
			}
		}
	}
	c.mu.Unlock()

	// Sorted outside the lock: saves note their writes meanwhile. Entries
	// in the listing cache's order are sorted already, and a check of that
	// is a tenth of a sort.
	byNewest := entryOrder
	if !slices.IsSortedFunc(entries, byNewest) {
		slices.SortFunc(entries, byNewest)
	}
	v := &listView{gen: gen, entries: entries}
	for _, e := range entries {
		if e.flags&flagUnencodable != 0 {
			v.unencodable = e
			break
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur := c.views[k]; cur == nil || cur.gen < gen {
		c.views[k] = v
	}
	return v
}

// writeJSON writes the view as a JSON array, as encoding/json encodes
// []Summary (echo's c.JSON), with its final newline. It encodes as it
// writes, a few KB at a time: the listing's JSON is never held whole.
// Nothing is written if a summary cannot be encoded.
func (v *listView) writeJSON(w io.Writer) error {
	if e := v.unencodable; e != nil {
		sum := e.summary()
		_, err := appendSummaryJSON(nil, &sum) // encoding/json's own error
		return fmt.Errorf("encode session %s: %w", e.id, err)
	}
	b := make([]byte, 0, 32<<10)
	b = append(b, '[')
	var r cacheReader
	var sum Summary
	for i, e := range v.entries {
		if i > 0 {
			b = append(b, ',')
		}
		sum = Summary{}
		r.usages = r.usages[:0] // the summary is encoded, not kept
		r.summaryOf(e, &sum)
		var err error
		if b, err = appendSummaryJSON(b, &sum); err != nil {
			return fmt.Errorf("encode session %s: %w", e.id, err)
		}
		if len(b) >= 28<<10 {
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	_, err := w.Write(append(b, ']', '\n'))
	return err
}

// ListOptions choose what List returns.
type ListOptions struct {
	// Archived lists archived sessions instead of active ones.
	Archived bool
	// Subagents lists sub-agents' sessions instead of the person's own:
	// a sub-agent's session belongs under its parent, not among the
	// sessions a person started.
	Subagents bool
}

// List returns summaries pinned first, then newest first (by
// updated_at): a caller that wants the newest skips the pinned ones or
// looks at them all. Active listing reads
// session/ only; a document there that says it is archived (an archive cut
// short, waiting for MigrateArchived) is listed with the archived ones.
// Damaged documents are included with Damaged set and their file time as
// UpdatedAt; they are only read, never touched.
//
// The slice is shared by every call until the listing changes: read only
// (appending to it copies it). A page of 100 rows of a profile of 10,000
// sessions used to copy all 10,000 summaries, 2.4 MB, on each request.
func (s *Store) List(opts ListOptions) ([]Summary, error) {
	v, err := s.listView(opts)
	if err != nil {
		return nil, err
	}
	return slices.Clip(v.summaries()), nil
}

// Summaries is what List returns, one summary at a time, and how many,
// without copying the listing into a slice: for a caller that only
// passes over it.
func (s *Store) Summaries(opts ListOptions) (iter.Seq[Summary], int, error) {
	v, err := s.listView(opts)
	if err != nil {
		return nil, 0, err
	}
	return func(yield func(Summary) bool) {
		var r cacheReader
		for _, e := range v.entries {
			var sum Summary
			r.summaryOf(e, &sum)
			if !yield(sum) {
				return
			}
		}
	}, len(v.entries), nil
}

// Listed is one session of a listing, its summary decoded when asked for
// (a restart leaves most of them in the listing cache's bytes). Two Listed
// that are == say the same: a change to a session makes a new one. A
// caller that passes over the whole listing again and again (the
// profile's feed of changes, at every change) keeps what it made of each
// and decodes only the sessions that changed.
type Listed struct{ e *fileEntry }

// ID is the session's ID.
func (l Listed) ID() string { return l.e.id }

// Parent is the ID of the session this one was forked from, if any.
func (l Listed) Parent() string { return l.e.parent }

// Summary is the session's summary.
func (l Listed) Summary() Summary { return l.e.summary() }

// Listing is what Summaries yields, as Listed, and how many.
func (s *Store) Listing(opts ListOptions) (iter.Seq[Listed], int, error) {
	v, err := s.listView(opts)
	if err != nil {
		return nil, 0, err
	}
	return func(yield func(Listed) bool) {
		for _, e := range v.entries {
			if !yield(Listed{e}) {
				return
			}
		}
	}, len(v.entries), nil
}

// ListPage returns the summaries List would return at [from, to) (clamped
// to the listing), and how many List would return: a page of the home
// page or the sidebar copies its own rows only.
func (s *Store) ListPage(opts ListOptions, from, to int) (page []Summary, total int, err error) {
	v, err := s.listView(opts)
	if err != nil {
		return nil, 0, err
	}
	total = len(v.entries)
	from, to = min(max(from, 0), total), min(max(to, 0), total)
	if to <= from {
		return nil, total, nil
	}
	page = make([]Summary, to-from)
	var r cacheReader
	for i, e := range v.entries[from:to] {
		r.summaryOf(e, &page[i])
	}
	return page, total, nil
}

// WriteListJSON writes what List returns to w as a JSON array, as
// encoding/json encodes it, with a final newline. It encodes as it writes
// (about 3 ms for 10,000 sessions), so neither the store nor the call
// holds the whole listing's JSON. Nothing is written when it fails before
// the first write.
func (s *Store) WriteListJSON(w io.Writer, opts ListOptions) error {
	v, err := s.listView(opts)
	if err != nil {
		return err
	}
	return v.writeJSON(w)
}

// ListJSON is WriteListJSON into a new slice.
func (s *Store) ListJSON(opts ListOptions) ([]byte, error) {
	var buf bytes.Buffer
	if err := s.WriteListJSON(&buf, opts); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (s *Store) listView(opts ListOptions) (*listView, error) {
	if err := s.refresh(s.dir, false); err != nil {
		return nil, err
	}
	if opts.Archived {
		if err := s.refresh(s.archivedDir, false); err != nil {
			return nil, err
		}
	}
	v := s.cache.view(s.dir, s.archivedDir, opts)
	s.listedOnce.Do(func() { close(s.listed) })
	return v, nil
}

// entryOrder is a listing's order: pinned sessions first, then each
// part newest first, then by ID (as newestFirst orders summaries).
func entryOrder(a, b *fileEntry) int {
	if a.pinned() != b.pinned() {
		if a.pinned() {
			return -1
		}
		return 1
	}
	if c := b.updated.Compare(a.updated); c != 0 {
		return c
	}
	return strings.Compare(b.id, a.id)
}

// newestFirst orders by updated_at, newest first, then by ID. Pointers:
// a Summary is big enough that copying two per comparison shows.
func newestFirst(a, b *Summary) int {
	if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
		return c
	}
	return strings.Compare(b.ID, a.ID)
}

// scanDir brings dir's entries up to date, every document's stat checked,
// and returns their summaries.
func (s *Store) scanDir(dir string) ([]Summary, error) {
	if err := s.refresh(dir, true); err != nil {
		return nil, err
	}
	files := s.cache.entries(dir)
	sums := make([]Summary, 0, len(files))
	var r cacheReader
	for _, e := range files {
		sums = append(sums, Summary{})
		r.summaryOf(e, &sums[len(sums)-1])
	}
	return sums, nil
}

// refresh brings the cache's entries of dir up to date. An unchanged
// folder (every save renames a new file into place, which changes the
// folder) reads nothing. A folder changed by this store's writes only
// reads its names. Otherwise every file is stat'ed, and those whose stat
// changed are read in parallel. An expired scan, or one the start took
// from the listing cache unchecked, is checked in the background; with
// wait, refresh waits for that check.
func (s *Store) refresh(dir string, wait bool) error {
	// The clock and the count of this store's changes are read before any
	// stat, so neither a file nor a change is ever taken for older than it is.
	now := s.now()
	noted, gen := s.cache.begin(dir)
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("list sessions: %w", err)
	}
	switch s.cache.check(dir, info, now) {
	case folderUnchanged:
		return nil
	case folderExpired:
		done := s.checkInBackground(dir, info, now, noted, gen, nil)
		if wait {
			<-done
		}
		return nil
	case folderOwnWrites, folderRecent:
		ids, err := readIDs(dir)
		if err != nil {
			return err
		}
		if s.cache.adopt(dir, info, ids, noted) {
			return nil
		}
	}
	if err := s.scanOnce(dir, info, now, noted, gen); err != nil {
		return err
	}
	if wait {
		s.cache.waitCheck(dir) // the one a quick first scan started
	}
	return nil
}

// scanOnce is scanFiles, one at a time per folder. Listings that find
// the folder changed at the same moment (a burst of requests, several
// tabs after a save) wait for the scan that runs, and take its result if
// it began after they looked at the folder (at now), as a scan of their
// own would have. Each scan of 10,000 documents holds their names and
// stats, ~5 MB, while it runs: four at once were the load run's peak.
func (s *Store) scanOnce(dir string, info fs.FileInfo, now time.Time, noted, gen uint64) error {
	mu := s.cache.scanLock(dir)
	waited := !mu.TryLock()
	if waited {
		mu.Lock()
	}
	defer mu.Unlock()
	if waited {
		if s.cache.scannedAfter(dir, now) {
			return nil
		}
		// Look again, as refresh did: a scan that waited begins now, and
		// the listings that queued behind it meanwhile can take it.
		now = s.now()
		noted, gen = s.cache.begin(dir)
		var err error
		if info, err = os.Stat(dir); err != nil {
			return fmt.Errorf("list sessions: %w", err)
		}
	}
	return s.scanFiles(dir, info, now, noted, gen, true)
}

// scanLock is the lock scanOnce holds while it scans dir.
func (c *listCache) scanLock(dir string) *sync.Mutex {
	c.mu.Lock()
	defer c.mu.Unlock()
	return &c.folder(dir).scanMu
}

// scannedAfter reports whether dir's entries come from a scan that began
// after t.
func (c *listCache) scannedAfter(dir string, t time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.folder(dir)
	return f.info != nil && f.at.After(t)
}

// checkGrace is how long the start's check waits once the first listing
// has its answer: the first page is rendered from that listing next, and
// with the check's 10,000 lstats beside it on a machine of two cores its
// render took 10-13 ms, against 7-9 ms after the grace (timing marks,
// docs/PERFORMANCE.md "A restart's timeline").
const checkGrace = 50 * time.Millisecond

// checkInBackground stats every file of dir, unchanged but for edits in
// place, on a goroutine of its own, one at a time per folder. The listing
// that found the scan expired answers from the cache at once: a stat of
// 10,000 files is the tail of a listing otherwise. What the check finds
// shows in the next listing, and ListChanged tells watchers. The channel
// returned is closed when the check (this one or one already running)
// ends. A check with after begins checkGrace after after is closed, or
// checkDelay later at most.
func (s *Store) checkInBackground(dir string, info fs.FileInfo, now time.Time, noted, gen uint64, after <-chan struct{}) <-chan struct{} {
	done, started := s.cache.startCheck(dir)
	if !started {
		return done
	}
	go func() {
		defer s.cache.endCheck(dir)
		if after != nil {
			t := time.NewTimer(checkDelay)
			select {
			case <-after:
				time.Sleep(checkGrace)
			case <-t.C:
			}
			t.Stop()
		}
		if err := s.scanFiles(dir, info, now, noted, gen, false); err != nil {
			s.log.Warn("checking the session folder", "folder", dir, "err", err)
		}
	}()
	return done
}

// readIDs lists the IDs that dir's document names carry, reading names
// only: a folder entry that is not a regular file is counted as well,
// which at worst makes the caller scan the folder.
func readIDs(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	ids := names[:0]
	for _, name := range names {
		if id, ok := strings.CutSuffix(name, ".json"); ok && ValidateID(id) == nil {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// scanFiles reads dir's names and stats every document, reading those
// whose stat changed. With quick, a store that may check later
// (Options.CheckLater) takes a first scan's names, where they are exactly
// the listing cache's, as vouching for the cache until a check in the
// background.
func (s *Store) scanFiles(dir string, dirInfo fs.FileInfo, now time.Time, noted, gen uint64, quick bool) error {
	var entries []fs.DirEntry
	if quick && s.checkLater {
		var done bool
		var err error
		if entries, done, err = s.quickScan(dir, dirInfo, now, noted, gen); done || err != nil {
			return err
		}
	} else {
		var err error
		if entries, err = s.takeNames(dir, dirInfo); err != nil {
			return err
		}
		s.seedFromListingCache(dir)
	}
	s.cache.scans.Add(1)
	prev := s.cache.entries(dir)
	files := make(map[string]*fileEntry, len(entries))
	var misses []miss
	for _, e := range entries {
		id, ok := docID(e)
		if !ok {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // moved away since ReadDir
		} else if err != nil {
			return fmt.Errorf("list sessions: %w", err)
		}
		// The keys are the entries' own IDs, never id: a name is a slice
		// of every name the folder read (readFolder), and a key of the
		// listing would keep them all for as long as it stands.
		if p, ok := prev[id]; ok && (!p.recent || p.ahead) && p.st.same(stampOf(info)) {
			files[p.id] = p
			continue
		}
		misses = append(misses, miss{id: strings.Clone(id), path: filepath.Join(dir, e.Name()), info: info})
	}
	for _, m := range s.summarize(misses) {
		if !m.gone {
			files[m.id] = newEntry(stampOf(m.info), m.sum, now)
		}
	}
	s.cache.commit(dir, files, dirInfo, now, noted, gen)
	return nil
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
	// Any kind of entry counts, not only regular files: a folder, FIFO or
	// link named like a document is listed as damaged, saying what it is.
	if !ok || ValidateID(id) != nil {
		return "", false
	}
	return id, true
}

// summarize reads documents on a few goroutines: a cold listing of
// thousands of files is bound by syscalls and parsing, both parallel.
func (s *Store) summarize(misses []miss) []miss {
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
	return misses
}

func summarizeFile(m miss) (sum Summary, gone bool) {
	f, info, err := openRegular(m.path)
	if errors.Is(err, fs.ErrNotExist) {
		return Summary{}, true
	}
	var damaged *DamagedError
	if errors.As(err, &damaged) {
		return Summary{ID: m.id, UpdatedAt: m.info.ModTime(), Damaged: damaged.Reason}, false
	}
	if err != nil {
		return Summary{ID: m.id, UpdatedAt: m.info.ModTime(), Damaged: err.Error()}, false
	}
	defer f.Close()
	if info.Size() > MaxDocumentSize {
		return Summary{ID: m.id, UpdatedAt: m.info.ModTime(), Damaged: tooLarge(m.path, MaxDocumentSize).(*DamagedError).Reason}, false
	}
	r := newBoundedReader(f, MaxDocumentSize)
	sum, err = scanSummary(r, m.path, m.id)
	if r.Over() {
		// Grown past the bound since the fstat: whatever the decoder said.
		return Summary{ID: m.id, UpdatedAt: m.info.ModTime(), Damaged: tooLarge(m.path, MaxDocumentSize).(*DamagedError).Reason}, false
	}
	if err != nil {
		sum.UpdatedAt = m.info.ModTime()
	}
	return sum, false
}

// LastSession stands for the most recently active session wherever an ID
// is taken.
const LastSession = "@last"

// Resolve turns an ID or a unique prefix of one into the full ID, looking
// in both the active and the archived folder; LastSession is the most
// recently active session that is not archived, and a session's name
// (name.go) is that session. A name never looks like an ID prefix
// (ValidateName), so which of the two an argument is never depends on the
// order they are tried in.
func (s *Store) Resolve(prefix string) (string, error) {
	if prefix == LastSession {
		return s.last()
	}
	if ValidateName(prefix) == nil {
		ids, err := s.Named(prefix)
		if err != nil {
			return "", err
		}
		if len(ids) > 0 {
			return ids[0], nil
		}
	}
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

// last is the ID of the most recently active readable session.
func (s *Store) last() (string, error) {
	sums, err := s.List(ListOptions{})
	if err != nil {
		return "", err
	}
	// Pinned sessions come first whatever their age: the newest is the
	// newest of them or the first unpinned one.
	var last *Summary
	for i := range sums {
		sum := &sums[i]
		if sum.Damaged != "" || sum.Archived {
			continue
		}
		if last == nil || newestFirst(sum, last) < 0 {
			last = sum
		}
		if !sum.Pinned {
			break
		}
	}
	if last != nil {
		return last.ID, nil
	}
	return "", fmt.Errorf("%w: %s: there are no sessions", ErrNotFound, LastSession)
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
	_, gen := s.cache.begin(dir)
	info, err := os.Lstat(path)
	if err != nil {
		return Summary{}, fmt.Errorf("read session %s: %w", id, err)
	}
	e, ok := s.cache.lookup(dir, id, info)
	if !ok {
		sum, gone := summarizeFile(miss{id: id, path: path, info: info})
		if gone {
			return Summary{}, fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		e = newEntry(stampOf(info), sum, now)
		s.cache.observe(dir, id, e, gen)
	}
	sum := e.summary()
	if sum.Damaged != "" {
		return sum, &DamagedError{Path: path, Reason: sum.Damaged}
	}
	sum.Archived = sum.Archived || archived
	return sum, nil
}
