// Package filepick finds files of a folder by a fuzzy query, for the @
// picker of the composer: `rntm` finds src/app/runtime.ts. The folder's
// list is walked once and kept for a short while, so typing a query
// letter by letter walks a large tree once, not once a keystroke.
package filepick

import (
	"context"
	"iter"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	// Sublime-style scoring (after a separator, camel case, adjacent
	// letters) made for file names, small, no dependencies; writing one
	// by hand would only imitate it.
	"github.com/sahilm/fuzzy"
)

// skipped are folders never listed: dependencies, build output and
// virtual environments, which hold most of a tree's files and none a
// person means by @. Hidden folders (.git, .venv, .next) go by their dot.
var skipped = map[string]bool{
	"node_modules": true, "dist": true, "build": true, "target": true, "out": true,
	"vendor": true, "venv": true, "__pycache__": true, "bower_components": true,
}

// Options bound an Index; the zero value takes the defaults.
type Options struct {
	TTL      time.Duration    // how long a walked list is served before a new walk (10 s)
	MaxFiles int              // the most paths one folder's list keeps (200,000)
	Now      func() time.Time // the clock
}

// Index keeps the walked list of each folder asked about. It is safe for
// concurrent use; one walk runs per folder at a time, and a list past its
// TTL is still served while the next walk runs, so a query waits only for
// a folder's first walk.
type Index struct {
	opts  Options
	mu    sync.Mutex
	lists map[string]*list
}

// list is one folder's walk: ready closes when paths are in.
type list struct {
	ready   chan struct{}
	paths   []string // folders end with a slash; shallow paths first
	at      time.Time
	walking bool // a refresh is under way
}

// New returns an empty Index.
func New(opts Options) *Index {
	if opts.TTL <= 0 {
		opts.TTL = 10 * time.Second
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = 200_000
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Index{opts: opts, lists: map[string]*list{}}
}

// Find returns up to limit paths of root (relative, slash-separated,
// folders ending with a slash) that match query fuzzily, best first; with
// an empty query, the shallowest. keep, when not nil, is asked of each
// hit before it counts (the session's denied paths). Find waits for the
// folder's first walk or ctx, whichever ends first.
func (ix *Index) Find(ctx context.Context, root, query string, limit int, keep func(rel string) bool) ([]string, error) {
	paths, err := ix.paths(ctx, root)
	if err != nil {
		return nil, err
	}
	out := []string{}
	take := func(p string) bool {
		if keep == nil || keep(strings.TrimSuffix(p, "/")) {
			out = append(out, p)
		}
		return len(out) < limit
	}
	query = strings.TrimSpace(query)
	if query == "" {
		for _, p := range paths {
			if !take(p) {
				break
			}
		}
		return out, nil
	}
	// The scorer's own sort is a stable sort of every match, most of the
	// time on a large tree when the letters are common; only the best
	// few are wanted, in order, ties going to the earlier (shallower).
	ranked := fuzzy.FindFromIterNoSort(query, candidates(paths, strings.ToLower(query)))
	slices.SortStableFunc(ranked, func(a, b fuzzy.Match) int { return b.Score - a.Score })
	for _, m := range ranked {
		if !take(m.Str) {
			break
		}
	}
	return out, nil
}

// candidates are the paths that hold query's letters in order, ignoring
// ASCII case: a cheap first pass that spares the scorer the many paths
// that cannot match at all (it allocates for each one it looks at).
func candidates(paths []string, lower string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, p := range paths {
			if subsequence(p, lower) && !yield(p) {
				return
			}
		}
	}
}

// subsequence reports whether s holds the bytes of lower in order, the
// ASCII letters of s compared in lower case. Anything beyond ASCII is
// let through for the scorer to decide.
func subsequence(s, lower string) bool {
	j := 0
	for i := 0; i < len(s) && j < len(lower); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c == lower[j] {
			j++
		}
		if c >= 0x80 {
			return true
		}
	}
	return j == len(lower)
}

// paths is root's list, walked now if there is none, refreshed behind the
// caller's back once it is older than the TTL.
func (ix *Index) paths(ctx context.Context, root string) ([]string, error) {
	now := ix.opts.Now()
	ix.mu.Lock()
	ix.forgetOld(now)
	l := ix.lists[root]
	if l == nil {
		l = &list{ready: make(chan struct{}), walking: true}
		ix.lists[root] = l
		go ix.walk(root, l, true)
	} else if !l.walking && now.Sub(l.at) > ix.opts.TTL {
		l.walking = true
		go ix.walk(root, l, false)
	}
	ready := l.ready
	ix.mu.Unlock()
	select {
	case <-ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return l.paths, nil
}

// forgetOld drops lists nobody asked for in a while, so the index does
// not keep every folder ever picked from. ix.mu is held.
func (ix *Index) forgetOld(now time.Time) {
	for root, l := range ix.lists {
		if !l.walking && now.Sub(l.at) > 10*ix.opts.TTL {
			delete(ix.lists, root)
		}
	}
}

func (ix *Index) walk(root string, l *list, first bool) {
	paths := Walk(root, ix.opts.MaxFiles)
	ix.mu.Lock()
	l.paths, l.at, l.walking = paths, ix.opts.Now(), false
	ix.mu.Unlock()
	if first {
		close(l.ready)
	}
}

// Walk lists the files and folders below root that a person may mean by
// @, at most maxFiles of them, shallow paths first (then by name), so an
// equal score ranks the nearer file first. It leaves out hidden entries,
// the skipped folders, virtual environments (a folder holding
// pyvenv.cfg) and what the .gitignore files say; links are listed, never
// followed. A folder it cannot read is left out.
func Walk(root string, maxFiles int) []string {
	var out []string
	venvs := map[string]bool{} // folders found to be virtual environments
	var visit func(dirRel string, stack []ignoreRules)
	visit = func(dirRel string, stack []ignoreRules) {
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dirRel)))
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.Name() == "pyvenv.cfg" && dirRel != "" {
				venvs[dirRel+"/"] = true
				return
			}
		}
		stack = withGitignore(root, dirRel, entries, stack)
		var dirs []string
		for _, e := range entries {
			name := e.Name()
			if len(out) >= maxFiles {
				return
			}
			if strings.HasPrefix(name, ".") {
				continue
			}
			rel := path.Join(dirRel, name)
			if e.IsDir() {
				if skipped[name] || ignored(stack, rel, true) {
					continue
				}
				out = append(out, rel+"/")
				dirs = append(dirs, rel)
				continue
			}
			if !ignored(stack, rel, false) {
				out = append(out, rel)
			}
		}
		for _, d := range dirs {
			visit(d, stack)
		}
	}
	visit("", nil)
	if len(venvs) > 0 {
		out = slices.DeleteFunc(out, func(p string) bool { return venvs[p] })
	}
	slices.SortStableFunc(out, func(a, b string) int {
		return strings.Count(strings.TrimSuffix(a, "/"), "/") - strings.Count(strings.TrimSuffix(b, "/"), "/")
	})
	return out
}
