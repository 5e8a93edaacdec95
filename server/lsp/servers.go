// Package lsp runs language servers for a session's agent: it finds the
// ones installed (gopls, typescript-language-server, pyright,
// rust-analyzer), starts one on first use for a project root, and reads
// a file's diagnostics from it (the lsp_diagnostics tool, server/live).
//
// The wire is JSON-RPC 2.0 with LSP's Content-Length framing, from
// github.com/sourcegraph/jsonrpc2 (small, no dependencies, its
// VSCodeObjectCodec is LSP's framing); the handful of LSP messages myco
// sends and reads are typed here (protocol.go). go.lsp.dev/protocol has
// every type but pulls zap and a JSON encoder in and has not moved since
// 2022; golang.org/x/exp/jsonrpc2 is experimental.
package lsp

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Kind is a language server myco knows how to run.
type Kind struct {
	// Name is the server's name as /lsp shows it (gopls).
	Name string
	// Language is what it checks (Go).
	Language string
	// Command is the program looked for on PATH, and Args what it runs with.
	Command string
	Args    []string
	// Markers are files that mark a project root of the language
	// (go.mod); Exts the file extensions it checks, with their LSP
	// language IDs.
	Markers []string
	Exts    map[string]string
}

// Kinds are the servers myco looks for, in /lsp's order.
var Kinds = []Kind{
	{Name: "gopls", Language: "Go", Command: "gopls",
		Markers: []string{"go.work", "go.mod"}, Exts: map[string]string{".go": "go"}},
	{Name: "typescript-language-server", Language: "TypeScript/JavaScript", Command: "typescript-language-server", Args: []string{"--stdio"},
		Markers: []string{"tsconfig.json", "jsconfig.json", "package.json"},
		Exts: map[string]string{".ts": "typescript", ".tsx": "typescriptreact", ".mts": "typescript", ".cts": "typescript",
			".js": "javascript", ".jsx": "javascriptreact", ".mjs": "javascript", ".cjs": "javascript"}},
	{Name: "pyright", Language: "Python", Command: "pyright-langserver", Args: []string{"--stdio"},
		Markers: []string{"pyproject.toml", "pyrightconfig.json", "setup.py", "setup.cfg", "requirements.txt"},
		Exts:    map[string]string{".py": "python", ".pyi": "python"}},
	{Name: "rust-analyzer", Language: "Rust", Command: "rust-analyzer",
		Markers: []string{"Cargo.toml"}, Exts: map[string]string{".rs": "rust"}},
}

// KindFor is the kind that checks path, by its extension.
func KindFor(path string) (Kind, bool) {
	ext := strings.ToLower(filepath.Ext(path))
	for _, k := range Kinds {
		if _, ok := k.Exts[ext]; ok {
			return k, true
		}
	}
	return Kind{}, false
}

// Found is an installed server: its kind and the program's path.
type Found struct {
	Kind
	Path string
}

// Finder finds installed servers: on PATH, and gopls in ~/go/bin (where
// `go install` puts it when GOBIN is not on PATH).
type Finder struct {
	// LookPath is exec.LookPath unless a test sets it.
	LookPath func(string) (string, error)
	// Home is the person's home folder ("" looks in no ~/go/bin).
	Home string
}

// Find lists the installed servers, in Kinds' order.
func (f Finder) Find() []Found {
	look := f.LookPath
	if look == nil {
		look = exec.LookPath
	}
	var out []Found
	for _, k := range Kinds {
		if p, err := look(k.Command); err == nil {
			out = append(out, Found{Kind: k, Path: p})
			continue
		}
		if k.Name == "gopls" && f.Home != "" {
			p := filepath.Join(f.Home, "go", "bin", "gopls")
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
				out = append(out, Found{Kind: k, Path: p})
			}
		}
	}
	return out
}

// skipDirs are never walked for files of a language: dependencies and
// build output, not the project's own files.
var skipDirs = []string{".git", "node_modules", "vendor", "target", "dist", "build", ".venv", "venv", "__pycache__"}

// maxWalk bounds how many entries HasFiles reads: a huge folder (a home
// folder) answers "no" rather than making /lsp slow.
const maxWalk = 5000

// HasFiles reports whether folder has files of k's language: a root
// marker at its top, or a file with one of its extensions within a few
// levels.
func HasFiles(folder string, k Kind) bool {
	for _, m := range k.Markers {
		if _, err := os.Stat(filepath.Join(folder, m)); err == nil {
			return true
		}
	}
	seen, found := 0, false
	_ = filepath.WalkDir(folder, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil //nolint:nilerr // an unreadable folder is skipped, not an error
		}
		seen++
		if seen > maxWalk || found {
			return filepath.SkipAll
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(folder, p)
			if p != folder && (slices.Contains(skipDirs, d.Name()) || strings.Count(rel, string(filepath.Separator)) >= 3) {
				return filepath.SkipDir
			}
			return nil
		}
		if _, ok := k.Exts[strings.ToLower(filepath.Ext(p))]; ok {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// Root is the project root a server for file is started in: the nearest
// folder at or above the file's, within top, holding one of k's markers;
// top when none does.
func Root(file, top string, k Kind) string {
	top = filepath.Clean(top)
	dir := filepath.Dir(filepath.Clean(file))
	for {
		for _, m := range k.Markers {
			if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
				return dir
			}
		}
		if dir == top || !within(dir, top) {
			return top
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return top
		}
		dir = parent
	}
}

// within reports whether p is top or under it.
func within(p, top string) bool {
	rel, err := filepath.Rel(top, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
