// Package snapshot keeps copies of a session's folder, taken around each
// turn, in a content-addressed store of its own under the profile: never in
// the person's git (their repository, index and branches are not touched,
// and the folder need not be a repository). A snapshot is a manifest of
// path → (size, mtime, mode, sha256); file contents are blobs stored once,
// by hash. A file whose size and mtime did not change since the session's
// last scan is not read again, so a turn that changed ten files of five
// thousand costs ten hashes and a walk. It knows nothing of sessions'
// documents nor of HTTP.
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
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
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

// ErrTooLarge is a folder past MaxFiles or MaxBytes.
var ErrTooLarge = fmt.Errorf("the folder is too large to snapshot (more than %d files or %d GiB)", MaxFiles, MaxBytes>>30)

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
}

// Store is the snapshot store rooted at one folder of the profile. It is
// safe for concurrent use.
type Store struct {
	root string
	// skip are folders never snapshotted, wherever a session's folder is:
	// myco's own data (the store itself among it) when a session works in
	// a folder that holds it, such as the home folder or /tmp.
	skip []string
	mu   sync.Mutex
	// last is, per session, its latest scan: what a file's size and mtime
	// are compared with before it is hashed again.
	last map[string]*Manifest
}

// Open returns the store rooted at root (created on first write).
func Open(root string, skip ...string) *Store {
	skip = append(skip, root)
	for i, p := range skip {
		if abs, err := filepath.Abs(p); err == nil {
			skip[i] = abs
		}
	}
	return &Store{root: root, skip: skip, last: map[string]*Manifest{}}
}

// ErrNotFound is returned for a manifest the store does not hold.
var ErrNotFound = errors.New("snapshot not found")

var nameRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,200}$`)

func checkName(parts ...string) error {
	for _, p := range parts {
		if !nameRE.MatchString(p) || p == "." || p == ".." {
			return fmt.Errorf("snapshot: bad name %q", p)
		}
	}
	return nil
}

// Take scans dir, stores the contents it does not hold yet, and saves the
// manifest as name for session. Files unchanged since the session's last
// scan are not read.
func (s *Store) Take(session, name, dir string) (*Manifest, error) {
	if err := checkName(session, name); err != nil {
		return nil, err
	}
	m, err := s.scan(session, dir, true)
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

// Load reads the manifest name of session.
func (s *Store) Load(session, name string) (*Manifest, error) {
	if err := checkName(session, name); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(s.root, session, name+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s/%s", ErrNotFound, session, name)
	}
	if err != nil {
		return nil, fmt.Errorf("load snapshot: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("load snapshot %s/%s: %w", session, name, err)
	}
	if m.Files == nil {
		m.Files = map[string]Entry{}
	}
	return &m, nil
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

// DeleteSession forgets a session's manifests (its blobs stay: others may
// share them).
func (s *Store) DeleteSession(session string) error {
	if err := checkName(session); err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.last, session)
	s.mu.Unlock()
	return os.RemoveAll(filepath.Join(s.root, session))
}

func (s *Store) blobPath(sha string) string {
	return filepath.Join(s.root, "blobs", sha[:2], sha)
}

// save writes m as name and remembers it as the session's latest scan.
func (s *Store) save(session, name string, m *Manifest) error {
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
	err = walk(dir, s.skip, func(rel string, info fs.FileInfo) error {
		total += info.Size()
		if len(files) >= MaxFiles || total > MaxBytes {
			return ErrTooLarge
		}
		files = append(files, found{rel, info})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", dir, err)
	}
	for _, f := range files {
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

// Restore makes the folder of now look like target: it writes the files
// that differ and removes those target does not have. It returns what it
// changed, as a change from now to target.
func (s *Store) Restore(target, now *Manifest) ([]Change, error) {
	changes := Compare(now, target)
	for _, c := range changes {
		p := filepath.Join(target.Dir, filepath.FromSlash(c.Path))
		if c.Kind == Removed {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("restore %s: %w", c.Path, err)
			}
			removeEmptyParents(target.Dir, filepath.Dir(p))
			continue
		}
		if err := s.writeEntry(p, *c.After); err != nil {
			return nil, fmt.Errorf("restore %s: %w", c.Path, err)
		}
	}
	return changes, nil
}

func (s *Store) writeEntry(p string, e Entry) error {
	data, err := s.Blob(e.SHA256)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if e.Mode&fs.ModeSymlink != 0 {
		os.Remove(p)
		return os.Symlink(string(data), p)
	}
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		os.Remove(p) // never write through a link
	}
	if err := writeAtomic(p, data, e.Mode.Perm()); err != nil {
		return err
	}
	// The file's old mtime back: it is what the file was, and the next
	// scan then trusts it without reading it again.
	mt := time.Unix(0, e.MtimeNS)
	return os.Chtimes(p, mt, mt)
}

// removeEmptyParents removes folders a restore emptied, up to root.
func removeEmptyParents(root, dir string) {
	for dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}
