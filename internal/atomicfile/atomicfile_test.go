package atomicfile_test

import (
	"os"
	"path/filepath"
	"testing"

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
