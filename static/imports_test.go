package static_test

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"myco/static"
)

// importRE finds a module's static imports of its siblings:
// import { a, b } from './x.js'; and import './x.js';
var importRE = regexp.MustCompile(`(?m)^import\s+(?:[^'"]*?\sfrom\s+)?['"]\./([\w.-]+\.js)['"]`)

// imports is the graph of the tab's modules: each one's sibling imports.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	names, err := fs.Glob(static.FS, "*.js")
	if err != nil {
		t.Fatal(err)
	}
	g := make(map[string][]string, len(names))
	for _, n := range names {
		b, err := fs.ReadFile(static.FS, n)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range importRE.FindAllStringSubmatch(string(b), -1) {
			g[n] = append(g[n], m[1])
		}
	}
	return g
}

// cycle is one import cycle in g, as the path that closes it, or nil.
func cycle(g map[string][]string) []string {
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(n string) []string
	visit = func(n string) []string {
		state[n] = onPath
		path = append(path, n)
		for _, m := range g[n] {
			switch state[m] {
			case onPath:
				return append(slices.Clone(path[slices.Index(path, m):]), m)
			case unseen:
				if c := visit(m); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[n] = done
		return nil
	}
	nodes := make([]string, 0, len(g))
	for n := range g {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	for _, n := range nodes {
		if state[n] == unseen {
			if c := visit(n); c != nil {
				return c
			}
		}
	}
	return nil
}

// TestNoImportCycle keeps the tab's modules a tree of layers: leaves of
// shared helpers (dom.js, http.js, alerts.js, composer.js, thread.js…),
// the parts of the chat above them, and the pages' entries (page-*.js) on top.
// A cycle makes the order modules run in depend on which is imported
// first, and a module read during another's import sees it half made.
func TestNoImportCycle(t *testing.T) {
	g := imports(t)
	if len(g) < 10 {
		t.Fatalf("found the imports of only %d modules: is the pattern still right?", len(g))
	}
	if c := cycle(g); c != nil {
		t.Errorf("the tab's modules import each other in a cycle: %s\n"+
			"move what they share into a module that imports neither (see dom.js, composer.js, thread.js)", strings.Join(c, " → "))
	}
}

// TestCycleFinds: the check finds a cycle where there is one.
func TestCycleFinds(t *testing.T) {
	tests := []struct {
		name string
		g    map[string][]string
		want []string
	}{
		{"none", map[string][]string{"a.js": {"b.js"}, "b.js": {"c.js"}}, nil},
		{"two", map[string][]string{"a.js": {"b.js"}, "b.js": {"a.js"}}, []string{"a.js", "b.js", "a.js"}},
		{"through a third", map[string][]string{"page-home.js": {"x.js"}, "x.js": {"y.js"}, "y.js": {"x.js"}}, []string{"x.js", "y.js", "x.js"}},
		{"self", map[string][]string{"a.js": {"a.js"}}, []string{"a.js", "a.js"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cycle(tt.g); !slices.Equal(got, tt.want) {
				t.Errorf("cycle = %v, want %v", got, tt.want)
			}
		})
	}
	if got := importRE.FindAllStringSubmatch("import { a, b } from './x.js';\nimport './y.js';\nimport {\n  c,\n} from './z.js';\n", -1); len(got) != 3 {
		t.Errorf("the pattern found %d imports of 3", len(got))
	}
}

// entryRE names the pages' entries: static/page-*.js, one per kind of page
// (web/helpers.go pageScript chooses).
var entryRE = regexp.MustCompile(`^page-[\w-]+\.js$`)

// actsRE finds a statement at the top level of a module that does
// something when the module is loaded: a call (init(), document.addEventListener(…)),
// a new, an await.
var actsRE = regexp.MustCompile(`(?m)^(?:[A-Za-z_$][\w$.]*\(|new |await |\()`)

// TestEntries: each page loads one entry, which nothing imports; every
// other module is reached from an entry and only declares things when
// loaded (it acts when an entry calls it), so importing it twice, or from
// another page, changes nothing.
func TestEntries(t *testing.T) {
	g := imports(t)
	reached := map[string]bool{}
	var reach func(n string)
	reach = func(n string) {
		if reached[n] {
			return
		}
		reached[n] = true
		for _, m := range g[n] {
			reach(m)
		}
	}
	names, _ := fs.Glob(static.FS, "*.js")
	entries := 0
	for _, n := range names {
		if entryRE.MatchString(n) {
			entries++
			reach(n)
		}
	}
	if entries < 3 {
		t.Fatalf("found %d entries (page-*.js), want one per kind of page", entries)
	}
	for n, deps := range g {
		for _, m := range deps {
			if entryRE.MatchString(m) {
				t.Errorf("%s imports the entry %s: an entry is the top of its page", n, m)
			}
		}
	}
	for _, n := range names {
		if entryRE.MatchString(n) {
			continue
		}
		if !reached[n] {
			t.Errorf("no page's entry imports %s, directly or not", n)
		}
		b, _ := fs.ReadFile(static.FS, n)
		if m := actsRE.Find(b); m != nil {
			t.Errorf("%s acts when loaded (%q…): export a function for the entries to call", n, m)
		}
	}
}

// TestActsFinds: the check sees what acts and lets declarations be.
func TestActsFinds(t *testing.T) {
	acts := []string{"initTimes();\n", "document.addEventListener('click', f);\n", "new MutationObserver(f).observe(b);\n", "await x;\n", "(() => 1)();\n"}
	declares := []string{"const a = 1;\n", "export function f() {\n  g();\n}\n", "let x = null;\n", "import { a } from './a.js';\n", "export const o = {\n  a: f(),\n};\n"}
	for _, s := range acts {
		if !actsRE.MatchString(s) {
			t.Errorf("%q is not seen acting", s)
		}
	}
	for _, s := range declares {
		if actsRE.MatchString(s) {
			t.Errorf("%q is seen acting", s)
		}
	}
}
