package session_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"myco/session"
)

func TestOpenCreatesFolders(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "profile", "session")
	mustOpen(t, dir, session.Options{})
	for _, d := range []string{dir, filepath.Join(dir, session.ArchivedDir)} {
		info, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != 0o700 {
			t.Errorf("%s: mode %v, want 0700", d, got)
		}
	}
}

func TestOpenSweepsOldTempFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "session")
	mustOpen(t, dir, session.Options{})
	old := filepath.Join(dir, ".tmp-x.json-111")
	oldArchived := filepath.Join(dir, session.ArchivedDir, ".tmp-y.json-222")
	fresh := filepath.Join(dir, ".tmp-z.txt-333") // not a document: may be a save in progress of anything
	for _, p := range []string{old, oldArchived, fresh} {
		writeFile(t, p, "{")
	}
	for _, p := range []string{old, oldArchived} {
		past := time.Now().Add(-2 * time.Hour)
		if err := os.Chtimes(p, past, past); err != nil {
			t.Fatal(err)
		}
	}
	mustOpen(t, dir, session.Options{})
	assertMissing(t, old)
	assertMissing(t, oldArchived)
	assertExists(t, fresh)
}

func TestCreate(t *testing.T) {
	now := time.Date(2026, 11, 29, 18, 5, 0, 123_000_000, time.UTC)
	s, dir := openStore(t, session.Options{Now: func() time.Time { return now }})
	doc, err := s.Create(session.NewSession{Title: "Fix the flaky test", Model: "anthropic/claude-sonnet-4-5", Cwd: "/src"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := uuid.Parse(doc.ID)
	if err != nil || u.Version() != 7 || u.String() != doc.ID {
		t.Errorf("ID %q: want a UUIDv7 in canonical form (version %d, err %v)", doc.ID, u.Version(), err)
	}
	want := &session.Document{
		Schema: 1, ID: doc.ID, Title: "Fix the flaky test", Model: "anthropic/claude-sonnet-4-5", Cwd: "/src",
		CreatedAt: now, UpdatedAt: now,
		Threads: []session.Thread{{CreatedAt: now, Messages: []session.Message{}}},
	}
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("Create (-want +got):\n%s", diff)
	}
	loaded, err := s.Load(doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, loaded); diff != "" {
		t.Errorf("Load after Create (-want +got):\n%s", diff)
	}
	info, err := os.Stat(filepath.Join(dir, doc.ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != 0o600 {
		t.Errorf("document mode %v, want 0600", got)
	}
	// IDs are time-ordered, so a later session sorts after.
	doc2, err := s.Create(session.NewSession{})
	if err != nil {
		t.Fatal(err)
	}
	if doc2.ID <= doc.ID {
		t.Errorf("second ID %s does not sort after first %s", doc2.ID, doc.ID)
	}
}

func TestLoadErrors(t *testing.T) {
	s, _ := openStore(t, session.Options{})
	tests := []struct {
		name string
		id   string
		want error
	}{
		{"parent folder", "../x", session.ErrInvalidID},
		{"slash", "a/b", session.ErrInvalidID},
		{"empty", "", session.ErrInvalidID},
		{"dot file", ".tmp-x", session.ErrInvalidID},
		{"absent", "0193c7b2-0000-7000-8000-00000000beef", session.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := s.Load(tt.id); !errors.Is(err, tt.want) {
				t.Errorf("Load(%q) = %v, want %v", tt.id, err, tt.want)
			}
		})
	}
}

// TestRoundTrip checks that a document read and written back keeps every
// member, the ones this version does not know included.
func TestRoundTrip(t *testing.T) {
	for _, tt := range healthyDocs {
		t.Run(tt.name, func(t *testing.T) {
			s, dir := openStore(t, session.Options{})
			path := install(t, dir, tt.file, tt.id)
			before := readFile(t, path)
			doc, err := s.Load(tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Save(doc); err != nil {
				t.Fatal(err)
			}
			after := readFile(t, path)
			if diff := cmp.Diff(jsonTree(t, before), jsonTree(t, after), sameInstant); diff != "" {
				t.Errorf("Load→Save changed the document (-before +after):\n%s", diff)
			}
			// A second round changes nothing, byte for byte.
			doc, err = s.Load(tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Save(doc); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(after), string(readFile(t, path))); diff != "" {
				t.Errorf("second Load→Save changed the file:\n%s", diff)
			}
		})
	}
}

func TestHeaderBeforeThreads(t *testing.T) {
	header := []string{"schema", "id", "title", "model", "cwd", "created_at", "updated_at", "archived", "parent", "links", "scratchpad"}
	for _, tt := range healthyDocs {
		t.Run(tt.name, func(t *testing.T) {
			s, dir := openStore(t, session.Options{})
			path := install(t, dir, tt.file, tt.id)
			doc, err := s.Load(tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Save(doc); err != nil {
				t.Fatal(err)
			}
			names := memberNames(t, readFile(t, path))
			threads := slices.Index(names, "threads")
			if threads < 0 {
				t.Fatalf("no threads member in %v", names)
			}
			for _, h := range header {
				if i := slices.Index(names, h); i > threads {
					t.Errorf("%q comes after threads: %v", h, names)
				}
			}
		})
	}
}

func TestLegacyInlineImage(t *testing.T) {
	const data = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	s, dir := openStore(t, session.Options{})
	install(t, dir, "legacy-image.json", legacyID)
	want := session.Block{Type: session.BlockImage, MediaType: "image/png", Data: data}
	for round := range 2 {
		doc, err := s.Load(legacyID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, doc.Threads[0].Messages[0].Content[1]); diff != "" {
			t.Errorf("round %d: image block (-want +got):\n%s", round, diff)
		}
		if err := s.Save(doc); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSaveLeavesNoTempFiles(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	doc := newDoc("0193c7b2-0000-7000-8000-0000000000a1", t0, 1, 0)
	for i := range 20 {
		doc.Threads[0].Messages = append(doc.Threads[0].Messages, textMessage(fmt.Sprint(i), "user", strings.Repeat("x", i*100)))
		if err := s.Save(doc); err != nil {
			t.Fatal(err)
		}
	}
	if got := tempFiles(t, dir); len(got) != 0 {
		t.Errorf("temp files left: %v", got)
	}
	info, err := os.Stat(filepath.Join(dir, doc.ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != 0o600 {
		t.Errorf("document mode %v after saves, want 0600", got)
	}
	got, err := s.Load(doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.MessageCount() != 20 {
		t.Errorf("saved %d messages, loaded %d", 20, got.MessageCount())
	}
}

func TestSaveArchivedStaysArchived(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	doc := newDoc("0193c7b2-0000-7000-8000-0000000000a2", t0, 1, 1)
	if err := s.Save(doc); err != nil {
		t.Fatal(err)
	}
	if err := s.Archive(doc.ID); err != nil {
		t.Fatal(err)
	}
	doc, err := s.Load(doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	doc.Title = "renamed while archived"
	if err := s.Save(doc); err != nil {
		t.Fatal(err)
	}
	assertMissing(t, filepath.Join(dir, doc.ID+".json"))
	got, err := s.Load(doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != doc.Title || !got.Archived {
		t.Errorf("loaded title %q archived %v, want %q archived", got.Title, got.Archived, doc.Title)
	}
}

// TestSaveRefusesDamagedFile: a document that was fine when this store read
// it, and was then damaged by someone else, is not overwritten.
func TestSaveRefusesDamagedFile(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"cut short in place", func(t *testing.T, path string) {
			data := readFile(t, path)
			if err := os.WriteFile(path, data[:len(data)/2], 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"replaced by rename", func(t *testing.T, path string) {
			tmp := path + ".new"
			writeFile(t, tmp, `{"schema": 2, "id": "`+healthyID+`"}`)
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"same size, other bytes", func(t *testing.T, path string) {
			data := readFile(t, path)
			data[0] = '['
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, dir := openStore(t, session.Options{})
			path := install(t, dir, "healthy.json", healthyID)
			doc, err := s.Load(healthyID)
			if err != nil {
				t.Fatal(err)
			}
			tt.damage(t, path)
			before := freeze(t, path)
			doc.Title = "my change"
			if err := s.Save(doc); !errors.Is(err, session.ErrDamaged) {
				t.Errorf("Save over a damaged file = %v, want ErrDamaged", err)
			}
			assertUnchanged(t, path, before)
			if got := tempFiles(t, dir); len(got) != 0 {
				t.Errorf("temp files left: %v", got)
			}
		})
	}
}

// TestDamagedDocuments: every kind of unreadable document is reported with
// its reason and survives every operation byte for byte.
func TestDamagedDocuments(t *testing.T) {
	for _, tt := range damagedDocs {
		for _, archived := range []bool{false, true} {
			name := tt.name
			if archived {
				name += " in archived"
			}
			t.Run(name, func(t *testing.T) {
				s, dir := openStore(t, session.Options{})
				docDir := dir
				if archived {
					docDir = filepath.Join(dir, session.ArchivedDir)
				}
				path := install(t, docDir, tt.file, tt.id)
				before := freeze(t, path)

				_, err := s.Load(tt.id)
				var de *session.DamagedError
				if !errors.Is(err, session.ErrDamaged) || !errors.As(err, &de) {
					t.Fatalf("Load = %v, want a *DamagedError", err)
				}
				if !strings.Contains(de.Reason, tt.reason) {
					t.Errorf("Load reason %q does not mention %q", de.Reason, tt.reason)
				}

				sums, err := s.List(session.ListOptions{Archived: archived})
				if err != nil {
					t.Fatal(err)
				}
				sum, ok := findSummary(sums, tt.id)
				switch {
				case !ok:
					t.Errorf("List(archived=%v) = %v, want %s listed", archived, ids(sums), tt.id)
				case !strings.Contains(sum.Damaged, tt.reason):
					t.Errorf("List: Damaged = %q, want it to mention %q", sum.Damaged, tt.reason)
				}
				if other, _ := s.List(session.ListOptions{Archived: !archived}); len(other) != 0 {
					t.Errorf("List(archived=%v) = %v, want nothing", !archived, ids(other))
				}
				assertUnchanged(t, path, before)

				wantArchive := session.ErrDamaged
				if archived {
					wantArchive = session.ErrAlreadyArchived
				}
				steps := []struct {
					name string
					do   func() error
					want error
				}{
					{"Archive", func() error { return s.Archive(tt.id) }, wantArchive},
					{"Restore", func() error { return s.Restore(tt.id) }, session.ErrDamaged},
					{"Save", func() error { return s.Save(newDoc(tt.id, t0, 1, 1)) }, session.ErrDamaged},
					{"Update", func() error {
						_, err := s.Update(tt.id, func(*session.Document) error {
							t.Error("Update called fn on a damaged document")
							return nil
						})
						return err
					}, session.ErrDamaged},
				}
				for _, step := range steps {
					if err := step.do(); !errors.Is(err, step.want) {
						t.Errorf("%s = %v, want %v", step.name, err, step.want)
					}
					assertUnchanged(t, path, before)
				}
				for _, d := range []string{dir, filepath.Join(dir, session.ArchivedDir)} {
					if d != docDir {
						assertMissing(t, filepath.Join(d, tt.id+".json"))
					}
				}

				rep, err := s.MigrateArchived(nil)
				if err != nil {
					t.Fatal(err)
				}
				if !archived && !slices.Contains(ids(rep.Damaged), tt.id) {
					t.Errorf("MigrateArchived reported damaged %v, want %s", ids(rep.Damaged), tt.id)
				}
				assertUnchanged(t, path, before)

				_, damaged, err := s.ImageRefs(nil)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff([]string{tt.id}, ids(damaged)); diff != "" {
					t.Errorf("ImageRefs damaged (-want +got):\n%s", diff)
				}
				assertUnchanged(t, path, before)
			})
		}
	}
}

func TestUpdate(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	install(t, dir, "healthy.json", healthyID)
	got, err := s.Update(healthyID, func(d *session.Document) error {
		d.Threads[1].Messages = append(d.Threads[1].Messages, textMessage("msg_0007", "user", "thanks"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := s.Load(healthyID)
	if err != nil {
		t.Fatal(err)
	}
	if got.MessageCount() != 7 || loaded.MessageCount() != 7 {
		t.Errorf("after Update: returned %d messages, loaded %d, want 7", got.MessageCount(), loaded.MessageCount())
	}

	path := filepath.Join(dir, healthyID+".json")
	before := freeze(t, path)
	errNo := errors.New("no thanks")
	_, err = s.Update(healthyID, func(d *session.Document) error {
		d.Title = "half done"
		return errNo
	})
	if !errors.Is(err, errNo) {
		t.Errorf("Update = %v, want fn's error", err)
	}
	assertUnchanged(t, path, before)

	if _, err := s.Update("0193c7b2-0000-7000-8000-00000000beef", func(*session.Document) error { return nil }); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Update of an absent session = %v, want ErrNotFound", err)
	}
	if _, err := s.Update("../x", func(*session.Document) error { return nil }); !errors.Is(err, session.ErrInvalidID) {
		t.Errorf("Update(../x) = %v, want ErrInvalidID", err)
	}
}

// TestConcurrentUpdates: many goroutines appending to one document lose
// nothing. Run with -race.
func TestConcurrentUpdates(t *testing.T) {
	const n = 40
	s, _ := openStore(t, session.Options{})
	doc, err := s.Create(session.NewSession{Title: "busy"})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			_, err := s.Update(doc.ID, func(d *session.Document) error {
				th := &d.Threads[len(d.Threads)-1]
				th.Messages = append(th.Messages, textMessage(fmt.Sprintf("g%02d", i), "user", "hi"))
				return nil
			})
			errs <- err
		})
	}
	// Readers and listers at the same time must not disturb the writers.
	for range 4 {
		wg.Go(func() {
			if _, err := s.List(session.ListOptions{}); err != nil {
				errs <- err
			}
			if _, err := s.Load(doc.ID); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent Update: %v", err)
		}
	}
	got, err := s.Load(doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, m := range got.Threads[0].Messages {
		seen = append(seen, m.ID)
	}
	slices.Sort(seen)
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("g%02d", i))
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("messages after %d concurrent updates (-want +got):\n%s", n, diff)
	}
}

func TestSaveRejects(t *testing.T) {
	s, _ := openStore(t, session.Options{})
	tests := []struct {
		name string
		doc  *session.Document
		want error
	}{
		{"invalid ID", &session.Document{ID: "../evil"}, session.ErrInvalidID},
		{"empty ID", &session.Document{}, session.ErrInvalidID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := s.Save(tt.doc); !errors.Is(err, tt.want) {
				t.Errorf("Save = %v, want %v", err, tt.want)
			}
		})
	}
	future := newDoc("0193c7b2-0000-7000-8000-0000000000a3", t0, 1, 0)
	future.Schema = 2
	if err := s.Save(future); err == nil {
		t.Error("Save of a schema 2 document succeeded")
	}
	if _, err := s.Load(future.ID); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Load after refused Save = %v, want ErrNotFound", err)
	}
}

// TestConcurrentUpdatesTwoStores: two stores on one folder stand for two
// processes. Each retries while the other holds the lock; the writer lock
// must cover every load-change-save, or one overwrites the other's change.
func TestConcurrentUpdatesTwoStores(t *testing.T) {
	const perStore = 20
	s, dir := openStore(t, session.Options{})
	other := mustOpen(t, dir, session.Options{})
	doc, err := s.Create(session.NewSession{Title: "contended"})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*perStore)
	var want []string
	for si, store := range []*session.Store{s, other} {
		for i := range perStore {
			id := fmt.Sprintf("s%d-%02d", si, i)
			want = append(want, id)
			wg.Go(func() {
				for {
					_, err := store.Update(doc.ID, func(d *session.Document) error {
						d.Threads[0].Messages = append(d.Threads[0].Messages, textMessage(id, "user", "hi"))
						return nil
					})
					if !errors.Is(err, session.ErrLocked) {
						errs <- err
						return
					}
					runtime.Gosched()
				}
			})
		}
	}
	// Asking who holds the lock must not open a gap in it.
	done := make(chan struct{})
	probed := make(chan struct{})
	go func() {
		defer close(probed)
		for {
			select {
			case <-done:
				return
			default:
			}
			for _, store := range []*session.Store{s, other} {
				if _, _, err := store.Owner(doc.ID); err != nil {
					t.Errorf("Owner: %v", err)
				}
			}
		}
	}()
	wg.Wait()
	close(done)
	<-probed
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Update: %v", err)
		}
	}
	got, err := s.Load(doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, m := range got.Threads[0].Messages {
		seen = append(seen, m.ID)
	}
	slices.Sort(seen)
	slices.Sort(want)
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("lost updates (-want +got):\n%s", diff)
	}
}
