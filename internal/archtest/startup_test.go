package archtest

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// heavyInit lists packages whose initialisation costs a start of myco
// tens of milliseconds before it serves its first page, with where to go
// instead. Go runs every linked package's init, so the only way to keep
// the cost out of a start is to keep the package out of the binary.
var heavyInit = map[string]string{
	// Parses all 279 of chroma's XML lexers (30-55 ms).
	"github.com/alecthomas/chroma/v2/lexers": "myco/internal/lexers, which registers a curated set at the first code block",
	// Parses every style chroma has.
	"github.com/alecthomas/chroma/v2/styles": "web/chromacss, which writes static/chroma.css ahead of time",
	// Imports both of the above.
	"github.com/yuin/goldmark-highlighting/v2": "web's fencedCode renderer",
}

// TestStartupImportsNoHeavyInit fails when myco's binary links a package
// of heavyInit again.
func TestStartupImportsNoHeavyInit(t *testing.T) {
	deps := listDeps(t, module+"/cmd/myco")
	for _, bad := range heavyBy(deps) {
		t.Errorf("cmd/myco links %s, whose package initialisation slows every start: use %s", bad, heavyInit[bad])
	}
}

// heavyBy lists the packages of deps that heavyInit names, sorted.
func heavyBy(deps []string) []string {
	var out []string
	for _, d := range deps {
		if _, ok := heavyInit[d]; ok {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

func TestHeavyBy(t *testing.T) {
	tests := []struct {
		name string
		deps []string
		want []string
	}{
		{"none", []string{"fmt", "github.com/alecthomas/chroma/v2", "myco/web"}, nil},
		{"lexers", []string{"github.com/alecthomas/chroma/v2/lexers", "fmt"}, []string{"github.com/alecthomas/chroma/v2/lexers"}},
		{"highlighting and styles", []string{"github.com/yuin/goldmark-highlighting/v2", "github.com/alecthomas/chroma/v2/styles"},
			[]string{"github.com/alecthomas/chroma/v2/styles", "github.com/yuin/goldmark-highlighting/v2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := heavyBy(tt.deps); !slices.Equal(got, tt.want) {
				t.Errorf("heavyBy(%q) = %q, want %q", tt.deps, got, tt.want)
			}
		})
	}
}

// listDeps asks the go command for every package pkg's binary links.
func listDeps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, ee.Stderr)
	}
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, pkg) {
		t.Fatalf("go list -deps %s: %s is not in its own list", pkg, pkg)
	}
	return deps
}
