package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myco/snapshot"
)

// `myco sessions delete` removes the session's snapshots; `myco snapshots
// du` says how much room they take and what gc would free; gc --dry-run
// frees nothing, gc frees it.
func TestSnapshotCommands(t *testing.T) {
	c := newCLI(t)
	kept := c.create("default", "kept")
	gone := c.create("default", "gone")
	work := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	store := snapshot.Open(filepath.Join(c.home, "profiles", "default", "snapshots"), nil)
	take := func(id string) {
		t.Helper()
		if _, err := store.Take(id, "t.before", work); err != nil {
			t.Fatal(err)
		}
	}
	write("shared.txt", "shared\n")
	take(kept)
	write("own.txt", strings.Repeat("only the deleted session's\n", 100))
	take(gone)
	take("0199aaaa-orphan") // a session deleted by an older myco

	if err := c.store("default").Archive(gone); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := c.run("sessions", "delete", gone, "--yes")
	if code != 0 || !strings.Contains(out, "and its snapshots") {
		t.Fatalf("delete: %d %q %q", code, out, errOut)
	}
	if store.Has(gone, "t.before") {
		t.Error("the deleted session's snapshot is still there")
	}

	out, errOut, code = c.run("snapshots", "du")
	if code != 0 || !strings.Contains(out, "2 blobs") || !strings.Contains(out, "2 manifests of 2 sessions") ||
		!strings.Contains(out, "would free 2.6 KiB (1 blobs no snapshot needs, 1 deleted sessions' snapshots)") {
		t.Errorf("du: %d %q %q", code, out, errOut)
	}
	out, _, code = c.run("snapshots", "gc", "--dry-run")
	if code != 0 || !strings.Contains(out, "would free 2.6 KiB") || store.Has("0199aaaa-orphan", "t.before") == false {
		t.Errorf("gc --dry-run: %d %q", code, out)
	}
	out, errOut, code = c.run("snapshots", "gc")
	if code != 0 || !strings.Contains(out, "freed 2.6 KiB: 1 blobs no snapshot needs, the snapshots of 1 deleted sessions; 1 blobs kept") {
		t.Errorf("gc: %d %q %q", code, out, errOut)
	}
	if store.Has("0199aaaa-orphan", "t.before") || !store.Has(kept, "t.before") {
		t.Error("gc removed the wrong manifests")
	}
	if _, _, code = c.run("snapshots", "nope"); code != 2 {
		t.Errorf("unknown subcommand: exit %d, want 2", code)
	}
}
