package importer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/ncruces/go-sqlite3"
	_ "github.com/ncruces/go-sqlite3/driver" // registers "sqlite3" for database/sql
)

// opencode 1.2 and later keep their sessions in one SQLite database,
// <data>/opencode/opencode.db (WAL), in tables session, message and part
// (PEER-FORMATS §3). A message's and a part's row carry their IDs and
// times as columns and everything else as the same JSON object the
// earlier storage files held, less the IDs; so a row's data is read into
// ocMessage and ocPart and converted as those files are.
//
// The driver is github.com/ncruces/go-sqlite3: SQLite itself, translated
// to Go (no cgo, no C toolchain on the person's machine), and cheap to
// link: its package init costs a fraction of a millisecond at every myco
// start, where modernc.org/sqlite's costs about a millisecond.

// ocDatabase is the name opencode gives its database.
const ocDatabase = "opencode.db"

// isDatabase says whether path is a SQLite database file.
func isDatabase(path string) bool {
	f, err := openSource(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 16)
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == "SQLite format 3\x00"
}

// databaseIn finds opencode's database from what the person named: the
// database itself, opencode's data folder that holds it, or the storage
// folder beside it (the one earlier versions used and a migration
// leaves). "" when there is none.
func databaseIn(path string) string {
	for _, p := range []string{path, filepath.Join(path, ocDatabase), filepath.Join(filepath.Dir(filepath.Clean(path)), ocDatabase)} {
		if fileExists(p) && (p != path || isDatabase(p)) {
			return p
		}
	}
	return ""
}

// ocDB is opencode's database open for reading, and the copy it reads
// when the database could not be opened where it lies.
type ocDB struct {
	*sql.DB
	copyDir string
	// archivedColumn is the session table's time_archived, or a zero
	// where a database older than that column has none.
	archivedColumn string
}

// openDatabase opens path read-only. SQLite opens a WAL database (as
// opencode's is) with its -shm and -wal files beside it, creating them
// when opencode is not running; the data is never written. Where the
// person may not create files beside it (another user's copy, a read-only
// mount), the database and its WAL are copied to a temporary folder and
// the copy is read.
func openDatabase(ctx context.Context, path string) (*ocDB, error) {
	db, err := openReadOnly(ctx, path)
	if err == nil {
		return &ocDB{DB: db}, nil
	}
	if !errors.Is(err, sqlite3.CANTOPEN) && !errors.Is(err, sqlite3.READONLY) {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	dir, cerr := os.MkdirTemp("", "myco-import-opencode-")
	if cerr != nil {
		return nil, fmt.Errorf("open %s: %w (and a copy could not be made: %w)", path, err, cerr)
	}
	copyPath := filepath.Join(dir, ocDatabase)
	for _, suffix := range []string{"", "-wal"} {
		if cerr = copySource(path+suffix, copyPath+suffix); cerr != nil && (suffix == "" || !errors.Is(cerr, os.ErrNotExist)) {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("open %s: %w (and a copy could not be made: %w)", path, err, cerr)
		}
	}
	if db, err = openReadOnly(ctx, copyPath); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("open a copy of %s: %w", path, err)
	}
	return &ocDB{DB: db, copyDir: dir}, nil
}

func openReadOnly(ctx context.Context, path string) (*sql.DB, error) {
	u := url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro"}
	db, err := sql.Open("sqlite3", u.String())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	// Read now: sql.Open only checks the name, and a WAL database whose
	// -shm cannot be made fails only at its first read.
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&n); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Close closes the database and removes the copy, if one was made.
func (d *ocDB) Close() error {
	err := d.DB.Close()
	if d.copyDir != "" {
		os.RemoveAll(d.copyDir)
	}
	return err
}

// copySource copies one file of the source, opened for reading only.
func copySource(from, to string) error {
	in, err := openSource(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// schemaError says that the database is not laid out as opencode's is.
func schemaError(path string, err error) error {
	return fmt.Errorf("%w: %s is not an opencode database this myco can read (%w)", ErrNotSession, path, err)
}

// database opens path once for the whole import (a copy, when one is
// needed, is made once) and keeps it until close.
func (o *opencode) database(ctx context.Context, path string) (*ocDB, error) {
	if db, ok := o.dbs[path]; ok {
		return db, nil
	}
	db, err := openDatabase(ctx, path)
	if err != nil {
		return nil, err
	}
	db.archivedColumn = "0"
	var has int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('session') WHERE name = 'time_archived'`).Scan(&has); err == nil && has > 0 {
		db.archivedColumn = "coalesce(time_archived, 0)"
	}
	if o.dbs == nil {
		o.dbs = map[string]*ocDB{}
	}
	o.dbs[path] = db
	return db, nil
}

// close closes the databases the import opened.
func (o *opencode) close() {
	for path, db := range o.dbs {
		db.Close()
		delete(o.dbs, path)
	}
}

// findInDatabase lists the sessions of opencode's database, oldest first.
func (o *opencode) findInDatabase(path string) ([]Candidate, error) {
	ctx := context.Background()
	db, err := o.database(ctx, path)
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT id FROM session ORDER BY time_created, id`)
	if err != nil {
		return nil, schemaError(path, err)
	}
	defer rows.Close()
	var out []Candidate
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, schemaError(path, err)
		}
		out = append(out, Candidate{Tool: OpenCode, ID: id, Path: path})
	}
	if err := rows.Err(); err != nil {
		return nil, schemaError(path, err)
	}
	return out, nil
}

// readFromDatabase reads one session of opencode's database.
func (o *opencode) readFromDatabase(c Candidate) (*Conversation, error) {
	ctx := context.Background()
	db, err := o.database(ctx, c.Path)
	if err != nil {
		return nil, err
	}
	var s ocSession
	err = db.QueryRowContext(ctx, `SELECT id, coalesce(parent_id, ''), coalesce(directory, ''), coalesce(title, ''),
		coalesce(time_created, 0), coalesce(time_updated, 0), `+db.archivedColumn+` FROM session WHERE id = ?`, c.ID).
		Scan(&s.ID, &s.ParentID, &s.Directory, &s.Title, &s.Time.Created, &s.Time.Updated, &s.Time.Archived)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: session %s is no longer in %s", ErrNotSession, c.ID, c.Path)
	}
	if err != nil {
		return nil, schemaError(c.Path, err)
	}
	conv, n := newOCConversation(c, s)
	msgs, bad, err := dbMessages(ctx, db, c)
	if err != nil {
		return nil, err
	}
	conv.Skipped += bad
	parts, bad, err := dbParts(ctx, db, c)
	if err != nil {
		return nil, err
	}
	conv.Skipped += bad
	for _, m := range msgs {
		addOCMessage(conv, m, parts[m.ID], n)
	}
	conv.Notes = n.list()
	return conv, nil
}

// dbMessages reads a session's messages in order, counting the rows
// whose data does not parse.
func dbMessages(ctx context.Context, db *ocDB, c Candidate) ([]ocMessage, int, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, coalesce(time_created, 0), data FROM message WHERE session_id = ? ORDER BY time_created, id`, c.ID)
	if err != nil {
		return nil, 0, schemaError(c.Path, err)
	}
	defer rows.Close()
	var out []ocMessage
	bad := 0
	for rows.Next() {
		var id string
		var created int64
		var data []byte
		if err := rows.Scan(&id, &created, &data); err != nil {
			return nil, 0, schemaError(c.Path, err)
		}
		var m ocMessage
		if len(data) > maxInfoFile || json.Unmarshal(data, &m, lenient) != nil {
			bad++
			continue
		}
		m.ID = id
		if m.Time.Created == 0 {
			m.Time.Created = created
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", c.Path, err)
	}
	return out, bad, nil
}

// dbParts reads a session's parts by message, each message's in order.
func dbParts(ctx context.Context, db *ocDB, c Candidate) (map[string][]ocPart, int, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id`, c.ID)
	if err != nil {
		return nil, 0, schemaError(c.Path, err)
	}
	defer rows.Close()
	out := map[string][]ocPart{}
	bad := 0
	for rows.Next() {
		var id, message string
		var data []byte
		if err := rows.Scan(&id, &message, &data); err != nil {
			return nil, 0, schemaError(c.Path, err)
		}
		var p ocPart
		if len(data) > maxInfoFile || json.Unmarshal(data, &p, lenient) != nil {
			bad++
			continue
		}
		p.ID = id
		out[message] = append(out[message], p)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", c.Path, err)
	}
	return out, bad, nil
}

// isDatabaseCandidate says whether a candidate names a session in the
// database rather than a storage file.
func isDatabaseCandidate(c Candidate) bool {
	return !strings.HasSuffix(c.Path, ".json")
}
