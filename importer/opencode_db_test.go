package importer_test

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/ncruces/go-sqlite3/driver"

	"myco/importer"
	"myco/session"
)

// ocSchema is opencode 1.2's tables as its migrations make them
// (packages/opencode/src/session/session.sql.ts), the columns the import
// does not read included, so a query that names a wrong column fails here.
const ocSchema = `
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text,
	time_created integer NOT NULL, time_updated integer NOT NULL, sandboxes text NOT NULL DEFAULT '[]');
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, slug text NOT NULL,
	directory text NOT NULL, title text NOT NULL, version text NOT NULL, share_url text,
	summary_additions integer, summary_deletions integer, summary_files integer, summary_diffs text,
	revert text, permission text, time_created integer NOT NULL, time_updated integer NOT NULL,
	time_compacting integer, time_archived integer);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL,
	time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
	time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX message_session_idx ON message (session_id);
CREATE INDEX part_message_idx ON part (message_id);
`

// migrate writes testdata/opencode's JSON storage into a new opencode.db
// in dir, as opencode 1.2's migration does (json-migration.ts): the IDs
// become columns and the rest of each object the data column. A file
// that is not JSON goes in as it is, a damaged row.
func migrate(t *testing.T, dir string) string {
	t.Helper()
	return migrateFrom(t, dir, "testdata/opencode/storage", ocSchema)
}

// migrateFrom is migrate of the JSON storage in storage, into tables
// made by schema; a session's time.archived goes in time_archived, where
// schema has that column.
func migrateFrom(t *testing.T, dir, storage, schema string) string {
	t.Helper()
	path := filepath.Join(dir, "opencode.db")
	db, err := sql.Open("sqlite3", "file:"+path+"?_pragma=journal_mode(wal)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(schema); err != nil {
		t.Fatal(err)
	}
	readObj := func(p string) (map[string]any, []byte) {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if json.Unmarshal(raw, &obj) != nil {
			return nil, raw
		}
		return obj, raw
	}
	data := func(obj map[string]any, raw []byte, drop ...string) string {
		if obj == nil {
			return string(raw)
		}
		for _, k := range drop {
			delete(obj, k)
		}
		b, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	sessions, _ := filepath.Glob(filepath.Join(storage, "session", "*", "*.json"))
	for _, f := range sessions {
		s, _ := readObj(f)
		tm := s["time"].(map[string]any)
		if _, err := db.Exec(`INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			s["id"], s["projectID"], "fix-the-build", s["directory"], s["title"], s["version"], tm["created"], tm["updated"]); err != nil {
			t.Fatal(err)
		}
		if archived, ok := tm["archived"]; ok && strings.Contains(schema, "time_archived") {
			if _, err := db.Exec(`UPDATE session SET time_archived = ? WHERE id = ?`, archived, s["id"]); err != nil {
				t.Fatal(err)
			}
		}
		msgs, _ := filepath.Glob(filepath.Join(storage, "message", s["id"].(string), "*.json"))
		for _, mf := range msgs {
			m, raw := readObj(mf)
			id := strings.TrimSuffix(filepath.Base(mf), ".json")
			// opencode's migration orders by the row's time; the
			// fixture's messages give theirs.
			created := m["time"].(map[string]any)["created"]
			if _, err := db.Exec(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`,
				id, s["id"], created, created, data(m, raw, "id", "sessionID")); err != nil {
				t.Fatal(err)
			}
			parts, _ := filepath.Glob(filepath.Join(storage, "part", id, "*.json"))
			for _, pf := range parts {
				p, raw := readObj(pf)
				if _, err := db.Exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`,
					strings.TrimSuffix(filepath.Base(pf), ".json"), id, s["id"], created, created, data(p, raw, "id", "sessionID", "messageID")); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return path
}

// sumFiles is the SHA-256 of every file in dir, by name.
func sumFiles(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = sha256.Sum256(b)
	}
	return out
}

// TestImportOpenCodeDatabase: a session of opencode 1.2's database
// imports as the same session of the earlier JSON storage does (the same
// golden document, but for the path it was read from), once; the
// database is not changed; a storage folder that has the database
// beside it reads the database.
func TestImportOpenCodeDatabase(t *testing.T) {
	dir := t.TempDir()
	db := migrate(t, dir)
	if err := os.MkdirAll(filepath.Join(dir, "storage", "session"), 0o755); err != nil {
		t.Fatal(err) // an emptied storage folder, as after opencode's migration
	}
	before := sumFiles(t, dir)
	for _, named := range []string{dir, db, filepath.Join(dir, "storage")} {
		t.Run(filepath.Base(named), func(t *testing.T) {
			st := newStores(t)
			rep := st.run(t, importer.OpenCode, named)
			if rep.Imported != 1 || len(rep.Items) != 1 || len(rep.Problems) != 0 {
				t.Fatalf("imported %d of %+v, problems %+v; want the one session", rep.Imported, rep.Items, rep.Problems)
			}
			it := rep.Items[0]
			if it.Skipped != 1 {
				t.Errorf("skipped %d, want 1 (the damaged part)", it.Skipped)
			}
			doc, err := st.sessions.Load(it.Session)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Source == nil || doc.Source.Path != db || doc.Source.ID != "ses_1" {
				t.Errorf("source %+v, want ses_1 of %s", doc.Source, db)
			}
			doc.Source.Path = "testdata/opencode/storage/session/proj1/ses_1.json"
			golden(t, importer.OpenCode, doc)

			again := st.run(t, importer.OpenCode, named)
			if again.Imported != 0 || again.Already != 1 {
				t.Errorf("second import: imported %d, already %d; want 0, 1", again.Imported, again.Already)
			}
		})
	}
	after := sumFiles(t, dir)
	if before["opencode.db"] != after["opencode.db"] {
		t.Errorf("the import changed opencode.db")
	}
}

// TestImportOpenCodeDatabaseRefused: a SQLite file that is not opencode's
// and a damaged one are reported with why, and nothing is made.
func TestImportOpenCodeDatabaseRefused(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other", "opencode.db")
	if err := os.MkdirAll(filepath.Dir(other), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE notes (id text)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	damaged := filepath.Join(dir, "damaged", "opencode.db")
	if err := os.MkdirAll(filepath.Dir(damaged), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(damaged, append([]byte("SQLite format 3\x00"), bytes.Repeat([]byte{0xff}, 200)...), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, want string }{
		{other, "not an opencode database"},
		{damaged, "opencode.db"},
	} {
		st := newStores(t)
		rep := st.run(t, importer.OpenCode, tt.path)
		if rep.Imported != 0 || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Reason, tt.want) {
			t.Errorf("%s: imported %d, problems %+v; want one saying %q", tt.path, rep.Imported, rep.Problems, tt.want)
		}
		list, err := st.sessions.List(session.ListOptions{})
		if err != nil || len(list) != 0 {
			t.Errorf("%s: sessions %v (%v), want none", tt.path, list, err)
		}
	}
}
