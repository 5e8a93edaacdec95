package lsp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myco/server/lsp/lsptest"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func testEnv(t *testing.T) []string {
	// gopls needs go on PATH and a home for its caches; nothing else.
	home := t.TempDir()
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GOPATH=" + filepath.Join(home, "go"),
		"GOCACHE=" + cacheDir(t), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOPROXY=off"}
}

func cacheDir(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// A type error is reported with its line; once the file is fixed, the
// same server reports none.
func TestGoplsDiagnostics(t *testing.T) {
	bin := lsptest.Gopls(t)
	folder := t.TempDir()
	writeFile(t, filepath.Join(folder, "go.mod"), "module example.com/demo\n\ngo 1.22\n")
	main := filepath.Join(folder, "main.go")
	writeFile(t, main, "package main\n\nfunc main() {\n\tvar n int = \"five\"\n\t_ = n\n}\n")

	pool := NewPool(PoolOptions{Folder: folder, Env: testEnv(t), Found: []Found{{Kind: Kinds[0], Path: bin}}})
	defer pool.Close()
	target, err := pool.Target(main)
	if err != nil {
		t.Fatal(err)
	}
	if target.Root != folder || target.Running {
		t.Fatalf("target = %+v, want root %s, not running", target, folder)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	diags, err := pool.Diagnostics(ctx, target, main)
	if err != nil {
		t.Fatal(err)
	}
	out := Format("gopls", "main.go", diags)
	if !strings.Contains(out, "4:") || !strings.Contains(out, "error:") || !strings.Contains(out, "string") {
		t.Fatalf("diagnostics of the type error:\n%s", out)
	}
	if st, _ := pool.Statuses(); st[0].State != StateRunning || len(st[0].Roots) != 1 || !st[0].HasFiles {
		t.Fatalf("statuses = %+v, want gopls running in one root with Go files", st)
	}

	writeFile(t, main, "package main\n\nfunc main() {\n\tvar n int = 5\n\t_ = n\n}\n")
	diags, err = pool.Diagnostics(ctx, target, main)
	if err != nil {
		t.Fatal(err)
	}
	if len(diags) != 0 {
		t.Fatalf("diagnostics after the fix = %s", Format("gopls", "main.go", diags))
	}
}

// A server that never answers gives a clear error when the caller gives
// up (a stop), not a turn blocked for good; one that dies says so.
func TestStalledAndDeadServers(t *testing.T) {
	folder := t.TempDir()
	main := filepath.Join(folder, "main.go")
	writeFile(t, main, "package main\n")
	for _, tc := range []struct {
		name, script, want string
	}{
		{"stalled", "#!/bin/sh\nexec sleep 60\n", "context canceled"},
		{"dead", "#!/bin/sh\necho 'cannot find the toolchain' >&2\nexit 3\n", "cannot find the toolchain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := filepath.Join(t.TempDir(), "gopls")
			writeFile(t, fake, tc.script)
			if err := os.Chmod(fake, 0o755); err != nil {
				t.Fatal(err)
			}
			pool := NewPool(PoolOptions{Folder: folder, Env: []string{"PATH=/usr/bin:/bin"}, Found: []Found{{Kind: Kinds[0], Path: fake}}})
			defer pool.Close()
			target, err := pool.Target(main)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			if tc.name == "stalled" {
				time.AfterFunc(200*time.Millisecond, cancel) // the person's stop
			}
			defer cancel()
			_, err = pool.Diagnostics(ctx, target, main) // returns at the stop, the server killed
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
			st, _ := pool.Statuses()
			if tc.name == "dead" && (st[0].State != StateFailed || !strings.Contains(st[0].Error, tc.want)) {
				t.Fatalf("status = %+v, want failed with the server's words", st[0])
			}
		})
	}
}

func TestFinderAndFiles(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "go", "bin", "gopls"), "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(home, "go", "bin", "gopls"), 0o755); err != nil {
		t.Fatal(err)
	}
	onPath := map[string]string{"pyright-langserver": "/opt/bin/pyright-langserver"}
	f := Finder{Home: home, LookPath: func(name string) (string, error) {
		if p, ok := onPath[name]; ok {
			return p, nil
		}
		return "", exec.ErrNotFound
	}}
	found := f.Find()
	var names []string
	for _, x := range found {
		names = append(names, x.Name+"="+x.Path)
	}
	want := "gopls=" + filepath.Join(home, "go", "bin", "gopls") + " pyright=/opt/bin/pyright-langserver"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("found %s, want %s", got, want)
	}

	folder := t.TempDir()
	writeFile(t, filepath.Join(folder, "web", "src", "app.ts"), "")
	writeFile(t, filepath.Join(folder, "node_modules", "x", "y.py"), "")
	writeFile(t, filepath.Join(folder, "svc", "go.mod"), "module x\n")
	writeFile(t, filepath.Join(folder, "svc", "cmd", "main.go"), "package main\n")
	for _, tc := range []struct {
		kind int
		want bool
	}{{0, true}, {1, true}, {2, false}, {3, false}} {
		if got := HasFiles(folder, Kinds[tc.kind]); got != tc.want {
			t.Errorf("HasFiles(%s) = %v, want %v", Kinds[tc.kind].Name, got, tc.want)
		}
	}
	if got := Root(filepath.Join(folder, "svc", "cmd", "main.go"), folder, Kinds[0]); got != filepath.Join(folder, "svc") {
		t.Errorf("Root = %s, want the folder with go.mod", got)
	}
	if got := Root(filepath.Join(folder, "web", "src", "app.ts"), folder, Kinds[1]); got != folder {
		t.Errorf("Root without a marker = %s, want the session's folder", got)
	}
}

func TestFormat(t *testing.T) {
	d := func(line, col, sev int, msg string) Diagnostic {
		return Diagnostic{Range: lspRange{Start: position{line, col}}, Severity: sev, Message: msg, Source: "compiler"}
	}
	got := Format("gopls", "a.go", []Diagnostic{d(9, 0, SeverityWarning, "unused"), d(3, 4, 0, "bad\n  type")})
	want := "a.go: 1 error, 1 warning (from gopls)\n4:5 error: bad type (compiler)\n10:1 warning: unused (compiler)"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	many := make([]Diagnostic, MaxShown+3)
	if out := Format("gopls", "a.go", many); !strings.Contains(out, "[… 3 more not shown]") {
		t.Fatalf("cap: %s", out)
	}
	if out := Format("gopls", "a.go", nil); !strings.Contains(out, "no diagnostics") {
		t.Fatal(out)
	}
}

// A server unused for the idle time is stopped; the next call starts it
// again.
func TestIdleServerStops(t *testing.T) {
	bin := lsptest.Gopls(t)
	folder := t.TempDir()
	writeFile(t, filepath.Join(folder, "go.mod"), "module example.com/idle\n\ngo 1.22\n")
	main := filepath.Join(folder, "main.go")
	writeFile(t, main, "package main\n\nfunc main() {}\n")
	pool := NewPool(PoolOptions{Folder: folder, Env: testEnv(t), Found: []Found{{Kind: Kinds[0], Path: bin}}, Idle: 100 * time.Millisecond})
	defer pool.Close()
	target, err := pool.Target(main)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := pool.Diagnostics(ctx, target, main); err != nil {
		t.Fatal(err)
	}
	for {
		st, _ := pool.Statuses()
		if st[0].State == StateNotStarted {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("gopls still %s after its idle time", st[0].State)
		case <-time.After(50 * time.Millisecond):
		}
	}
	if target, _ = pool.Target(main); target.Running {
		t.Fatal("an idle-stopped server counts as running")
	}
	if diags, err := pool.Diagnostics(ctx, target, main); err != nil || len(diags) != 0 {
		t.Fatalf("after the idle stop: %v, %v", diags, err)
	}
}
