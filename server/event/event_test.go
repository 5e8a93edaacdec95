package event

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every type with a Name method is in the table that Names reads.
func TestNamesListsEveryType(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "event.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "Name" && fn.Recv != nil {
			declared = append(declared, fn.Recv.List[0].Type.(*ast.Ident).Name)
		}
	}
	var listed []string
	for _, e := range all {
		listed = append(listed, reflect.TypeOf(e).Name())
	}
	slices.Sort(declared)
	slices.Sort(listed)
	if !slices.Equal(declared, listed) {
		t.Errorf("types with Name %v, in the table %v", declared, listed)
	}
	names := Names()
	if len(slices.Compact(slices.Sorted(slices.Values(names)))) != len(names) {
		t.Errorf("a name is used twice: %v", names)
	}
}

// docRow matches a row of the events table: | `name` | data |.
var docRow = regexp.MustCompile("(?m)^\\| `([a-z.]+)` \\| (.*) \\|$")

// docs/API.md lists every event, and each row names every field of the
// event's JSON; it lists no event that does not exist.
func TestAPIDocListsEveryEvent(t *testing.T) {
	b, err := os.ReadFile("../../docs/API.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "\n## Events")
	if start < 0 {
		t.Fatal("docs/API.md has no Events section")
	}
	section := doc[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	rows := map[string]string{}
	for _, m := range docRow.FindAllStringSubmatch(section, -1) {
		rows[m[1]] = m[2]
	}
	for _, e := range all {
		row, ok := rows[e.Name()]
		if !ok {
			t.Errorf("docs/API.md: no row for %s", e.Name())
			continue
		}
		for _, field := range jsonFields(reflect.TypeOf(e)) {
			if !regexp.MustCompile(`\b` + regexp.QuoteMeta(field) + `\b`).MatchString(row) {
				t.Errorf("docs/API.md: %s row does not name field %q", e.Name(), field)
			}
		}
		delete(rows, e.Name())
	}
	for name := range rows {
		t.Errorf("docs/API.md lists %s, which no type defines", name)
	}
}

// jsonFields are the top-level JSON names of a struct type.
func jsonFields(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// static/events.js lists exactly these names. It is written by hand and
// checked here rather than generated: it reads as the page's own module,
// and a stale copy fails this test the same way a stale generated file
// would fail a check.
func TestStaticEventsMatch(t *testing.T) {
	b, err := os.ReadFile("../../static/events.js")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range regexp.MustCompile(`(?m)^\s+\w+: '([a-z.]+)',$`).FindAllStringSubmatch(string(b), -1) {
		got = append(got, m[1])
	}
	want := Names()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("static/events.js names %v, want %v", got, want)
	}
}
