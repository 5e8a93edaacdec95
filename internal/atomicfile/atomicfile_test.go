package atomicfile_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"myco/internal/atomicfile"
)

// TestWriteReplacesAndLeavesNoTemp holds for a synced and a volatile
// write alike: only the fsyncs differ.
func TestWriteReplacesAndLeavesNoTemp(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts atomicfile.Options
	}{
		{"synced", atomicfile.Options{}},
		{"volatile", atomicfile.Options{Volatile: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "doc.json")
			for _, data := range []string{"one", "two, longer"} {
				if err := atomicfile.Write(path, []byte(data), tt.opts); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(path)
				if err != nil || string(got) != data {
					t.Fatalf("read %q, %v; want %q", got, err, data)
				}
			}
			info, _ := os.Stat(path)
			if info.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", info.Mode().Perm())
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("folder holds %d entries, want only the file", len(entries))
			}
		})
	}
}

func TestWriteFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "doc.json")
	os.WriteFile(path, []byte("old"), 0o600)
	err := atomicfile.Write(path, []byte("new"), atomicfile.Options{Prepare: func(*os.File) error { return os.ErrPermission }})
	if err == nil {
		t.Fatal("Write succeeded although Prepare failed")
	}
	got, _ := os.ReadFile(path)
	entries, _ := os.ReadDir(dir)
	if string(got) != "old" || len(entries) != 1 {
		t.Errorf("after a failed write: file %q, %d entries; want old, 1", got, len(entries))
	}
}

func TestSweep(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, atomicfile.TempPrefix+"a.json-1")
	young := filepath.Join(dir, atomicfile.TempPrefix+"a.json-2")
	other := filepath.Join(dir, atomicfile.TempPrefix+"b.json-1")
	for _, p := range []string{old, young, other} {
		os.WriteFile(p, nil, 0o600)
	}
	past := time.Now().Add(-2 * time.Hour)
	os.Chtimes(old, past, past)
	os.Chtimes(other, past, past)
	if err := atomicfile.Sweep(dir, "a.json", time.Hour); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{old: false, young: true, other: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}

// Sweep reads a large folder in batches: temp files in every batch go,
// whatever their place among the other names, and nothing else does.
func TestSweepLargeFolder(t *testing.T) {
	for _, n := range []int{0, 1, 255, 256, 257, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dir := t.TempDir()
			past := time.Now().Add(-2 * time.Hour)
			var temps, kept []string
			for i := range n {
				kept = append(kept, filepath.Join(dir, fmt.Sprintf("s%04d.json", i)))
				if i%97 == 0 {
					temps = append(temps, filepath.Join(dir, fmt.Sprintf("%ss%04d.json-1", atomicfile.TempPrefix, i)))
				}
			}
			for _, p := range append(append([]string(nil), kept...), temps...) {
				if err := os.WriteFile(p, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(p, past, past); err != nil {
					t.Fatal(err)
				}
			}
			if err := atomicfile.Sweep(dir, "", time.Hour); err != nil {
				t.Fatal(err)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != len(kept) {
				t.Errorf("%d names left, want the %d that are not temp files", len(entries), len(kept))
			}
			for _, e := range entries {
				if atomicfile.IsTemp(e.Name(), "") {
					t.Errorf("temp file %s left", e.Name())
				}
			}
		})
	}
}
