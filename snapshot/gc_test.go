package snapshot

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Deleting a session removes its manifests; GC then removes the blobs no
// other manifest refers to (a dry run first only says so), the manifests
// of sessions that no longer exist, and the blobs of denied files an older
// myco copied.
func TestDeleteAndGC(t *testing.T) {
	dir, root := t.TempDir(), t.TempDir()
	write(t, dir, "shared.txt", "both sessions hold me\n")
	write(t, dir, "a.txt", "only the deleted session holds me\n")
	write(t, dir, ".env", "TOKEN=old-copy\n")
	old := Open(root, nil) // an older myco: no rule, the .env copied
	take1 := func(st *Store, session, name string) {
		t.Helper()
		if _, err := st.Take(session, name, dir); err != nil {
			t.Fatal(err)
		}
	}
	take1(old, "gone", "t.before")
	os.Remove(filepath.Join(dir, "a.txt"))
	os.Remove(filepath.Join(dir, ".env"))
	st := Open(root, Deny(func(abs string) bool { return filepath.Base(abs) == ".env" }))
	take1(st, "kept", "t.before")
	take1(st, "orphan", "t.before") // a session deleted by a myco that left its snapshots
	write(t, dir, "orphan.txt", "only the orphan holds me\n")
	take1(st, "orphan", "t.after")
	if err := st.DeleteSession("gone"); err != nil {
		t.Fatal(err)
	}
	if st.Has("gone", "t.before") {
		t.Fatal("a deleted session's manifest is still there")
	}
	u, err := st.Usage()
	if err != nil || u.Sessions != 2 || u.Blobs != 4 || u.Bytes() == 0 {
		t.Fatalf("usage %+v, %v; want 2 sessions and 4 blobs", u, err)
	}
	keep := func(id string) bool { return id != "orphan" }

	dry, err := st.GC(keep, true)
	if err != nil {
		t.Fatal(err)
	}
	// a.txt's and the .env's blobs (the gone session's), orphan.txt's.
	if dry.Blobs != 3 || dry.Kept != 1 || !slices.Equal(dry.Sessions, []string{"orphan"}) || dry.Bytes == 0 {
		t.Errorf("dry run %+v, want 3 blobs of the orphan and the gone session, 1 kept", dry)
	}
	if after, _ := st.Usage(); after != u {
		t.Errorf("a dry run changed the store: %+v → %+v", u, after)
	}
	rep, err := st.GC(keep, false)
	if err != nil || rep.Blobs != dry.Blobs || rep.Bytes != dry.Bytes {
		t.Fatalf("gc %+v, %v; want what the dry run said, %+v", rep, err, dry)
	}
	after, _ := st.Usage()
	if after.Sessions != 1 || after.Blobs != 1 || after.BlobBytes != int64(len("both sessions hold me\n")) {
		t.Errorf("after gc %+v, want the kept session and its one blob", after)
	}
	// What is kept still restores.
	m, err := st.Load("kept", "t.before")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m.Files {
		if _, err := st.Blob(e.SHA256); err != nil {
			t.Errorf("a kept blob is gone: %v", err)
		}
	}
}
