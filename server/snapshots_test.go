package server_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"myco/server"
	"myco/session"
	"myco/snapshot"
)

// Deleting a session removes its snapshots; the other sessions' stay.
func TestDeleteRemovesTheSessionsSnapshots(t *testing.T) {
	dir := t.TempDir()
	profile := filepath.Join(dir, "profiles", "default")
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, dir, func(o *server.Options) { o.ProfileDir = profile })
	store := snapshot.Open(filepath.Join(profile, "snapshots"), nil)
	var ids []string
	for range 2 {
		doc, err := ts.sessions.Create(session.NewSession{Title: "s", Cwd: work})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.Take(doc.ID, "t.before", work); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, doc.ID)
	}
	wantStatus(t, ts.do("POST", "/api/sessions/"+ids[0]+"/archive", nil), http.StatusOK)
	wantStatus(t, ts.do("DELETE", "/api/sessions/"+ids[0], nil), http.StatusNoContent)
	if _, err := os.Stat(filepath.Join(profile, "snapshots", ids[0])); !os.IsNotExist(err) {
		t.Errorf("the deleted session's snapshots are still there: %v", err)
	}
	if !store.Has(ids[1], "t.before") {
		t.Error("another session's snapshot went too")
	}
}
