package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// TestReadDocsMatchesReadDir holds readDocs (a few large getdents calls
// on Linux) to what os.ReadDir says of the same folder: every name, each
// with its type, and Info an lstat of it.
func TestReadDocsMatchesReadDir(t *testing.T) {
	for _, n := range []int{0, 3, 9000} { // 9,000 names take several 256 KiB reads
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dir := t.TempDir()
			for i := range n {
				name := fmt.Sprintf("%08d-a-longer-name-like-a-session-id.json", i)
				if err := os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Mkdir(filepath.Join(dir, "archived"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("nowhere", filepath.Join(dir, "link.json")); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := readDocs(dir)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			describe := func(es []fs.DirEntry) []string {
				var out []string
				for _, e := range es {
					info, err := e.Info()
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, fmt.Sprintf("%s %v %v %v %d", e.Name(), e.Type(), e.IsDir(), info.Mode(), info.Size()))
				}
				slices.Sort(out)
				return out
			}
			if g, w := describe(got), describe(want); !slices.Equal(g, w) {
				t.Errorf("readDocs differs from os.ReadDir: %d entries against %d", len(g), len(w))
				for i := range min(len(g), len(w)) {
					if g[i] != w[i] {
						t.Fatalf("first difference: %q against %q", g[i], w[i])
					}
				}
			}
		})
	}
}

func TestReadDocsMissingFolder(t *testing.T) {
	if _, err := readDocs(filepath.Join(t.TempDir(), "gone")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want one that says the folder does not exist", err)
	}
}

// BenchmarkReadDocs20000 reads a folder of 20,000 names, as a profile of
// 10,000 sessions has (a document and a lock each), against os.ReadDir.
func BenchmarkReadDocs20000(b *testing.B) {
	dir := b.TempDir()
	for i := range 20000 {
		name := fmt.Sprintf("019adf09-4d0d-7c84-a173-%012d.json", i)
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("readDocs", func(b *testing.B) {
		for b.Loop() {
			if _, err := readDocs(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("os.ReadDir", func(b *testing.B) {
		for b.Loop() {
			if _, err := readFolderPortable(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
}
