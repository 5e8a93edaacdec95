package session

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"myco/internal/atomicfile"
	"myco/internal/redact"
)

// ArchivedDir is the folder, inside the store's folder, of archived sessions.
const ArchivedDir = "archived"

// Store is a profile's session folder: documents in it are active, those in
// its archived/ folder are archived. One Store per folder per process: it
// owns the writer locks this process holds and serialises changes to one
// document.
type Store struct {
	dir, archivedDir string
	now              func() time.Time
	log              *slog.Logger

	mu     sync.Mutex
	locks  map[string]heldLock
	docMus map[string]*sync.Mutex
	cache  *listCache
	// cacheSaveMu serialises SaveListingCache.
	cacheSaveMu sync.Mutex
	// redactor replaces secrets in everything written; nil writes them.
	redactor *redact.Redactor
	// checkLater: Options.CheckLater. startMu serialises the quick first
	// scans it allows (quickScan).
	checkLater bool
	startMu    sync.Mutex
	// listed is closed when the first listing has its answer: the start's
	// check of every document waits for it (list_start.go).
	listed     chan struct{}
	listedOnce sync.Once
}

// Options tune a Store. The zero value is fine.
type Options struct {
	Now    func() time.Time // the clock; time.Now when nil
	Logger *slog.Logger     // slog.Default() when nil
	// Redactor replaces secrets in documents and journals as they are
	// written (the setting redact_secrets); nil writes text as it is.
	Redactor *redact.Redactor
	// CheckLater lets the first listing of a folder answer from its
	// listing cache when the folder's names are the cache's, and stat
	// every document in the background (list_start.go): a server's start,
	// whose first page should not wait for 10,000 stats. A command that
	// lists once and exits leaves it false.
	CheckLater bool
}

// Open opens the session store in dir, creating it and its archived folder
// (mode 0700) when absent, and removes temp files that an interrupted save
// left behind long ago.
func Open(dir string, opts Options) (*Store, error) {
	s := &Store{
		dir: dir, archivedDir: filepath.Join(dir, ArchivedDir), now: opts.Now,
		locks: map[string]heldLock{}, docMus: map[string]*sync.Mutex{},
		cache: newListCache(), redactor: opts.Redactor, checkLater: opts.CheckLater,
		listed: make(chan struct{}),
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log = opts.Logger; s.log == nil {
		s.log = slog.Default()
	}
	for _, d := range []string{s.dir, s.archivedDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("open session store: %w", err)
		}
	}
	if s.checkLater {
		for _, d := range []string{s.dir, s.archivedDir} {
			s.cache.folder(d).prefetch = prefetchListingCache(d) // not shared yet
		}
	}
	for _, d := range []string{s.dir, s.archivedDir} {
		if err := s.sweepTemps(d); err != nil {
			return nil, fmt.Errorf("open session store: %w", err)
		}
	}
	return s, nil
}

// sweepTemps removes what interrupted saves left in dir. It reads the
// folder once, unsorted, and sweeps only when it holds a temp file: a
// folder of 10,000 sessions holds 20,000 names, and a start should read
// them as few times as it can.
func (s *Store) sweepTemps(dir string) error {
	now := s.now()
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	entries, err := readDocs(dir)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return strings.HasPrefix(e.Name(), atomicfile.TempPrefix) }) {
		s.cache.keepRead(dir, info, entries, now) // for the start's next reads (list_start.go)
		return nil
	}
	if err := sweepTemp(dir); err != nil {
		return err
	}
	return s.sweepUnlockedTemp(dir)
}

// sweepUnlockedTemp removes the temp files of documents whose writer lock
// nobody holds, whatever their age: only a lock holder writes a document,
// so such a file is what a crash left in the middle of a save.
func (s *Store) sweepUnlockedTemp(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		id, ok := tempDocumentID(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if _, held, err := s.Owner(id); err != nil || held {
			continue
		}
		if err := sweepSessionTemp(dir, id); err != nil {
			return err
		}
	}
	return nil
}

// tempDocumentID is the session whose document a temp file name belongs to.
func tempDocumentID(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, atomicfile.TempPrefix)
	if !ok {
		return "", false
	}
	id, _, ok := strings.Cut(rest, ".json-")
	return id, ok && ValidateID(id) == nil
}

// ValidateID refuses anything that could not be a session ID, so that an ID
// taken from a URL or a command line can never name a path elsewhere: 1 to
// 128 ASCII letters, digits, '-' or '_', starting with a letter or digit.
// (A loop, not a regexp: listing calls it for every file of the folder.)
func ValidateID(id string) error {
	if len(id) == 0 || len(id) > 128 || id[0] == '-' || id[0] == '_' {
		return fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_') {
			return fmt.Errorf("%w: %q", ErrInvalidID, id)
		}
	}
	return nil
}

// NewSession is what Create needs; every field is optional.
type NewSession struct {
	Title, Model, Cwd string
	// Parent, for a sub-agent's session, names the session it works for;
	// Mode is the mode it starts in (a sub-agent of a session in plan mode
	// plans too).
	Parent *Parent
	Mode   string
	// MCPOff are the MCP servers turned off for it (a sub-agent's are its
	// parent's).
	MCPOff []string
	// Name is checked by the caller (ValidateName), which also takes it
	// from any other session that holds it.
	Name string
}

// Create makes a new session with a UUIDv7 ID (time-ordered) and one empty
// thread, and saves it.
func (s *Store) Create(n NewSession) (*Document, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	now := s.now().UTC()
	doc := &Document{
		Schema: Schema, ID: id.String(), Title: n.Title, Name: n.Name, Model: n.Model, Cwd: n.Cwd,
		Parent: n.Parent, Mode: n.Mode, MCPOff: slices.Clone(n.MCPOff),
		CreatedAt: now, UpdatedAt: now,
		Threads: []Thread{{CreatedAt: now, Messages: []Message{}}},
	}
	if err := s.Save(doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// docMu serialises read-modify-write of one document within this process.
func (s *Store) docMu(id string) *sync.Mutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	mu, ok := s.docMus[id]
	if !ok {
		mu = &sync.Mutex{}
		s.docMus[id] = mu
	}
	return mu
}

// locate finds the folder holding session id's document.
func (s *Store) locate(id string) (dir string, archived bool, err error) {
	if err := ValidateID(id); err != nil {
		return "", false, err
	}
	if _, err := os.Lstat(filepath.Join(s.dir, id+".json")); err == nil {
		return s.dir, false, nil
	}
	if _, err := os.Lstat(filepath.Join(s.archivedDir, id+".json")); err == nil {
		return s.archivedDir, true, nil
	}
	return "", false, fmt.Errorf("%w: %s", ErrNotFound, id)
}

// IsArchived reports whether session id sits in the archive folder.
func (s *Store) IsArchived(id string) (bool, error) {
	_, archived, err := s.locate(id)
	return archived, err
}

// Load reads and checks session id's document, active or archived, with
// the changes its journal holds that are not folded into it yet. What a
// crash cut short (an answer streaming, a tool running) is kept only when
// the session is opened for writing (OpenWriter): until then its writer may
// well be streaming it.
func (s *Store) Load(id string) (*Document, error) {
	dir, _, err := s.locate(id)
	if err != nil {
		return nil, err
	}
	return s.read(dir, id)
}

// read is loadFrom with the journal's changes applied: the session as
// its writer has it, but for the work in progress. Everything that reads
// a session's messages (Load, search, image references) goes through it,
// so an image named only in the journal is never collected.
func (s *Store) read(dir, id string) (*Document, error) {
	var doc *Document
	var recs []Record
	// A fold between reading the document and reading the journal would
	// hide the records it folded (the new document holds them, the old one
	// read here does not): read again when the document was replaced.
	path := filepath.Join(dir, id+".json")
	for range 3 {
		before, _ := os.Stat(path)
		var err error
		if doc, err = s.loadFrom(dir, id); err != nil {
			return nil, err
		}
		if recs, err = readJournal(journalPath(dir, id), doc.JournalSeq); err != nil {
			return nil, err
		}
		if after, _ := os.Stat(path); before != nil && after != nil && os.SameFile(before, after) {
			break
		}
	}
	if _, err := replay(doc, recs, false, s.now()); err != nil {
		return nil, &DamagedError{Path: journalPath(dir, id), Reason: err.Error()}
	}
	return doc, nil
}

func (s *Store) loadFrom(dir, id string) (*Document, error) {
	path := filepath.Join(dir, id+".json")
	f, info, err := openRegular(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		if errors.Is(err, ErrDamaged) {
			return nil, err
		}
		return nil, fmt.Errorf("load session %s: %w", id, err)
	}
	defer f.Close()
	data, err := readBounded(f, info, path, MaxDocumentSize)
	if err != nil {
		if errors.Is(err, ErrDamaged) {
			return nil, err
		}
		return nil, fmt.Errorf("load session %s: %w", id, err)
	}
	doc, err := Decode(data, path, id)
	if err != nil {
		return nil, err
	}
	s.noteRead(dir, doc, info)
	return doc, nil
}

// Save makes doc the whole document of its session, creating it when new,
// through the session's writer (OpenWriter) for the call: a session whose
// lock is held (by another process, or by a live session of this store,
// which changes it through its own Writer) is refused with *LockedError.
// It refuses to replace a file that changed since this store last saw it
// and is now damaged.
func (s *Store) Save(doc *Document) error {
	if err := ValidateID(doc.ID); err != nil {
		return err
	}
	return s.withLock(doc.ID, func(lock *Lock) error {
		if _, _, err := s.locate(doc.ID); errors.Is(err, ErrNotFound) {
			return s.saveTo(s.dir, doc) // new: nothing to journal
		}
		w, err := s.openWriter(lock)
		if err != nil {
			return err
		}
		err = w.Replace(doc)
		if cerr := w.finish(); err == nil {
			err = cerr
		}
		return err
	})
}

// Update changes header fields of session id (title, links, scratchpad,
// model, archived) through its writer, taken for the call, so concurrent
// updates never lose one another's changes. fn returning an error leaves
// the document as it was. It returns the document after the change.
func (s *Store) Update(id string, fn func(*Document) error) (*Document, error) {
	var doc *Document
	err := s.withWriter(id, func(w *Writer) error {
		if _, err := w.Update(fn); err != nil {
			return err
		}
		doc = w.doc
		return nil
	})
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// withWriter runs fn with session id's writer, taken for the call and
// folded and let go after it.
func (s *Store) withWriter(id string, fn func(*Writer) error) error {
	return s.withLock(id, func(lock *Lock) error {
		w, err := s.openWriter(lock)
		if err != nil {
			return err
		}
		err = fn(w)
		if cerr := w.finish(); err == nil {
			err = cerr
		}
		return err
	})
}

func (s *Store) saveTo(dir string, doc *Document) error {
	_, err := s.saveSized(dir, doc)
	return err
}

// saveSized is saveTo that also says how large the document written is.
func (s *Store) saveSized(dir string, doc *Document) (int64, error) {
	if doc.Schema == 0 {
		doc.Schema = Schema
	}
	if doc.Schema != Schema {
		return 0, fmt.Errorf("save session %s: schema %d: this myco writes schema %d", doc.ID, doc.Schema, Schema)
	}
	path := filepath.Join(dir, doc.ID+".json")
	if err := s.checkOverwrite(path, doc.ID); err != nil {
		return 0, err
	}
	data, err := Encode(doc)
	if err != nil {
		return 0, err
	}
	data = s.redactor.JSON(data)
	if err := writeFileAtomic(dir, doc.ID+".json", data, 0o600); err != nil {
		return 0, fmt.Errorf("save session %s: %w", doc.ID, err)
	}
	if info, err := os.Lstat(path); err == nil {
		s.noteWritten(dir, doc, info)
	}
	return int64(len(data)), nil
}

// checkOverwrite refuses to replace a damaged document. A file this store
// read or wrote itself, unchanged since, is known good and not read again.
func (s *Store) checkOverwrite(path, id string) error {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("save session %s: %w", id, err)
	}
	if s.knows(filepath.Dir(path), id, info) {
		return nil
	}
	data, err := readRegular(path, MaxDocumentSize)
	if errors.Is(err, ErrDamaged) {
		return fmt.Errorf("save session %s: refusing to overwrite: %w", id, err)
	}
	if err != nil {
		return fmt.Errorf("save session %s: %w", id, err)
	}
	if _, err := Decode(data, path, id); err != nil {
		return fmt.Errorf("save session %s: refusing to overwrite: %w", id, err)
	}
	return nil
}

// sameFile reports whether two stats describe the same, unchanged file: an
// atomic save always makes a new inode, an edit in place a new size or time.
func sameFile(a, b fs.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) &&
		a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
