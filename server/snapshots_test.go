package server_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myco/e2e/fakellm"
	"myco/profiles"
	"myco/server"
	"myco/server/llm"
	"myco/session"
	"myco/snapshot"
)

// Deleting a session removes its snapshots; the other sessions' stay.
func TestDeleteRemovesTheSessionsSnapshots(t *testing.T) {
	t.Parallel()
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

// The undo routes' refusals, over HTTP: /diff of a .env is 403 (as
// read_file's refusal), and the plan of an undo while a turn runs (held by
// an approval) is 409 at once.
func TestUndoRoutesRefuse(t *testing.T) {
	t.Parallel()
	fake := fakellm.Start(t)
	settings := profiles.DefaultSettings()
	settings.DefaultModel = "anthropic/fake-model"
	settings.TitleModel = "anthropic/fake-title"
	settings.Providers = map[string]profiles.Provider{"anthropic": {BaseURL: fake.URL, APIKeyEnv: "FAKE_KEY"}}
	dir, work := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(work, ".env"), []byte("TOKEN=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, dir, func(o *server.Options) {
		o.DefaultModel, o.Settings = settings.DefaultModel, profiles.NewLiveSettings(settings)
		o.Models = llm.NewRegistry(settings, func(string) string { return "sk-test" }, o.Images)
		o.RetryDelays = []time.Duration{10 * time.Millisecond}
		o.ProfileDir = filepath.Join(dir, "profiles", "default")
	})
	doc, err := ts.sessions.Create(session.NewSession{Title: "s", Cwd: work})
	if err != nil {
		t.Fatal(err)
	}
	st := ts.stream(t, doc.ID)
	wantStatus(t, ts.send(doc.ID, "first [[say:ok]]"), http.StatusAccepted)
	st.until("turn.end")

	resp := ts.do("GET", "/api/sessions/"+doc.ID+"/diff?path=.env", nil)
	wantStatus(t, resp, http.StatusForbidden)
	if e := decode[struct{ Error string }](t, resp); !strings.Contains(e.Error, "is denied") {
		t.Errorf("/diff of .env: %q", e.Error)
	}

	wantStatus(t, ts.send(doc.ID, `second [[steps: tool:bash {"command":"true"} ;; say:ok]]`), http.StatusAccepted)
	st.until("tool.approval")
	resp = ts.do("GET", "/api/sessions/"+doc.ID+"/undo", nil)
	wantStatus(t, resp, http.StatusConflict)
	if e := decode[struct{ Error string }](t, resp); !strings.Contains(e.Error, "undo and redo wait until it ends") {
		t.Errorf("undo during a turn: %q", e.Error)
	}
	wantStatus(t, ts.do("POST", "/api/sessions/"+doc.ID+"/stop", nil), http.StatusOK)
	st.until("turn.end")
}
