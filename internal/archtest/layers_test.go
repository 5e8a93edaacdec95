package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "myco"

// app lists myco's packages as layers, from the bottom up. A package may
// import packages of the layers below its own: never one of its own layer,
// never one above. ARCHITECTURE.md says what each layer owns.
var app = []layer{
	{"no domain", []string{"internal/..."}},
	{"domain and assets", []string{"session", "profiles", "schedule", "snapshot", "server/event", "static"}},
	{"adapters to the model and the machine", []string{"server/llm", "server/tools", "server/webfetch", "server/mcphost", "session/hostile", "server/custom", "server/filepick", "server/lsp", "server/lsp/lsptest"}},
	{"turn engine and views", []string{"server/live", "web"}},
	{"exports, imports and generators", []string{"export", "importer", "web/chromacss"}},
	{"HTTP", []string{"server"}},
	{"commands", []string{"cmd/myco", "bench"}},
}

// e2e treats myco as a black box: its packages, their tests included,
// import only each other, and no package of the app imports one of them
// (the app's tests may: e2e/fakellm is the fake model they talk to).
var e2e = []layer{
	{"fakes and harness", []string{"e2e/fakellm", "e2e/internal/mycotest", "e2e/mcptest"}},
	{"e2e tests and tools", []string{"e2e/crash", "e2e/load", "e2e/load/floor", "e2e/fakellm/cmd/fakellm", "e2e/mcptest/cmd/mcptest"}},
}

// never lists what a package must not import whatever its layer: the
// domain knows nothing of HTTP, pages or streams, and the views do no I/O
// (a component is a pure function of its view model).
var never = map[string][]string{
	"session":      web,
	"profiles":     web,
	"schedule":     web,
	"snapshot":     web,
	"server/event": web,
	"internal/...": web,
	"web":          {"os", "os/exec", "net", "io/fs"},
}

// web is the HTTP side: the server, its pages and its streams.
var web = []string{"net/http/...", "github.com/labstack/echo/v4/...", "github.com/a-h/templ/...", "github.com/r3labs/sse/v2/..."}

type layer struct {
	name string
	pkgs []string // paths below the module, as matches takes them
}

// pkg is what the test reads of `go list -json`.
type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// place says which stack and layer a package belongs to.
type place struct {
	stack string
	layer int
}

func TestLayers(t *testing.T) {
	pkgs := listPackages(t)
	for _, p := range pkgs {
		for _, v := range violations(p) {
			t.Error(v)
		}
	}
}

// violations lists what p imports that the layers forbid.
func violations(p pkg) []string {
	from, ok := locate(p.ImportPath)
	if !ok {
		return []string{fmt.Sprintf("%s is in no layer: add it to app or e2e in %s", p.ImportPath, "internal/archtest/layers_test.go")}
	}
	var out []string
	check := func(imp, how string) {
		to, ok := locate(imp)
		switch {
		case !ok || imp == p.ImportPath:
			// Not ours (or a test of the package itself): nothing to keep.
		case from.stack != to.stack && (from.stack == "e2e" || how == ""):
			out = append(out, fmt.Sprintf("%s %simports %s: the app and e2e do not import each other (e2e treats myco as a black box)", p.ImportPath, how, imp))
		case from.stack == to.stack && to.layer >= from.layer && how == "":
			out = append(out, fmt.Sprintf("%s imports %s: layer %q may import only layers below it, and %s is in %q",
				p.ImportPath, imp, stackOf(from)[from.layer].name, imp, stackOf(to)[to.layer].name))
		}
	}
	for _, imp := range p.Imports {
		check(imp, "")
		if bad := forbidden(p.ImportPath, imp); bad != "" {
			out = append(out, fmt.Sprintf("%s imports %s: %s must never import %s", p.ImportPath, imp, bad, imp))
		}
	}
	for _, imp := range slices.Concat(p.TestImports, p.XTestImports) {
		check(imp, "(in a test) ")
	}
	return out
}

// locate finds an import path's place; ok is false for packages not ours
// and ours that no layer names.
func locate(path string) (place, bool) {
	rel, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return place{}, false
	}
	for _, s := range []struct {
		name   string
		layers []layer
	}{{"app", app}, {"e2e", e2e}} {
		for i, l := range s.layers {
			if slices.ContainsFunc(l.pkgs, func(pat string) bool { return matches(pat, rel) }) {
				return place{s.name, i}, true
			}
		}
	}
	return place{}, false
}

// forbidden names the rule of never that forbids path to import imp, or "".
func forbidden(path, imp string) string {
	rel := strings.TrimPrefix(path, module+"/")
	for pat, imps := range never {
		if matches(pat, rel) && slices.ContainsFunc(imps, func(x string) bool { return matches(x, imp) }) {
			return pat
		}
	}
	return ""
}

func stackOf(p place) []layer {
	if p.stack == "e2e" {
		return e2e
	}
	return app
}

// matches reports whether pattern names path: "dir/..." is dir and
// everything below it, anything else only itself.
func matches(pattern, path string) bool {
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == dir || strings.HasPrefix(path, dir+"/")
	}
	return path == pattern
}

// listPackages asks the go command for every package of the module and
// what it imports, directly: an indirect import is some package's direct one.
func listPackages(t *testing.T) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,TestImports,XTestImports", module+"/...").Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("go list: %v\n%s", err, ee.Stderr)
	}
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	return pkgs
}

// TestViolations checks the checker on made-up packages, so a rule that
// stops biting is noticed.
func TestViolations(t *testing.T) {
	tests := []struct {
		name string
		p    pkg
		want int
	}{
		{"down a layer", pkg{ImportPath: "myco/server", Imports: []string{"myco/session", "myco/web", "net/http"}}, 0},
		{"up a layer", pkg{ImportPath: "myco/session", Imports: []string{"myco/server"}}, 1},
		{"within a layer", pkg{ImportPath: "myco/session", Imports: []string{"myco/profiles"}}, 1},
		{"internal to internal", pkg{ImportPath: "myco/internal/redact", Imports: []string{"myco/internal/textcut"}}, 1},
		{"view to turn engine", pkg{ImportPath: "myco/web", Imports: []string{"myco/server/live"}}, 1},
		{"app to e2e", pkg{ImportPath: "myco/server", Imports: []string{"myco/e2e/fakellm"}}, 1},
		{"app's test to e2e fake", pkg{ImportPath: "myco/server", TestImports: []string{"myco/e2e/fakellm"}}, 0},
		{"app's test up a layer", pkg{ImportPath: "myco/server/live", XTestImports: []string{"myco/web", "myco/server"}}, 0},
		{"e2e to app", pkg{ImportPath: "myco/e2e/load", Imports: []string{"myco/session"}}, 1},
		{"e2e test to app", pkg{ImportPath: "myco/e2e/crash", XTestImports: []string{"myco/session"}}, 1},
		{"e2e within", pkg{ImportPath: "myco/e2e/crash", Imports: []string{"myco/e2e/fakellm"}}, 0},
		{"no layer", pkg{ImportPath: "myco/newthing"}, 1},
		{"domain to HTTP", pkg{ImportPath: "myco/session", Imports: []string{"net/http", "github.com/a-h/templ/runtime"}}, 2},
		{"view to the disk", pkg{ImportPath: "myco/web", Imports: []string{"os", "net/http"}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := violations(tt.p)
			if len(got) != tt.want {
				t.Errorf("violations(%+v) = %q, want %d", tt.p, got, tt.want)
			}
		})
	}
}
