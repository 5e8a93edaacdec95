package filepick

import (
	"os"
	"path/filepath"

	gitignore "github.com/sabhiram/go-gitignore"
)

// ignoreRules is one folder's .gitignore: its patterns apply to paths
// below base (slash-separated, relative to the walked root; "" is root).
// The same few lines as snapshot's walk, which must not be imported from
// here (a layer apart).
type ignoreRules struct {
	base  string
	rules *gitignore.GitIgnore
}

// withGitignore is stack with dirRel's .gitignore on top, if it has one.
func withGitignore(root, dirRel string, entries []os.DirEntry, stack []ignoreRules) []ignoreRules {
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			gi, err := gitignore.CompileIgnoreFile(filepath.Join(root, filepath.FromSlash(dirRel), ".gitignore"))
			if err != nil {
				return stack
			}
			return append(stack[:len(stack):len(stack)], ignoreRules{base: dirRel, rules: gi})
		}
	}
	return stack
}

// ignored says whether rel (a folder when dir) is ignored by the stack of
// .gitignore files from the root down to its folder: the deepest file
// that has a say decides, as in git.
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
