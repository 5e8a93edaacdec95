package custom

import (
	"os"
	"path/filepath"
)

// Places says where to look: the session's folder (and the folders above
// it up to the repository's root), myco's personal config folder
// (~/.config/myco) and the person's home (for ~/.claude and the like).
// An empty field is not looked in.
type Places struct {
	Folder string
	Config string
	Home   string
}

// Scopes of a file: the project's or the person's.
const (
	ScopeProject = "project"
	ScopeUser    = "user"
)

// dir is one folder searched, in precedence order.
type dir struct {
	path  string
	scope string
}

// dirs are the folders holding kind ("commands" or "skills") files, the
// first winning: the project's from the session's folder up, then the
// person's. peer are the other agents' folder names for kind under a
// project folder and under home, tried after .myco's.
func (p Places) dirs(mycoName string, project, home []string) []dir {
	var out []dir
	if p.Folder != "" {
		folder := filepath.Clean(p.Folder)
		root := projectRoot(folder)
		for d := folder; ; d = filepath.Dir(d) {
			out = append(out, dir{filepath.Join(d, ".myco", mycoName), ScopeProject})
			for _, peer := range project {
				out = append(out, dir{filepath.Join(d, peer), ScopeProject})
			}
			if d == root || filepath.Dir(d) == d {
				break
			}
		}
	}
	if p.Config != "" {
		out = append(out, dir{filepath.Join(filepath.Clean(p.Config), mycoName), ScopeUser})
	}
	if p.Home != "" {
		for _, peer := range home {
			out = append(out, dir{filepath.Join(filepath.Clean(p.Home), peer), ScopeUser})
		}
	}
	// A home inside the project (or the config inside home) would list a
	// folder twice: once is enough.
	return dedupe(out)
}

func dedupe(ds []dir) []dir {
	seen := map[string]bool{}
	out := ds[:0:0]
	for _, d := range ds {
		if !seen[d.path] {
			seen[d.path] = true
			out = append(out, d)
		}
	}
	return out
}

// commandDirs are where commands are looked for.
func (p Places) commandDirs() []dir {
	return p.dirs("commands",
		[]string{filepath.Join(".claude", "commands"), filepath.Join(".opencode", "commands"), filepath.Join(".opencode", "command")},
		[]string{filepath.Join(".claude", "commands"), filepath.Join(".config", "opencode", "commands")})
}

// skillDirs are where skills are looked for.
func (p Places) skillDirs() []dir {
	return p.dirs("skills",
		[]string{filepath.Join(".claude", "skills"), filepath.Join(".agents", "skills")},
		[]string{filepath.Join(".claude", "skills"), filepath.Join(".agents", "skills")})
}

// projectRoot is the nearest folder at or above folder that holds .git
// (a folder, or a worktree's file); folder itself when none does. It is
// the rule server/live/instructions.go follows for instruction files.
func projectRoot(folder string) string {
	for d := folder; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return folder
		}
	}
}
