package snapshot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t testing.TB, dir, rel, body string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, dir, rel string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if os.IsNotExist(err) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

func TestTakeRestore(t *testing.T) {
	dir, root := t.TempDir(), t.TempDir()
	write(t, dir, "a.txt", "one\n")
	write(t, dir, "gone.txt", "bye\n")
	write(t, dir, "sub/b.txt", "two\n")
	write(t, dir, ".gitignore", "build/\n*.log\n!keep.log\n")
	write(t, dir, "build/out.bin", "x")
	write(t, dir, "x.log", "log")
	write(t, dir, "keep.log", "kept")
	write(t, dir, ".git/HEAD", "ref")
	write(t, dir, "sub/.gitignore", "local.txt\n")
	write(t, dir, "sub/local.txt", "mine")

	s := Open(root, nil)
	before, err := s.Take("s1", "t1.before", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"build/out.bin", "x.log", ".git/HEAD", "sub/local.txt"} {
		if _, ok := before.Files[p]; ok {
			t.Errorf("%s is in the snapshot; ignored files and .git stay out", p)
		}
	}
	for _, p := range []string{"a.txt", "gone.txt", "sub/b.txt", "keep.log", ".gitignore"} {
		if _, ok := before.Files[p]; !ok {
			t.Errorf("%s is not in the snapshot", p)
		}
	}

	// The turn: an edit, a new file in a new folder, a deletion.
	write(t, dir, "a.txt", "one changed\n")
	write(t, dir, "new/c.txt", "new\n")
	os.Remove(filepath.Join(dir, "gone.txt"))
	after, err := s.Take("s1", "t1.after", dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range Compare(before, after) {
		got[c.Path] = c.Kind
	}
	want := map[string]string{"a.txt": Modified, "new/c.txt": Added, "gone.txt": Removed}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Compare = %v, want %v", got, want)
	}

	// A fresh store (a restart) loads the manifest from disk.
	s2 := Open(root, nil)
	m, err := s2.Load("s1", "t1.before")
	if err != nil {
		t.Fatal(err)
	}
	now, err := s2.Scan("s1", dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Restore(m, now); err != nil {
		t.Fatal(err)
	}
	if b, _ := read(t, dir, "a.txt"); b != "one\n" {
		t.Errorf("a.txt = %q after restore", b)
	}
	if b, ok := read(t, dir, "gone.txt"); !ok || b != "bye\n" {
		t.Errorf("gone.txt = %q, %v after restore", b, ok)
	}
	if _, ok := read(t, dir, "new/c.txt"); ok {
		t.Error("new/c.txt is still there after restore")
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Error("the folder the turn made is still there")
	}
	if b, _ := read(t, dir, "build/out.bin"); b != "x" {
		t.Error("an ignored file was touched")
	}
	if b, _ := read(t, dir, "sub/local.txt"); b != "mine" {
		t.Error("a file ignored by a nested .gitignore was touched")
	}
	// And forward again.
	now, _ = s2.Scan("s1", dir)
	a, _ := s2.Load("s1", "t1.after")
	if _, err := s2.Restore(a, now); err != nil {
		t.Fatal(err)
	}
	if b, _ := read(t, dir, "a.txt"); b != "one changed\n" {
		t.Errorf("a.txt = %q after redo", b)
	}
	if _, ok := read(t, dir, "gone.txt"); ok {
		t.Error("gone.txt is back after redo")
	}
}

func TestUnder(t *testing.T) {
	cs := []Change{{Path: "a.txt"}, {Path: "sub/b.txt"}, {Path: "subway.txt"}}
	for _, tc := range []struct {
		p    string
		want int
	}{{"", 3}, {"sub", 1}, {"sub/", 1}, {"a.txt", 1}, {"none", 0}} {
		if got := len(Under(cs, tc.p)); got != tc.want {
			t.Errorf("Under(%q) has %d, want %d", tc.p, got, tc.want)
		}
	}
}

func TestBadNames(t *testing.T) {
	s := Open(t.TempDir(), nil)
	if _, err := s.Take("../x", "a", t.TempDir()); err == nil {
		t.Error("a session name with .. was accepted")
	}
	if _, err := s.Blob("../../etc/passwd"); err == nil {
		t.Error("a bad blob name was accepted")
	}
}

// BenchmarkTurn is the cost per turn that undo adds: a folder of 5,000
// files where the turn changed ten, snapshotted before the turn and after
// it (the changes themselves are not timed). Figures in
// docs/PERFORMANCE.md.
func BenchmarkTurn(b *testing.B) {
	dir, root := b.TempDir(), b.TempDir()
	for i := range 5000 {
		write(b, dir, fmt.Sprintf("pkg%02d/file%04d.go", i%50, i), fmt.Sprintf("package p\n\n// file %d\n%0400d\n", i, i))
	}
	// Files a turn did not touch are old, as in a real project (a file
	// changed in the second before a scan is hashed again: racily clean).
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(dir, func(p string, _ os.DirEntry, _ error) error { return os.Chtimes(p, old, old) })
	s := Open(root, nil)
	if _, err := s.Take("bench", "warm", dir); err != nil {
		b.Fatal(err)
	}
	for n := 0; b.Loop(); n++ {
		if _, err := s.Take("bench", fmt.Sprintf("t%d.before", n), dir); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		for j := range 10 {
			write(b, dir, fmt.Sprintf("pkg%02d/file%04d.go", j, j*50+j), fmt.Sprintf("changed %d %d\n", n, j))
		}
		b.StartTimer()
		if _, err := s.Take("bench", fmt.Sprintf("t%d.after", n), dir); err != nil {
			b.Fatal(err)
		}
	}
}

// A folder past MaxFiles is not snapshotted: nothing is copied, and the
// marker saved in its place loads as the error that says how large, so
// /undo and /diff can say it rather than "nothing to undo".
func TestTooLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 50001 files")
	}
	dir := t.TempDir()
	for i := range MaxFiles + 1 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	root := t.TempDir()
	st := Open(root, nil)
	_, err := st.Take("s", "before-1", dir)
	var tl *TooLargeError
	if !errors.As(err, &tl) || !errors.Is(err, ErrTooLarge) || tl.Files != MaxFiles+1 {
		t.Fatalf("Take of %d files: %v, want a *TooLargeError of %d files", MaxFiles+1, err, MaxFiles+1)
	}
	if !strings.Contains(err.Error(), "too large to snapshot: more than 50000 files") {
		t.Errorf("error %q does not say how large", err)
	}
	if !st.Has("s", "before-1") {
		t.Fatal("no marker was saved")
	}
	if _, err := st.Load("s", "before-1"); !errors.As(err, &tl) {
		t.Errorf("Load of the marker: %v, want the *TooLargeError", err)
	}
	if _, err := os.Stat(filepath.Join(root, "blobs")); !os.IsNotExist(err) {
		t.Errorf("blobs were stored for a folder too large: %v", err)
	}
}

// A session working in a folder that holds myco's data (the home folder,
// /tmp) never snapshots the data, the store itself among it.
func TestSkipsMycoData(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "myco-home")
	root := filepath.Join(home, "profiles", "default", "snapshots")
	for _, f := range []string{filepath.Join(home, "profiles", "default", "session", "a.json"), filepath.Join(dir, "work.txt")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st := Open(root, Deny(func(abs string) bool { return abs == home || strings.HasPrefix(abs, home+"/") }))
	m, err := st.Take("s", "before-1", dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Files["work.txt"]; !ok || len(m.Files) != 1 {
		t.Errorf("files %v, want only work.txt", m.Files)
	}
	// A second snapshot still sees none of the store it wrote into.
	if m, err = st.Take("s", "after-1", dir); err != nil || len(m.Files) != 1 {
		t.Errorf("second snapshot %v, %v", m.Files, err)
	}
}
