package importer_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myco/importer"
)

// copyTree copies the files under from into to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(to, filepath.Dir(rel)), 0o700); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// archiveOCSession sets time.archived in the fixture's session file under
// storage, as opencode does when a session is archived.
func archiveOCSession(t *testing.T, storage string) {
	t.Helper()
	p := filepath.Join(storage, "session", "proj1", "ses_1.json")
	var s map[string]any
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	tm := s["time"].(map[string]any)
	tm["archived"] = tm["updated"]
	if b, err = json.Marshal(s); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestImportArchived: a session the tool had archived lands in myco's
// archived sessions (the report says so), and a second import finds it
// there; one it had not archived stays in the list.
func TestImportArchived(t *testing.T) {
	ocArchived := func(t *testing.T) string {
		storage := filepath.Join(t.TempDir(), "storage")
		copyTree(t, "testdata/opencode/storage", storage)
		archiveOCSession(t, storage)
		return storage
	}
	noArchivedColumn := strings.Replace(ocSchema, ", time_archived integer", "", 1)
	if noArchivedColumn == ocSchema {
		t.Fatal("the schema has no time_archived column to leave out")
	}
	cxHome := t.TempDir()
	copyTree(t, "testdata/codex", filepath.Join(cxHome, "sessions"))
	good := "rollout-2026-08-01T11-00-00-019b0000-0000-7000-8000-000000000001.jsonl"
	b, err := os.ReadFile(filepath.Join("testdata/codex/2026/08/01", good))
	if err != nil {
		t.Fatal(err)
	}
	archivedRollout := strings.ReplaceAll(good, "000000000001", "000000000003")
	if err := os.MkdirAll(filepath.Join(cxHome, "archived_sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cxHome, "archived_sessions", archivedRollout),
		[]byte(strings.ReplaceAll(string(b), "000000000001", "000000000003")), 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, tool string
		path       func(t *testing.T) string
		archived   map[string]bool // base name of the source path → archived
	}{
		{"opencode storage", importer.OpenCode, ocArchived, map[string]bool{"ses_1.json": true}},
		{"opencode database", importer.OpenCode, func(t *testing.T) string {
			return migrateFrom(t, t.TempDir(), ocArchived(t), ocSchema)
		}, map[string]bool{"opencode.db": true}},
		{"opencode database before time_archived", importer.OpenCode, func(t *testing.T) string {
			return migrateFrom(t, t.TempDir(), ocArchived(t), noArchivedColumn)
		}, map[string]bool{"opencode.db": false}},
		{"codex sessions and archived_sessions", importer.Codex, func(t *testing.T) string {
			return filepath.Join(cxHome, "sessions")
		}, map[string]bool{good: false, archivedRollout: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newStores(t)
			path := tt.path(t)
			rep := st.run(t, tt.tool, path)
			if rep.Imported != len(tt.archived) {
				t.Fatalf("imported %d, want %d: %+v", rep.Imported, len(tt.archived), rep.Items)
			}
			for _, it := range rep.Items {
				if it.Outcome != importer.Imported {
					continue
				}
				want := tt.archived[filepath.Base(it.Path)]
				if it.Archived != want {
					t.Errorf("%s: reported archived %v, want %v (notes %q)", filepath.Base(it.Path), it.Archived, want, it.Notes)
				}
				got, err := st.sessions.IsArchived(it.Session)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("%s: session %s archived %v, want %v", filepath.Base(it.Path), it.Session, got, want)
				}
				doc, err := st.sessions.Load(it.Session)
				if err != nil {
					t.Fatal(err)
				}
				if doc.Archived != want || len(doc.Threads) == 0 || len(doc.Threads[0].Messages) == 0 {
					t.Errorf("%s: document archived %v with %d threads, want %v and its messages", filepath.Base(it.Path), doc.Archived, len(doc.Threads), want)
				}
			}
			again := st.run(t, tt.tool, path)
			if again.Imported != 0 || again.Already != len(tt.archived) {
				t.Errorf("second import: %d imported, %d before; want 0, %d", again.Imported, again.Already, len(tt.archived))
			}
		})
	}
}
