package session

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// scan calls visit for every readable session that may hold every word of
// m, newest first, until visit returns false. doc is the session's
// document, or nil when the prefilter found that only its sidecars, which
// are not in the document, can match; sidecars says it may have some.
//
// The cost of a search over many small sessions is per file, not per
// byte (docs/PERFORMANCE.md, "Issue 21: search"): one read of each folder
// (a census) says which sessions have a journal or a sidecar, so that a
// session with neither costs one open, one stat, one read and one close,
// and no failed open of a file that is not there.
func (s *Store) scan(m *matcher, visit func(sum Summary, doc *Document, sidecars bool) bool) error {
	// The census and the listing each read both folders: at once, on
	// the two cores, they take the time of the longer.
	var cen census
	var cenErr error
	var wg sync.WaitGroup
	wg.Go(func() { cen, cenErr = s.takeCensus() })
	cands, err := s.searchOrder()
	wg.Wait()
	if err = cmp.Or(err, cenErr); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	bufs := make([][]byte, searchWorkers)
	for start := 0; start < len(cands); start += searchBatch {
		batch := cands[start:min(start+searchBatch, len(cands))]
		for i, may := range prefilter(batch, m, cen, bufs) {
			sum := *batch[i].sum
			sidecars := cen.sidecar[sum.ID]
			if !may && !sidecars {
				continue // nothing of it can match
			}
			var doc *Document
			if may {
				doc, err = s.Load(sum.ID)
				if errors.Is(err, ErrNotFound) || errors.Is(err, ErrDamaged) {
					continue // moved away or damaged since the listing
				}
				if err != nil {
					return fmt.Errorf("search: %w", err)
				}
			}
			if !visit(sum, doc, sidecars) {
				return nil
			}
		}
	}
	return nil
}

// searchBatch is how many sessions the prefilter looks at before the hits
// are collected in order: enough to keep both workers busy, few enough not
// to read far past the limit.
const searchBatch = 64

// searchWorkers is how many goroutines read and prefilter documents: the
// scan is bound by lowercasing bytes, and the target machine has 2 cores.
const searchWorkers = 2

// candidate is a session a search looks at, and the folder its listing
// found it in.
type candidate struct {
	sum *Summary // into the listing: a Summary is big to copy
	dir string
}

// census is which sessions had a journal, and which a historical sidecar
// (in either folder), when a search began.
//
// A journal created after the census holds only records written after
// the search began, which a search may miss; a journal the census saw is
// read, and checked against a fold (readRaw). Nothing writes sidecars
// any more: archive and restore move them, which the census, read
// folder by folder, may see in either.
type census struct {
	journal map[string]bool
	sidecar map[string]bool
}

// takeCensus reads the names in the store's two folders.
func (s *Store) takeCensus() (census, error) {
	c := census{journal: map[string]bool{}, sidecar: map[string]bool{}}
	for _, dir := range []string{s.dir, s.archivedDir} {
		names, err := readNames(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return c, err
		}
		for _, name := range names {
			switch id, ext, _ := strings.Cut(name, "."); ext {
			case "journal":
				c.journal[id] = true
			case SidecarReadline, SidecarConsole:
				c.sidecar[id] = true
			}
		}
	}
	return c, nil
}

// readNames lists the names in dir, unsorted: a census needs no order.
func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	return names, nil
}

// prefilter reports, for each session of batch, whether its document and
// journal may hold every word of m once decoded. Sessions that cannot be
// read raw report true: Load then says what is wrong with them. Worker w
// reads into bufs[w], kept from batch to batch.
func prefilter(batch []candidate, m *matcher, cen census, bufs [][]byte) []bool {
	may := make([]bool, len(batch))
	var next atomic.Int64 // the next session to take: no channel, no hand-off
	var wg sync.WaitGroup
	for w := range min(len(bufs), len(batch)) {
		wg.Go(func() {
			buf := bufs[w]
			defer func() { bufs[w] = buf }()
			for i := int(next.Add(1) - 1); i < len(batch); i = int(next.Add(1) - 1) {
				var raw []byte
				raw, buf = readRaw(batch[i], cen.journal[batch[i].sum.ID], buf[:0])
				if raw != nil && !m.ascii {
					lowerInPlace(raw) // an ASCII query folds case as it searches
				}
				may[i] = raw == nil || m.mayMatch(raw)
			}
		})
	}
	wg.Wait()
	return may
}

// readRaw appends the bytes of c's document to buf, and when it has a
// journal, a newline and the journal's. It returns nil when they cannot
// be read, or when the document was replaced while they were read (a fold
// moves records from the journal into the document: the two could miss
// them both). A document is only ever replaced whole (renamed over), so
// without a journal there is nothing to check.
func readRaw(c candidate, journal bool, buf []byte) (raw, grown []byte) {
	path := filepath.Join(c.dir, c.sum.ID+".json")
	buf, before, err := appendDocument(buf, path)
	if err != nil {
		return nil, buf
	}
	if !journal {
		return buf, buf
	}
	buf = append(buf, '\n')
	if buf, err = appendFile(buf, journalPath(c.dir, c.sum.ID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, buf
	}
	var after syscall.Stat_t
	if err := ignoringEINTR(func() error { return syscall.Stat(path, &after) }); err != nil ||
		after.Dev != before.Dev || after.Ino != before.Ino {
		return nil, buf
	}
	return buf, buf
}

// appendDocument appends the bytes of the regular file at path (a link is
// not followed) to buf, and returns its status. It reads as many bytes as
// the file had when opened: a document is never written in place.
//
// It makes the system calls itself, four per file: an *os.File costs an
// allocation and a fifth call (registering the file with the poller,
// which fails for a regular file), and a search over 10,000 small
// sessions is mostly these calls.
func appendDocument(buf []byte, path string) ([]byte, syscall.Stat_t, error) {
	var st syscall.Stat_t
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return buf, st, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	if err := ignoringEINTR(func() error { return syscall.Fstat(fd, &st) }); err != nil {
		return buf, st, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		return buf, st, &DamagedError{Path: path, Reason: "not a regular file"}
	case st.Size > MaxDocumentSize:
		return buf, st, tooLarge(path, MaxDocumentSize)
	}
	start := len(buf)
	buf = slices.Grow(buf, int(st.Size))[:start+int(st.Size)]
	for off := start; off < len(buf); {
		var n int
		err := ignoringEINTR(func() (err error) {
			n, err = syscall.Read(fd, buf[off:])
			return err
		})
		if err != nil {
			return buf[:start], st, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf[:start], st, &fs.PathError{Op: "read", Path: path, Err: io.ErrUnexpectedEOF}
		}
		off += n
	}
	return buf, st, nil
}

// ignoringEINTR calls f until it fails with something other than EINTR.
func ignoringEINTR(f func() error) error {
	for {
		if err := f(); !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// appendFile appends the bytes of the file at path to buf, up to its end
// when read: a journal grows while it is read.
func appendFile(buf []byte, path string) ([]byte, error) {
	f, info, err := openRegular(path)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	if info.Size() > MaxDocumentSize {
		return buf, tooLarge(path, MaxDocumentSize)
	}
	buf = slices.Grow(buf, int(info.Size())+1)
	start := len(buf)
	for {
		if len(buf)-start > MaxDocumentSize {
			return buf, tooLarge(path, MaxDocumentSize)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):min(cap(buf), start+MaxDocumentSize+1)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, 4096)
		}
	}
}

// searchOrder lists every readable session, active and archived, the
// person's own and sub-agents', newest
// first, each with the folder it was listed in. The listing's cache makes
// this cheap; damaged documents are left out before anything opens them
// again.
func (s *Store) searchOrder() ([]candidate, error) {
	// Sub-agents' sessions too: what a sub-agent found is the person's to
	// find. List's slices are shared and read only: the candidates point
	// into them.
	var active, archived [][]Summary
	n, nArchived := 0, 0
	for _, sub := range []bool{false, true} {
		a, err := s.List(ListOptions{Subagents: sub})
		if err != nil {
			return nil, err
		}
		b, err := s.List(ListOptions{Archived: true, Subagents: sub})
		if err != nil {
			return nil, err
		}
		active, archived = append(active, a), append(archived, b)
		n, nArchived = n+len(a)+len(b), nArchived+len(b)
	}
	// A session listed in both folders (moved while they were listed)
	// is searched once, where the listing found it active.
	inArchive := make(map[string]bool, nArchived)
	for _, sums := range archived {
		for _, sum := range sums {
			inArchive[sum.ID] = true
		}
	}
	out := make([]candidate, 0, n)
	for _, sums := range active {
		for i := range sums {
			if sums[i].Damaged == "" {
				out = append(out, candidate{sum: &sums[i], dir: s.dir})
				delete(inArchive, sums[i].ID)
			}
		}
	}
	for _, sums := range archived {
		for i := range sums {
			if sums[i].Damaged == "" && inArchive[sums[i].ID] {
				out = append(out, candidate{sum: &sums[i], dir: s.archivedDir})
			}
		}
	}
	slices.SortFunc(out, func(a, b candidate) int { return newestFirst(a.sum, b.sum) })
	return out, nil
}
