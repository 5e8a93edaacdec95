package filepick_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"myco/server/filepick"
)

// tree makes files (a trailing slash makes a folder) under a new folder.
func tree(t testing.TB, files ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if strings.HasSuffix(f, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestWalkLeavesOut(t *testing.T) {
	root := tree(t,
		"README.md", "src/app/runtime.ts", ".env", ".git/config", "node_modules/x/index.js",
		"dist/app.js", "build/out.o", "target/debug/x", "out/a", ".next/x", "vendor/a.go",
		".venv/lib/x.py", "venv/lib/y.py", "env2/pyvenv.cfg", "env2/lib/z.py", "pkg/__pycache__/a.pyc",
		".gitignore", "secret.log", "logs/", "src/.gitignore", "src/gen.ts", "src/keep.ts",
	)
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\nlogs/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src/.gitignore"), []byte("gen.ts\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := filepick.Walk(root, 1000)
	want := []string{"README.md", "pkg/", "src/", "src/app/", "src/keep.ts", "src/app/runtime.ts"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Walk (-want +got):\n%s", diff)
	}
	if got := filepick.Walk(root, 2); len(got) != 2 {
		t.Errorf("Walk with a cap of 2 = %q", got)
	}
}

func TestFind(t *testing.T) {
	root := tree(t, "src/app/runtime.ts", "src/app/router.ts", "docs/rant.md", "README.md", "server/live/notes.go")
	ix := filepick.New(filepick.Options{})
	tests := []struct {
		name, query string
		limit       int
		keep        func(string) bool
		want        []string
	}{
		{"fuzzy, best first", "rntm", 10, nil, []string{"docs/rant.md", "src/app/runtime.ts"}},
		{"letters in order only", "router", 10, nil, []string{"src/app/router.ts"}},
		{"case folds", "README", 10, nil, []string{"README.md"}},
		{"nothing", "zzzz", 10, nil, []string{}},
		{"empty query is the shallowest", "", 3, nil, []string{"README.md", "docs/", "server/"}},
		{"capped", "s", 2, nil, nil},
		{"keep decides", "rntm", 10, func(rel string) bool { return !strings.HasSuffix(rel, ".ts") }, []string{"docs/rant.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ix.Find(context.Background(), root, tt.query, tt.limit, tt.keep)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == nil {
				if len(got) != tt.limit {
					t.Errorf("Find(%q) = %q, want %d hits", tt.query, got, tt.limit)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Find(%q) (-want +got):\n%s", tt.query, diff)
			}
		})
	}
}

// TestFindRefreshes: a list past its TTL is served once more while a new
// walk runs; the next query sees the new file.
func TestFindRefreshes(t *testing.T) {
	root := tree(t, "a.go")
	now := time.Unix(1000, 0)
	ix := filepick.New(filepick.Options{TTL: time.Second, Now: func() time.Time { return now }})
	ctx := context.Background()
	if got, _ := ix.Find(ctx, root, "b.go", 5, nil); len(got) != 0 {
		t.Fatalf("before: %q", got)
	}
	if err := os.WriteFile(filepath.Join(root, "b.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Second)
	for range 1000 {
		got, err := ix.Find(ctx, root, "b.go", 5, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 1 && got[0] == "b.go" {
			return
		}
		time.Sleep(time.Millisecond) // the refresh runs behind the query
	}
	t.Fatal("the new file never showed")
}

// TestFindCancelled: a query gives up with its context while the first
// walk goes on.
func TestFindCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ix := filepick.New(filepick.Options{})
	if _, err := ix.Find(ctx, t.TempDir(), "x", 5, nil); err == nil {
		// the walk of an empty folder may have won the race: fine
		t.Log("walk finished first")
	}
}

// BenchmarkFind100k: one query over a 100,000-file tree once its list is
// walked (what each keystroke costs), and the walk itself.
func BenchmarkFind100k(b *testing.B) {
	root := b.TempDir()
	n := 0
	for i := 0; n < 100_000; i++ {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", i%100), fmt.Sprintf("mod%03d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := 0; j < 50 && n < 100_000; j++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file_%d_%d.go", i, j)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "src/app"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src/app/runtime.ts"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			if got := filepick.Walk(root, 200_000); len(got) < 100_000 {
				b.Fatalf("walked %d", len(got))
			}
		}
	})
	b.Run("query", func(b *testing.B) {
		ix := filepick.New(filepick.Options{TTL: time.Hour})
		ctx := context.Background()
		for b.Loop() {
			got, err := ix.Find(ctx, root, "rntm", 50, nil)
			if err != nil || len(got) == 0 || got[0] != "src/app/runtime.ts" {
				b.Fatalf("Find = %q, %v", got, err)
			}
		}
	})
	// The worst case: every path holds the query's letters, so each one
	// is scored.
	b.Run("query-all-match", func(b *testing.B) {
		ix := filepick.New(filepick.Options{TTL: time.Hour})
		ctx := context.Background()
		for b.Loop() {
			got, err := ix.Find(ctx, root, "fgo", 50, nil)
			if err != nil || len(got) != 50 {
				b.Fatalf("Find = %d hits, %v", len(got), err)
			}
		}
	})
}
