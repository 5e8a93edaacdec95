package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// A hard link is the same file under another name: read_file of
// ./notes.txt, a hard link to ~/.ssh/id_rsa or to ./.env, reads the
// secret though no name in its path is denied. So a file opened by the
// file tools that has more than one name (nlink > 1) is also checked by
// its identity (device and inode) against the files of the denied folders
// and the .env files of its own folder and the folders above it; a match
// is denied. A file with one name is what its path says and needs no more.
//
// Limits (docs/RELIABILITY.md): the denied folders are walked at most
// maxIdentityWalk entries each, and a file with several names is refused
// when a folder is larger than that (refusing is the safe side); a hard
// link to a .env file that lives elsewhere than the link's own folder or
// its ancestors is not found; bash is not the file tools (it is sandboxed
// or approved, not path-checked).

// maxIdentityWalk bounds the entries walked in one denied folder.
const maxIdentityWalk = 20000

// errWalkBound stops a walk that went past maxIdentityWalk.
var errWalkBound = errors.New("denied folder too large to check")

// checkIdentity refuses the opened file info (of t) when it has several
// names and one of them is denied.
func (d *Denied) checkIdentity(t Target, info fs.FileInfo) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if d == nil || !ok || st.Nlink <= 1 {
		return nil
	}
	denied := func(rule string) error {
		return &DeniedError{Path: t.Path, Rule: "a hard link to " + rule}
	}
	// .env files of the file's folder and of the folders above it.
	for dir := filepath.Dir(t.Real); ; dir = filepath.Dir(dir) {
		if name, ok := envTwin(dir, info); ok {
			return denied("a .env file, where secrets are kept (" + name + ")")
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	for _, r := range d.roots {
		name, err := findTwin(r.path, info)
		switch {
		case errors.Is(err, errWalkBound):
			return denied("a file that may be inside " + r.name + " (too large to check)")
		case name != "":
			return denied("a file inside " + r.name)
		}
	}
	return nil
}

// envTwin finds, among dir's .env and .env.* files, one that is info.
func envTwin(dir string, info fs.FileInfo) (string, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	for _, e := range entries {
		if n := e.Name(); n != ".env" && !strings.HasPrefix(n, ".env.") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(p); err == nil && os.SameFile(fi, info) {
			return p, true
		}
	}
	return "", false
}

// findTwin walks root (links not followed, at most maxIdentityWalk
// entries) for a file that is info, and returns its path.
func findTwin(root string, info fs.FileInfo) (string, error) {
	if fi, err := os.Stat(root); err == nil && fi.Mode().IsRegular() {
		if os.SameFile(fi, info) {
			return root, nil
		}
		return "", nil
	}
	// A denied folder that is a link is walked where it leads.
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	n := 0
	var found string
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: nothing there the agent can read either
		}
		if n++; n > maxIdentityWalk {
			return errWalkBound
		}
		if !e.Type().IsRegular() {
			return nil
		}
		if fi, err := e.Info(); err == nil && os.SameFile(fi, info) {
			found = p
			return fs.SkipAll
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	return found, err
}

// Twins indexes, once, the files of several names (nlink > 1) in the
// denied folders by identity, and returns whether a file is one of them:
// the same file under another name. A walker that meets many hard links
// (a pnpm store, say) asks it once, not a walk of every denied folder per
// file as checkIdentity does. A folder past maxIdentityWalk entries cannot
// be indexed whole: then every file of several names is taken for denied
// (the safe side, as checkIdentity does). myco's stores of copies (a
// profile's snapshots/ and images/) are not walked: they are large, and
// hold copies, never the only name of a secret.
func (d *Denied) Twins() func(fs.FileInfo) bool {
	// The index is built on the first file of several names the scan
	// meets, not up front: a project seldom has one, and walking the
	// denied folders (myco's data folder holds every session) twice a
	// turn would be paid by every turn for nothing.
	var (
		once sync.Once
		ids  map[[2]uint64]bool
		all  bool // an index past the bound: every such file is denied
	)
	return func(info fs.FileInfo) bool {
		id, ok := fileIdentity(info)
		if !ok {
			return false
		}
		once.Do(func() {
			ids = map[[2]uint64]bool{}
			for _, r := range d.roots {
				if !indexTwins(r.path, ids) {
					all = true
					return
				}
			}
		})
		return all || ids[id]
	}
}

// indexTwins adds the identities of root's files of several names to ids;
// false when root is past maxIdentityWalk entries.
func indexTwins(root string, ids map[[2]uint64]bool) bool {
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	n := 0
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: nothing there anyone else reads either
		}
		if n++; n > maxIdentityWalk {
			return errWalkBound
		}
		if e.IsDir() && copyStore(p) {
			return fs.SkipDir
		}
		if !e.Type().IsRegular() {
			return nil
		}
		if info, err := e.Info(); err == nil {
			if id, ok := fileIdentity(info); ok {
				ids[id] = true
			}
		}
		return nil
	})
	return !errors.Is(err, errWalkBound)
}

// copyStore reports whether dir is a profile's snapshots/ or images/.
func copyStore(dir string) bool {
	base := filepath.Base(dir)
	return (base == "snapshots" || base == "images") && filepath.Base(filepath.Dir(filepath.Dir(dir))) == "profiles"
}

// fileIdentity is info's device and inode when it has several names.
func fileIdentity(info fs.FileInfo) ([2]uint64, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st.Nlink <= 1 {
		return [2]uint64{}, false
	}
	return [2]uint64{uint64(st.Dev), st.Ino}, true
}
