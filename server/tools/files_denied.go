package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"myco/snapshot"
)

// Denied is the one denied-path rule: the set of paths myco never reads,
// copies, shows or restores on anyone's behalf. The file tools, @path,
// the folder snapshots behind undo, /diff and undo itself all ask it
// (docs/RELIABILITY.md). It holds the settings' denied_paths, myco's own
// data folder (every profile: settings, server.json and its token, the
// sessions, the snapshot store), and every file named .env or .env.*. A
// path is refused when it, or where its links lead, is inside one: a link
// out of a denied folder is not followed, and a link into one does not
// get in.
type Denied struct {
	roots []deniedRoot
}

type deniedRoot struct {
	name string // as settings write it, or what the folder is
	path string // absolute
	real string // where path leads when it is a link, else ""
}

// NewDenied returns the denied set of settings paths (absolute, or
// relative to home, "~/" included) and of myco's data, when profileDir is
// given: the data folder that holds every profile when profileDir is laid
// out as profiles.Open lays it (<data>/profiles/<name>), else the profile
// folder alone.
func NewDenied(paths []string, home, profileDir string) *Denied {
	d := &Denied{}
	for _, p := range paths {
		abs := p
		switch {
		case p == "~" || strings.HasPrefix(p, "~/"):
			abs = filepath.Join(home, p[1:])
		case !filepath.IsAbs(p):
			abs = filepath.Join(home, p)
		}
		if home == "" && !filepath.IsAbs(p) {
			continue // nowhere to anchor it
		}
		d.add(p+" (settings denied_paths)", abs)
	}
	if profileDir != "" {
		profileDir = filepath.Clean(profileDir)
		if parent := filepath.Dir(profileDir); filepath.Base(parent) == "profiles" {
			data := filepath.Dir(parent)
			d.add("myco's data folder "+data+" (every profile's settings, token, sessions and snapshots)", data)
		} else {
			d.add("myco's profile folder "+profileDir, profileDir)
		}
	}
	return d
}

// DeniedRule is the rule for this user: the settings' denied_paths taken
// from their home folder, and myco's data around profileDir.
func DeniedRule(paths []string, profileDir string) *Denied {
	home, _ := os.UserHomeDir()
	return NewDenied(paths, home, profileDir)
}

// add denies the folder (or file) at abs, and where it leads when it is a
// link, resolved once: a walker asks for every file it meets.
func (d *Denied) add(name, abs string) {
	r := deniedRoot{name: name, path: filepath.Clean(abs)}
	if rr, err := filepath.EvalSymlinks(r.path); err == nil && rr != r.path {
		r.real = rr
	}
	d.roots = append(d.roots, r)
}

// Denies reports whether abs (absolute, clean) is denied by its name
// alone, links not followed: what a walker that never follows links (the
// snapshots) asks of each entry. A denied folder's whole tree is denied.
func (d *Denied) Denies(abs string) bool {
	return d != nil && d.check(abs, abs) != nil
}

// DeniedError is a path the file tools refuse.
type DeniedError struct {
	Path string // as the agent named it
	Real string // where its links lead, when that is elsewhere
	Rule string // what denies it
}

func (e *DeniedError) Error() string {
	via := ""
	if e.Real != "" && e.Real != e.Path {
		via = " (it leads to " + e.Real + ")"
	}
	return fmt.Sprintf("%s%s is denied: it is %s. The file tools never read or change denied paths; "+
		"do not try to reach it another way, ask the person if you need it", e.Path, via, e.Rule)
}

// Unwrap makes errors.Is(err, ErrDenied) hold.
func (e *DeniedError) Unwrap() error { return ErrDenied }

// Resolve follows the links of abs (an absolute, clean path) and refuses
// it when it is denied. A file that does not exist yet is resolved
// through its nearest existing folder.
func (d *Denied) Resolve(abs string) (Target, error) {
	t := Target{Path: abs, denied: d}
	if err := d.check(abs, abs); err != nil {
		return t, err
	}
	real, err := realPath(abs, 0)
	if err != nil {
		return t, fmt.Errorf("%s: %w", abs, err)
	}
	t.Real = real
	if err := d.check(abs, real); err != nil {
		return t, err
	}
	return t, nil
}

// check refuses p, which is shown or where shown leads.
func (d *Denied) check(shown, p string) error {
	denied := func(rule string) error {
		e := &DeniedError{Path: shown, Rule: rule}
		if p != shown {
			e.Real = p
		}
		return e
	}
	if base := filepath.Base(p); base == ".env" || strings.HasPrefix(base, ".env.") {
		return denied("a .env file, where secrets are kept")
	}
	for _, r := range d.roots {
		// The denied folder may itself be a link: its target is denied too.
		if within(p, r.path) || (r.real != "" && within(p, r.real)) {
			return denied("inside " + r.name)
		}
	}
	return nil
}

// within reports whether p is root or inside it; both are clean.
func within(p, root string) bool {
	if root == string(filepath.Separator) {
		return true
	}
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

// maxLinks bounds the links followed to resolve one path, as the kernel does.
const maxLinks = 40

// realPath is where p leads once every link is followed. Unlike
// filepath.EvalSymlinks it also resolves a path that does not exist yet:
// a dangling link is followed to where it points, and a missing name is
// kept under its folder's real path.
func realPath(p string, hops int) (string, error) {
	if hops > maxLinks {
		return "", errors.New("too many levels of links")
	}
	real, err := filepath.EvalSymlinks(p)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return real, err
	}
	if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		to, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(p), to)
		}
		return realPath(filepath.Clean(to), hops+1)
	}
	dir := filepath.Dir(p)
	if dir == p {
		return p, nil
	}
	realDir, err := realPath(dir, hops)
	if err != nil {
		return "", err
	}
	return filepath.Join(realDir, filepath.Base(p)), nil
}

// The snapshot store holds to this rule (snapshot.Open takes it).
var _ snapshot.Rule = (*Denied)(nil)
