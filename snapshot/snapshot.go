// Package snapshot keeps copies of a session's folder, taken around each
// turn, in a content-addressed store of its own under the profile: never in
// the person's git (their repository, index and branches are not touched,
// and the folder need not be a repository). A snapshot is a manifest of
// path → (size, mtime, mode, sha256); file contents are blobs stored once,
// by hash. A file whose size and mtime did not change since the session's
// last scan is not read again, so a turn that changed ten files of five
// thousand costs ten hashes and a walk. It knows nothing of sessions'
// documents nor of HTTP. What it may never copy (secrets, myco's own data)
// is the caller's rule, given to Open.
//
// On disk (docs/FORMAT.md):
//
//	<root>/blobs/<hh>/<sha256>          file contents, written once
//	<root>/<session>/<name>.json        a manifest
//	<root>/<session>/latest             the name of the last manifest taken
package snapshot

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"myco/internal/errkind"
)

// MaxFile bounds a file the store keeps: a larger one (a build artefact, a
// data dump) is left out of snapshots rather than copied every time it
// changes, and undo leaves it as it is.
const MaxFile = 64 << 20

// A folder larger than MaxFiles files or MaxBytes bytes (a session started
// in the home folder, say) is not snapshotted at all: copying it before
// every turn would cost minutes and gigabytes. Undo is then off for that
// folder, and says why.
const (
	MaxFiles = 50_000
	MaxBytes = 1 << 30
)

// ErrTooLarge is a folder past MaxFiles or MaxBytes; the error is a
// *TooLargeError, which says how large.
var ErrTooLarge = errkind.New(errkind.Conflict, "too large to snapshot")

// TooLargeError is a folder that was not snapshotted because it is past
// the limits: Files and Bytes are what was counted when the walk stopped
// (it stops at the limit, so a larger folder is "more than" that).
type TooLargeError struct {
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
}

func (e *TooLargeError) Error() string {
	if e.Bytes > MaxBytes {
		return fmt.Sprintf("the folder is too large to snapshot: more than %d GiB in %d files (the limit is %d files or %d GiB)",
			MaxBytes>>30, e.Files, MaxFiles, MaxBytes>>30)
	}
	return fmt.Sprintf("the folder is too large to snapshot: more than %d files (the limit is %d files or %d GiB)",
		MaxFiles, MaxFiles, MaxBytes>>30)
}

// Unwrap makes errors.Is(err, ErrTooLarge) hold.
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// Entry is one file of a manifest.
type Entry struct {
	Size int64 `json:"size"`
	// MtimeNS is the modification time in nanoseconds since the epoch.
	MtimeNS int64       `json:"mtime_ns"`
	Mode    fs.FileMode `json:"mode"`
	// SHA256 names the blob of the contents (a symlink's: its target).
	SHA256 string `json:"sha256"`
}

// Manifest is a folder at one moment: its files by slash-separated path
// relative to Dir.
type Manifest struct {
	Dir     string           `json:"dir"`
	TakenAt time.Time        `json:"taken_at"`
	Files   map[string]Entry `json:"files"`
	// TooLarge marks a snapshot that was not taken, the folder being past
	// the limits: kept so that /undo and /diff can say so rather than
	// "nothing to undo". Load answers it with its *TooLargeError, never
	// as an empty folder a restore would empty the real one to.
	TooLarge *TooLargeError `json:"too_large,omitempty"`
}

// Rule is what a snapshot never holds, shows or restores: the caller's
// denied-path rule (server/tools.Denied).
type Rule interface {
	// Denies reports whether the file or folder at abs (absolute, clean)
	// is denied by its name; a denied folder's whole tree is denied, and
	// is not entered.
	Denies(abs string) bool
	// Twins is asked once by a scan that meets files of several names
	// (hard links): the function it returns says whether such a file is
	// a denied file under another name.
	Twins() func(fs.FileInfo) bool
}

// Deny is a Rule by name alone: no hard link is taken for a denied file
// (but one to a denied file the scan meets in the folder itself).
type Deny func(abs string) bool

// Denies calls d.
func (d Deny) Denies(abs string) bool { return d(abs) }

// Twins denies no file by its identity.
func (Deny) Twins() func(fs.FileInfo) bool { return func(fs.FileInfo) bool { return false } }

// Store is the snapshot store rooted at one folder of the profile. It is
// safe for concurrent use.
type Store struct {
	root string
	rule Rule
	mu   sync.Mutex
	// last is, per session, its latest scan: what a file's size and mtime
	// are compared with before it is hashed again.
	last map[string]*Manifest
	// blobs is held for reading while a snapshot stores blobs and saves
	// its manifest, and for writing by a collection (GC): a blob a Take
	// found already stored is not removed before its manifest refers to it.
	blobs sync.RWMutex
}

// Open returns the store rooted at root (created on first write). rule
// (nil: none) is what is never copied; the store's own folder is never
// snapshotted whatever it says.
func Open(root string, rule Rule) *Store {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	return &Store{root: root, rule: rule, last: map[string]*Manifest{}}
}

// denied reports whether abs is the store, inside it, or denied by the rule.
func (s *Store) denied(abs string) bool {
	if abs == s.root || strings.HasPrefix(abs, s.root+string(filepath.Separator)) {
		return true
	}
	return s.rule != nil && s.rule.Denies(abs)
}

// ErrNotFound is returned for a manifest the store does not hold.
var ErrNotFound = errors.New("snapshot not found")

// checkName refuses a session or snapshot name that is not one plain file
// name of 1 to 200 letters, digits, '.', '_' and '-' (nor "." or "..").
func checkName(parts ...string) error {
	for _, p := range parts {
		if !plainName(p) || p == "." || p == ".." {
			return fmt.Errorf("snapshot: bad name %q", p)
		}
	}
	return nil
}

// plainName reports whether s is 1 to 200 of [A-Za-z0-9._-]. A loop
// rather than a regular expression: compiling `^[A-Za-z0-9._-]{1,200}$`
// unrolls the 200 repetitions, which cost every start of myco a
// millisecond of package initialisation.
func plainName(s string) bool {
	if len(s) == 0 || len(s) > 200 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}

// Take scans dir, stores the contents it does not hold yet, and saves the
// manifest as name for session. Files unchanged since the session's last
// scan are not read. A folder past the limits is not copied: a marker
// saying so is saved as name instead, and the *TooLargeError returned.
func (s *Store) Take(session, name, dir string) (*Manifest, error) {
	if err := checkName(session, name); err != nil {
		return nil, err
	}
	s.blobs.RLock()
	defer s.blobs.RUnlock()
	m, err := s.scan(session, dir, true)
	if tl := (*TooLargeError)(nil); errors.As(err, &tl) {
		abs, _ := filepath.Abs(dir)
		marker := &Manifest{Dir: abs, TakenAt: time.Now().UTC(), Files: map[string]Entry{}, TooLarge: tl}
		if serr := s.write(session, name, marker); serr != nil {
			return nil, errors.Join(err, serr)
		}
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if err := s.save(session, name, m); err != nil {
		return nil, err
	}
	return m, nil
}

// Scan is the folder now, without storing anything: what a restore or a
// diff compares a snapshot with.
func (s *Store) Scan(session, dir string) (*Manifest, error) {
	if err := checkName(session); err != nil {
		return nil, err
	}
	return s.scan(session, dir, false)
}

// Load reads the manifest name of session. A marker of a folder that was
// too large is its *TooLargeError. Entries the rule denies (a manifest an
// older myco wrote may hold them) are left out: what Load returns is never
// shown or restored past the rule.
func (s *Store) Load(session, name string) (*Manifest, error) {
	if err := checkName(session, name); err != nil {
		return nil, err
	}
	m, err := s.readManifest(filepath.Join(s.root, session, name+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s/%s", ErrNotFound, session, name)
	}
	if err != nil {
		return nil, fmt.Errorf("load snapshot %s/%s: %w", session, name, err)
	}
	if m.TooLarge != nil {
		return nil, m.TooLarge
	}
	s.filter(m)
	return m, nil
}

// readManifest reads one manifest file as it is.
func (s *Store) readManifest(p string) (*Manifest, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m.Files == nil {
		m.Files = map[string]Entry{}
	}
	return &m, nil
}

// filter drops the entries of m the rule denies, under its folder as
// written and where that folder leads.
func (s *Store) filter(m *Manifest) {
	real := m.Dir
	if r, err := filepath.EvalSymlinks(m.Dir); err == nil {
		real = r
	}
	for rel := range m.Files {
		if s.deniedIn(m.Dir, real, rel) {
			delete(m.Files, rel)
		}
	}
}

// deniedIn asks the rule of rel (slash-separated) in the folder dir, which
// leads to real: a denied folder named by a link's path or by its target
// is denied both ways.
func (s *Store) deniedIn(dir, real, rel string) bool {
	r := filepath.FromSlash(rel)
	if s.denied(filepath.Join(dir, r)) {
		return true
	}
	return real != dir && s.denied(filepath.Join(real, r))
}

// Has reports whether session has a manifest called name.
func (s *Store) Has(session, name string) bool {
	if checkName(session, name) != nil {
		return false
	}
	_, err := os.Stat(filepath.Join(s.root, session, name+".json"))
	return err == nil
}

// Blob reads the contents stored under sha.
func (s *Store) Blob(sha string) ([]byte, error) {
	if len(sha) != 64 || strings.Trim(sha, "0123456789abcdef") != "" {
		return nil, fmt.Errorf("snapshot: bad blob name %q", sha)
	}
	b, err := os.ReadFile(s.blobPath(sha))
	if err != nil {
		return nil, fmt.Errorf("read blob: %w", err)
	}
	return b, nil
}

// DeleteSession removes a session's manifests (its blobs stay until GC:
// other sessions may share them).
func (s *Store) DeleteSession(session string) error {
	if err := checkName(session); err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.last, session)
	s.mu.Unlock()
	if err := os.RemoveAll(filepath.Join(s.root, session)); err != nil {
		return fmt.Errorf("delete snapshots of %s: %w", session, err)
	}
	return nil
}

func (s *Store) blobPath(sha string) string {
	return filepath.Join(s.root, "blobs", sha[:2], sha)
}

// save writes m as name, the session's latest (scan remembers it).
func (s *Store) save(session, name string, m *Manifest) error {
	return s.write(session, name, m)
}

// write writes m as name and as the session's latest.
func (s *Store) write(session, name string, m *Manifest) error {
	dir := filepath.Join(s.root, session)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save snapshot: %w", err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("save snapshot: %w", err)
	}
	if err := writeAtomic(filepath.Join(dir, name+".json"), b, 0o600); err != nil {
		return fmt.Errorf("save snapshot: %w", err)
	}
	if err := writeAtomic(filepath.Join(dir, "latest"), []byte(name), 0o600); err != nil {
		return fmt.Errorf("save snapshot: %w", err)
	}
	return nil
}

// previous is the session's latest scan of dir: in memory, else the last
// manifest saved (after a restart), else none.
func (s *Store) previous(session, dir string) *Manifest {
	s.mu.Lock()
	m := s.last[session]
	s.mu.Unlock()
	if m == nil {
		if name, err := os.ReadFile(filepath.Join(s.root, session, "latest")); err == nil {
			m, _ = s.Load(session, strings.TrimSpace(string(name)))
		}
	}
	if m == nil || m.Dir != dir {
		return nil
	}
	return m
}

// scan walks dir. An entry of the previous scan is trusted when size, mtime
// and mode agree and the mtime is safely older than that scan (a file
// changed in the same clock tick as the scan could keep both: git calls
// this "racily clean" and hashes it again; so do we). store writes blobs
// for contents hashed now.
func (s *Store) scan(session, dir string, store bool) (*Manifest, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	prev := s.previous(session, dir)
	now := time.Now()
	m := &Manifest{Dir: dir, TakenAt: now.UTC(), Files: map[string]Entry{}}
	var trustBefore int64
	if prev != nil {
		trustBefore = prev.TakenAt.Add(-time.Second).UnixNano()
	}
	// First the names and sizes only (a stat each): a folder past the
	// limits is refused before a byte of it is read.
	type found struct {
		rel  string
		info fs.FileInfo
	}
	var files []found
	var total int64
	real := dir
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		real = r
	}
	deny := func(rel string) bool { return s.deniedIn(dir, real, rel) }
	// Denied files met that have other names: a hard link in the folder
	// to one of them is the same file, and is left out too.
	deniedIDs := map[fileID]bool{}
	onDenied := func(info fs.FileInfo) {
		if id, n := identity(info); n > 1 {
			deniedIDs[id] = true
		}
	}
	err = walk(dir, deny, onDenied, func(rel string, info fs.FileInfo) error {
		total += info.Size()
		if len(files) >= MaxFiles || total > MaxBytes {
			return &TooLargeError{Files: len(files) + 1, Bytes: total}
		}
		files = append(files, found{rel, info})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", dir, err)
	}
	var twins func(fs.FileInfo) bool
	for _, f := range files {
		id, n := identity(f.info)
		if n > 1 && f.info.Mode().IsRegular() {
			if twins == nil && s.rule != nil {
				twins = s.rule.Twins() // once a scan, and only when needed
			}
			if deniedIDs[id] || (twins != nil && twins(f.info)) {
				continue
			}
		}
		if err := s.scanFile(m, prev, trustBefore, dir, f.rel, f.info, store); err != nil {
			return nil, fmt.Errorf("snapshot %s: %w", dir, err)
		}
	}
	if store {
		s.mu.Lock()
		s.last[session] = m
		s.mu.Unlock()
	}
	return m, nil
}

// scanFile adds file rel of dir to m, trusting prev's entry when it
// still describes the file (see scan).
func (s *Store) scanFile(m, prev *Manifest, trustBefore int64, dir, rel string, info fs.FileInfo, store bool) error {
	e := Entry{Size: info.Size(), MtimeNS: info.ModTime().UnixNano(), Mode: info.Mode() & (fs.ModeSymlink | fs.ModePerm)}
	if prev != nil {
		// prev was taken (Take), so its blobs are stored: a trusted
		// entry costs no read and no look in the blob store.
		if p, ok := prev.Files[rel]; ok && p.Size == e.Size && p.MtimeNS == e.MtimeNS && p.Mode == e.Mode && e.MtimeNS < trustBefore && p.SHA256 != "" {
			m.Files[rel] = p
			return nil
		}
	}
	sha, err := s.hashFile(filepath.Join(dir, filepath.FromSlash(rel)), e.Mode, store)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // gone while we walked
		}
		return err
	}
	e.SHA256 = sha
	m.Files[rel] = e
	return nil
}

func (s *Store) hasBlob(sha string) bool {
	_, err := os.Stat(s.blobPath(sha))
	return err == nil
}

// hashFile hashes the file at p (a symlink: its target) and, with store,
// keeps its contents as a blob unless the store has them already.
func (s *Store) hashFile(p string, mode fs.FileMode, store bool) (string, error) {
	var data []byte
	if mode&fs.ModeSymlink != 0 {
		target, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		data = []byte(target)
	} else {
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		data, err = io.ReadAll(io.LimitReader(f, MaxFile+1))
		f.Close()
		if err != nil {
			return "", err
		}
	}
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])
	if store && !s.hasBlob(sha) {
		bp := s.blobPath(sha)
		if err := os.MkdirAll(filepath.Dir(bp), 0o700); err != nil {
			return "", err
		}
		if err := writeAtomic(bp, data, 0o600); err != nil {
			return "", err
		}
	}
	return sha, nil
}

// writeAtomic writes data to p through a temporary file and a rename, so
// a reader never sees half a manifest or half a blob.
func writeAtomic(p string, data []byte, perm fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// Change kinds.
const (
	Added    = "added"    // in the later manifest only
	Removed  = "removed"  // in the earlier manifest only
	Modified = "modified" // in both, with other contents or mode
)

// Change is one file that differs between two manifests.
type Change struct {
	Path   string `json:"path"`
	Kind   string `json:"kind"`
	Before *Entry `json:"-"`
	After  *Entry `json:"-"`
}

// Compare lists the files that differ from a to b, by path.
func Compare(a, b *Manifest) []Change {
	var out []Change
	for p, ea := range a.Files {
		eb, ok := b.Files[p]
		switch {
		case !ok:
			out = append(out, Change{Path: p, Kind: Removed, Before: &ea})
		case ea.SHA256 != eb.SHA256 || ea.Mode != eb.Mode:
			out = append(out, Change{Path: p, Kind: Modified, Before: &ea, After: &eb})
		}
	}
	for p, eb := range b.Files {
		if _, ok := a.Files[p]; !ok {
			out = append(out, Change{Path: p, Kind: Added, After: &eb})
		}
	}
	slices.SortFunc(out, func(x, y Change) int { return cmp.Compare(x.Path, y.Path) })
	return out
}

// Under keeps the changes to path p or to files in folder p ("" keeps all).
func Under(changes []Change, p string) []Change {
	p = strings.Trim(filepath.ToSlash(filepath.Clean(p)), "/")
	if p == "" || p == "." {
		return changes
	}
	var out []Change
	for _, c := range changes {
		if c.Path == p || strings.HasPrefix(c.Path, p+"/") {
			out = append(out, c)
		}
	}
	return out
}

// fileID is a file's identity: its device and inode.
type fileID struct{ dev, ino uint64 }

// identity is info's file identity and its number of names (0 when the
// system does not say).
func identity(info fs.FileInfo) (fileID, uint64) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, 0
	}
	return fileID{uint64(st.Dev), st.Ino}, uint64(st.Nlink)
}
