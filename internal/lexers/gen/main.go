// Command gen copies the XML definitions of the lexers in want, and of
// every lexer they hand text to, from the pinned chroma module (the module
// cache, through `go list -m`) into internal/lexers/embedded, with chroma's
// licence beside them. Run by go generate in internal/lexers:
//
//	go generate ./internal/lexers
//
// Changing the set is editing want and running it again; bumping chroma is
// running it again after `go get`.
package main

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// want names, by chroma's lexer names, the languages people fence code in
// most in a conversation with a coding agent: shells and their sessions,
// the common programming languages, configuration and data formats, and
// the files of a build. Go and Markdown are Go code in chroma, not XML:
// internal/lexers carries copies of them.
var want = []string{
	"Bash", "Bash Session", "Batchfile", "Fish", "PowerShell",
	"C", "C++", "C#", "Objective-C", "Java", "Kotlin", "Scala", "Groovy", "Swift", "Dart",
	"Rust", "Zig", "Python", "Python 2", "Ruby", "Perl", "PHP", "Lua", "R",
	"JavaScript", "TypeScript", "react", "vue", "HTML", "CSS", "SCSS", "XML",
	"Haskell", "OCaml", "Elixir", "Erlang", "Clojure", "Awk",
	"SQL", "PostgreSQL SQL dialect", "GraphQL", "Protocol Buffer",
	"JSON", "YAML", "TOML", "INI", "properties", "CSV",
	"Diff", "Makefile", "CMake", "Docker", "Nix", "HCL", "Terraform",
	"Nginx configuration file", "SYSTEMD", "VimL", "TeX",
	"Go Template", "Templ", "plaintext",
}

// config is what gen reads of a lexer's XML: its name.
type config struct {
	Name string `xml:"config>name"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run() error {
	dir, err := moduleDir("github.com/alecthomas/chroma/v2")
	if err != nil {
		return err
	}
	files, err := byName(filepath.Join(dir, "lexers", "embedded"))
	if err != nil {
		return err
	}
	set, err := closure(files, want)
	if err != nil {
		return err
	}
	const out = "embedded"
	if err := os.RemoveAll(out); err != nil {
		return fmt.Errorf("clearing %s: %w", out, err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", out, err)
	}
	for _, name := range set {
		if err := copyFile(files[name], filepath.Join(out, filepath.Base(files[name]))); err != nil {
			return err
		}
	}
	return copyFile(filepath.Join(dir, "COPYING"), filepath.Join(out, "COPYING"))
}

// moduleDir asks the go command where the build's version of module is.
func moduleDir(module string) (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("go list -m %s: %w: %s", module, err, ee.Stderr)
		}
		return "", fmt.Errorf("go list -m %s: %w", module, err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return "", fmt.Errorf("go list -m %s: no folder (run go mod download)", module)
	}
	return dir, nil
}

// byName maps every lexer name in dir's XML files to its file.
func byName(dir string) (map[string]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.xml"))
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	files := make(map[string]string, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("reading lexer: %w", err)
		}
		var c config
		if err := xml.Unmarshal(b, &c); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		files[c.Name] = p
	}
	return files, nil
}

// closure is names and every lexer their files name in <using lexer="…">,
// found by chroma's rule (the name, or the name in lower case), sorted.
func closure(files map[string]string, names []string) ([]string, error) {
	lower := make(map[string]string, len(files))
	for n := range files {
		lower[strings.ToLower(n)] = n
	}
	seen := map[string]bool{}
	todo := slices.Clone(names)
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		if seen[name] {
			continue
		}
		path, ok := files[name]
		if !ok {
			return nil, fmt.Errorf("no XML lexer named %q", name)
		}
		seen[name] = true
		used, err := using(path)
		if err != nil {
			return nil, err
		}
		for _, u := range used {
			switch {
			case files[u] != "":
				todo = append(todo, u)
			case lower[strings.ToLower(u)] != "":
				todo = append(todo, lower[strings.ToLower(u)])
			case u == "Go":
				// A Go lexer: internal/lexers carries it.
			default:
				return nil, fmt.Errorf("%s uses %q, which is not an XML lexer", path, u)
			}
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	slices.Sort(out)
	return out, nil
}

// using lists the lexers a lexer's XML hands text to.
func using(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading lexer: %w", err)
	}
	defer f.Close()
	var out []string
	dec := xml.NewDecoder(f)
	for {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if el, ok := tok.(xml.StartElement); ok && el.Name.Local == "using" {
			for _, a := range el.Attr {
				if a.Name.Local == "lexer" {
					out = append(out, a.Value)
				}
			}
		}
	}
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("copying: %w", err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		return fmt.Errorf("copying: %w", err)
	}
	return nil
}
