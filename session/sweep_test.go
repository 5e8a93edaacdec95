package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myco/internal/atomicfile"
)

func TestSweep(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, atomicfile.TempPrefix+"a.json-1")
	young := filepath.Join(dir, atomicfile.TempPrefix+"a.json-2")
	other := filepath.Join(dir, atomicfile.TempPrefix+"b.json-1")
	oldDir := filepath.Join(dir, atomicfile.TempPrefix+"a.json-3") // not a file: never removed
	for _, p := range []string{old, young, other} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(oldDir, 0o700); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-2 * time.Hour)
	for _, p := range []string{old, other, oldDir} {
		if err := os.Chtimes(p, past, past); err != nil {
			t.Fatal(err)
		}
	}
	if err := sweep(dir, "a.json", time.Hour); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{old: false, young: true, other: true, oldDir: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
	if err := sweep(filepath.Join(dir, "gone"), "", 0); err != nil {
		t.Errorf("sweeping a folder that does not exist: %v, want nothing to do", err)
	}
}

// A large folder takes many getdents calls: temp files in every one go,
// whatever their place among the other names, and nothing else does.
func TestSweepLargeFolder(t *testing.T) {
	for _, n := range []int{0, 1, 255, 256, 257, 1000, 3000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dir := t.TempDir()
			past := time.Now().Add(-2 * time.Hour)
			var temps, kept []string
			for i := range n {
				kept = append(kept, filepath.Join(dir, fmt.Sprintf("019adf09-4d0d-7c84-a173-%012d.json", i)))
				if i%97 == 0 {
					temps = append(temps, filepath.Join(dir, fmt.Sprintf("%s019adf09-4d0d-7c84-a173-%012d.json-1", atomicfile.TempPrefix, i)))
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
			if err := sweep(dir, "", time.Hour); err != nil {
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
				if strings.HasPrefix(e.Name(), atomicfile.TempPrefix) {
					t.Errorf("temp file %s left", e.Name())
				}
			}
		})
	}
}

// BenchmarkSweepSession is the sweep an open of a session makes in a
// folder of 10,000 sessions: 20,000 names, none of them its temp files.
func BenchmarkSweepSession(b *testing.B) {
	dir := b.TempDir()
	for i := range 20000 {
		name := fmt.Sprintf("019adf09-4d0d-7c84-a173-%012d.json", i)
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := sweepSessionTemp(dir, "019adf09-4d0d-7c84-a173-000000000042"); err != nil {
			b.Fatal(err)
		}
	}
}
