package snapshot

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"

	// Small, dependency-free, and it reads git's rules as git does for one
	// file (negation, **, folder-only patterns). go-git's
	// plumbing/format/gitignore handles nesting itself but brings the whole
	// go-git module (billy, ssh, crypto) into the build for one matcher;
	// the nesting is a few lines here (ignoreStack).
	gitignore "github.com/sabhiram/go-gitignore"
)

// ignoreRules is one folder's .gitignore: its patterns apply to paths
// below base (slash-separated, relative to the walked root; "" is root).
type ignoreRules struct {
	base  string
	rules *gitignore.GitIgnore
}

// ignored says whether rel (a folder when dir) is ignored by the stack of
// .gitignore files from the root down to its folder: as in git, the
// deepest file that has a say decides, and within a file the last
// matching pattern (a "!" pattern un-ignores).
func ignored(stack []ignoreRules, rel string, dir bool) bool {
	for i := len(stack) - 1; i >= 0; i-- {
		r := stack[i]
		sub := rel
		if r.base != "" {
			sub = rel[len(r.base)+1:]
		}
		if dir {
			sub += "/"
		}
		if ok, how := r.rules.MatchesPathHow(sub); how != nil {
			return ok
		}
	}
	return false
}

// walk calls fn for every regular file and symlink below root that .git/,
// deny (asked of every file and folder, by its slash-separated path
// relative to root: a denied folder is not entered) and the .gitignore
// files do not leave out, with that path. Files larger than MaxFile are
// left out. Links are never followed: a link is a file whose contents
// are its target's name.
//
// onDenied is told of every denied file met (a hard link to it elsewhere
// in the folder is the same file).
func walk(root string, deny func(rel string) bool, onDenied func(fs.FileInfo), fn func(rel string, info fs.FileInfo) error) error {
	var visit func(dirRel string, stack []ignoreRules) error
	visit = func(dirRel string, stack []ignoreRules) error {
		abs := filepath.Join(root, filepath.FromSlash(dirRel))
		entries, err := os.ReadDir(abs)
		if err != nil {
			if dirRel != "" && (os.IsNotExist(err) || os.IsPermission(err)) {
				return nil // gone while we walked, or not ours to read
			}
			return err
		}
		for _, e := range entries {
			if e.Name() == ".gitignore" && e.Type().IsRegular() {
				if gi, err := gitignore.CompileIgnoreFile(filepath.Join(abs, ".gitignore")); err == nil {
					stack = append(stack[:len(stack):len(stack)], ignoreRules{base: dirRel, rules: gi})
				}
				break
			}
		}
		for _, e := range entries {
			rel := path.Join(dirRel, e.Name())
			switch {
			case e.IsDir():
				if e.Name() == ".git" || ignored(stack, rel, true) || deny(rel) {
					continue
				}
				if err := visit(rel, stack); err != nil {
					return err
				}
			case e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0:
				if deny(rel) {
					if info, err := e.Info(); err == nil {
						onDenied(info)
					}
					continue
				}
				if ignored(stack, rel, false) {
					continue
				}
				info, err := e.Info()
				if err != nil {
					continue // gone while we walked
				}
				if info.Size() > MaxFile {
					continue
				}
				if err := fn(rel, info); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return visit("", nil)
}
