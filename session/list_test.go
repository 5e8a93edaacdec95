package session_test

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"myco/session"
)

func TestListOrderAndCounts(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	install(t, dir, "healthy.json", healthyID)
	const (
		a = "0193c7b2-0000-7000-8000-00000000000a"
		b = "0193c7b2-0000-7000-8000-00000000000b"
		c = "0193c7b2-0000-7000-8000-00000000000c"
		d = "0193c7b2-0000-7000-8000-00000000000d"
	)
	docs := []*session.Document{
		newDoc(a, t0.Add(1*time.Hour), 2, 3),
		newDoc(b, t0.Add(3*time.Hour), 1, 0),
		newDoc(c, t0.Add(2*time.Hour), 3, 2),
		newDoc(d, t0.Add(2*time.Hour), 1, 1), // same time as c: the larger ID first
	}
	for _, doc := range docs {
		if err := s.Save(doc); err != nil {
			t.Fatal(err)
		}
	}
	// Not documents: ignored.
	writeFile(t, filepath.Join(dir, a+".readline"), "$ ls\n")
	writeFile(t, filepath.Join(dir, "notes.txt"), "x")
	writeFile(t, filepath.Join(dir, ".tmp-"+b+".json-123"), "{")
	// (A folder named like a document is listed as damaged: see the hostile corpus.)

	sum := func(id string, updated time.Time, threads, messages int) session.Summary {
		return session.Summary{
			ID: id, Title: "session " + id, Model: "anthropic/claude-sonnet-4-5",
			CreatedAt: t0, UpdatedAt: updated, Threads: threads, Messages: messages,
		}
	}
	want := []session.Summary{
		sum(b, t0.Add(3*time.Hour), 1, 0),
		sum(d, t0.Add(2*time.Hour), 1, 1),
		sum(c, t0.Add(2*time.Hour), 3, 6),
		sum(a, t0.Add(1*time.Hour), 2, 6),
		{
			ID: healthyID, Title: "Fix the flaky test", Model: "anthropic/claude-sonnet-4-5",
			Cwd:       "/home/ana/src/project", // the header's cwd: the new-session form offers it
			CreatedAt: time.Date(2026, 11, 29, 18, 5, 0, 123_000_000, time.UTC),
			UpdatedAt: time.Date(2026, 11, 29, 18, 44, 10, 456_000_000, time.UTC),
			Threads:   2, Messages: 6,
			Parent: "0193c7a0-1111-7222-8333-444455556666", // a fork: the listing marks it
			// What its answers used, carried messages once.
			Usage: []session.ModelUsage{{Model: "anthropic/claude-sonnet-4-5", Usage: session.Usage{
				InputTokens: 4334, OutputTokens: 139, CacheReadInputTokens: 1900, CacheCreationInputTokens: 112,
			}}},
		},
	}
	for round := range 2 { // the second listing comes from the cache
		got, err := s.List(session.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("List round %d (-want +got):\n%s", round, diff)
		}
	}
}

func TestListArchived(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	const (
		active   = "0193c7b2-0000-7000-8000-0000000000a1"
		moved    = "0193c7b2-0000-7000-8000-0000000000a2"
		markedIn = "0193c7b2-0000-7000-8000-0000000000a3" // marked archived, still in session/
	)
	for _, doc := range []*session.Document{
		newDoc(active, t0.Add(1*time.Hour), 1, 1),
		newDoc(moved, t0.Add(2*time.Hour), 1, 1),
	} {
		if err := s.Save(doc); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Archive(moved); err != nil {
		t.Fatal(err)
	}
	marked := newDoc(markedIn, t0.Add(3*time.Hour), 1, 1)
	marked.Archived = true
	if err := s.Save(marked); err != nil {
		t.Fatal(err)
	}
	assertExists(t, filepath.Join(dir, markedIn+".json"))

	list := func(archived bool) []string {
		t.Helper()
		sums, err := s.List(session.ListOptions{Archived: archived})
		if err != nil {
			t.Fatal(err)
		}
		for _, sum := range sums {
			if sum.Archived != archived {
				t.Errorf("List(archived=%v) has %s with Archived=%v", archived, sum.ID, sum.Archived)
			}
		}
		return ids(sums)
	}
	if diff := cmp.Diff([]string{active}, list(false)); diff != "" {
		t.Errorf("active listing (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{markedIn, moved}, list(true)); diff != "" {
		t.Errorf("archived listing (-want +got):\n%s", diff)
	}

	if err := s.Restore(markedIn); err != nil {
		t.Fatal(err)
	}
	if err := s.Restore(moved); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{markedIn, moved, active}, list(false)); diff != "" {
		t.Errorf("active listing after restore (-want +got):\n%s", diff)
	}
	if got := list(true); len(got) != 0 {
		t.Errorf("archived listing after restore = %v, want none", got)
	}
}

// TestListSeesChanges: the listing cache never serves a stale summary, to
// this store or to another one on the same folder.
func TestListSeesChanges(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	other := mustOpen(t, dir, session.Options{})
	const id = "0193c7b2-0000-7000-8000-0000000000c1"
	doc := newDoc(id, t0, 1, 0)
	path := filepath.Join(dir, id+".json")

	check := func(what string, store *session.Store, want []session.Summary) {
		t.Helper()
		got, err := store.List(session.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i].Damaged != "" {
				got[i].Damaged = "damaged"
				got[i].UpdatedAt = time.Time{}
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", what, diff)
		}
	}
	// Same-size rewrites in quick succession: only the stat can tell them apart.
	for i := range 20 {
		doc.Title = fmt.Sprintf("title %03d", i)
		if i%5 == 4 {
			doc.Threads[0].Messages = append(doc.Threads[0].Messages, textMessage(fmt.Sprint(i), "user", "x"))
		}
		if err := s.Save(doc); err != nil {
			t.Fatal(err)
		}
		want := []session.Summary{doc.Summarize()}
		check(fmt.Sprintf("save %d, this store", i), s, want)
		check(fmt.Sprintf("save %d, other store", i), other, want)
	}

	created, err := other.Create(session.NewSession{Title: "made by the other store"})
	if err != nil {
		t.Fatal(err)
	}
	check("after the other store created one", s, []session.Summary{created.Summarize(), doc.Summarize()})

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	check("after a deletion", s, []session.Summary{created.Summarize()})
	check("after a deletion, other store", other, []session.Summary{created.Summarize()})

	// Replaced by a rename, as docs/FORMAT.md asks: that changes the
	// folder, so the next listing sees it. (Written in place, the folder
	// does not change, and the edit shows once the scan expires:
	// TestListFolderCache, "an edit in place shows after folderTTL".)
	createdPath := filepath.Join(dir, created.ID+".json")
	good := readFile(t, createdPath)
	replaceFile(t, createdPath, string(good[:len(good)-10]))
	check("after damage behind the store's back", s, []session.Summary{{ID: created.ID, Damaged: "damaged"}})
	replaceFile(t, createdPath, string(good))
	check("after repair", s, []session.Summary{created.Summarize()})

	// A document that comes back under the same path is read again.
	if err := s.Save(doc); err != nil {
		t.Fatal(err)
	}
	check("after re-creation", other, []session.Summary{created.Summarize(), doc.Summarize()})
}

func TestResolve(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	const (
		a1       = "0193c7b2-aaaa-7000-8000-000000000001"
		a2       = "0193c7b2-aaab-7000-8000-000000000002"
		archived = "0193c7b2-bbbb-7000-8000-000000000003"
	)
	for _, id := range []string{a1, a2, archived, "abc", "abcd"} {
		if err := s.Save(newDoc(id, t0, 1, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Archive(archived); err != nil {
		t.Fatal(err)
	}
	// Files of sessions that have no document are not sessions.
	writeFile(t, filepath.Join(dir, "0193c7b2-dddd-7000-8000-000000000004.readline"), "$ ls\n")

	tests := []struct {
		name    string
		prefix  string
		want    string
		wantErr error
		matches []string
	}{
		{"exact", a1, a1, nil, nil},
		{"unique prefix", "0193c7b2-aaaa", a1, nil, nil},
		{"ambiguous between two", "0193c7b2-aaa", "", session.ErrAmbiguous, []string{a1, a2}},
		{"unique prefix of an archived one", "0193c7b2-b", archived, nil, nil},
		{"exact archived", archived, archived, nil, nil},
		{"exact ID that prefixes another", "abc", "abc", nil, nil},
		{"ambiguous among all", "0193", "", session.ErrAmbiguous, []string{a1, a2, archived}},
		{"sidecar without document", "0193c7b2-d", "", session.ErrNotFound, nil},
		{"not found", "ffff", "", session.ErrNotFound, nil},
		{"parent folder", "../x", "", session.ErrInvalidID, nil},
		{"slash", "a/b", "", session.ErrInvalidID, nil},
		{"empty", "", "", session.ErrInvalidID, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Resolve(tt.prefix)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Resolve(%q) = %q, %v; want error %v", tt.prefix, got, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("Resolve(%q) = %q, want %q", tt.prefix, got, tt.want)
			}
			if tt.matches != nil {
				var ae *session.AmbiguousError
				if !errors.As(err, &ae) {
					t.Fatalf("error %v is not an *AmbiguousError", err)
				}
				if diff := cmp.Diff(tt.matches, ae.Matches); diff != "" {
					t.Errorf("matches (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// clock is a fake clock that a test moves by hand.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time          { return c.now }
func (c *clock) advance(d time.Duration) { c.now = c.now.Add(d) }

// backdate sets the modification time of every path to at.
func backdate(t *testing.T, at time.Time, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
}

// listOne lists the active sessions and returns the one with id.
func listOne(t *testing.T, s *session.Store, id string) session.Summary {
	t.Helper()
	sums, err := s.List(session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sum, ok := findSummary(sums, id)
	if !ok {
		t.Fatalf("%s is not listed: %v", id, ids(sums))
	}
	return sum
}

// folderTTL mirrors the package's: how long an unchanged folder's scan is
// reused.
const folderTTL = 10 * time.Second

// listAfterCheck lists once the folder's scan has expired: that listing
// answers from the cache at once and starts a check of every file in the
// background; once the check changed the listing, the summary of id.
func listAfterCheck(t *testing.T, s *session.Store, id string) session.Summary {
	t.Helper()
	changed := s.ListChanged()
	listOne(t, s, id)
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("the background check changed nothing")
	}
	return listOne(t, s, id)
}

// TestListFolderCache: a save (a rename) shows at once; an edit written
// into the file, which leaves the folder as it was, shows once the
// folder's scan expires, never later.
func TestListFolderCache(t *testing.T) {
	const (
		id    = "0193c7b2-0000-7000-8000-0000000000f1"
		other = "0193c7b2-0000-7000-8000-0000000000f2"
	)
	hourAgo := time.Now().Add(-time.Hour).Truncate(time.Second)
	// setup saves two documents and ages them and the folder an hour, so
	// the listing caches them, and lists once.
	setup := func(t *testing.T) (*session.Store, *clock, string, *session.Document) {
		t.Helper()
		c := &clock{now: time.Now()}
		s, dir := openStore(t, session.Options{Now: c.Now})
		doc := newDoc(id, t0, 1, 1)
		for _, d := range []*session.Document{doc, newDoc(other, t0, 1, 1)} {
			if err := s.Save(d); err != nil {
				t.Fatal(err)
			}
		}
		backdate(t, hourAgo, filepath.Join(dir, id+".json"), filepath.Join(dir, other+".json"), dir)
		if got := listOne(t, s, id).Title; got != doc.Title {
			t.Fatalf("first listing: title %q, want %q", got, doc.Title)
		}
		return s, c, dir, doc
	}
	// inPlace writes data into the document's file, as an editor that does
	// not rename would, and leaves the folder's stat as it was.
	inPlace := func(t *testing.T, dir string, data []byte) {
		t.Helper()
		path := filepath.Join(dir, id+".json")
		before, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, path, string(data))
		// Old, so the file is not too fresh to cache, but not the time it
		// had: a stat that did not change at all hides any edit.
		backdate(t, hourAgo.Add(time.Second), path)
		backdate(t, before.ModTime(), dir)
		if after, err := os.Stat(dir); err != nil || !os.SameFile(before, after) ||
			!after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
			t.Fatalf("the folder's stat changed (%v)", err)
		}
	}

	t.Run("a rename shows at once", func(t *testing.T) {
		s, _, dir, doc := setup(t)
		doc.Title = "saved by another store"
		if err := mustOpen(t, dir, session.Options{}).Save(doc); err != nil {
			t.Fatal(err)
		}
		if got := listOne(t, s, id).Title; got != doc.Title {
			t.Errorf("after a save: title %q, want %q", got, doc.Title)
		}
	})

	t.Run("an edit in place shows after folderTTL", func(t *testing.T) {
		s, c, dir, doc := setup(t)
		old := doc.Title
		doc.Title = "edited in place, a longer title"
		data, err := session.Encode(doc)
		if err != nil {
			t.Fatal(err)
		}
		inPlace(t, dir, data)
		c.advance(folderTTL - time.Second)
		if got := listOne(t, s, id).Title; got != old {
			t.Errorf("within folderTTL: title %q, want the cached %q", got, old)
		}
		c.advance(2 * time.Second)
		if got := listAfterCheck(t, s, id).Title; got != doc.Title {
			t.Errorf("after folderTTL: title %q, want %q", got, doc.Title)
		}
	})

	t.Run("a repair in place shows after folderTTL", func(t *testing.T) {
		s, c, dir, doc := setup(t)
		good, err := session.Encode(doc)
		if err != nil {
			t.Fatal(err)
		}
		// Damaged by a rename, so seen at once; repaired in place.
		path := filepath.Join(dir, id+".json")
		writeFile(t, path+".new", string(good[:len(good)-10]))
		if err := os.Rename(path+".new", path); err != nil {
			t.Fatal(err)
		}
		backdate(t, hourAgo, path)
		backdate(t, hourAgo.Add(2*time.Second), dir) // old, yet changed
		if got := listOne(t, s, id); got.Damaged == "" {
			t.Fatalf("a truncated document is listed healthy: %+v", got)
		}
		inPlace(t, dir, good)
		if got := listOne(t, s, id); got.Damaged == "" {
			t.Fatalf("within folderTTL: the repair shows already, so the folder's scan was not reused: %+v", got)
		}
		c.advance(folderTTL)
		if got := listAfterCheck(t, s, id); got.Damaged != "" || got.Title != doc.Title {
			t.Errorf("after a repair and folderTTL: %+v", got)
		}
	})
}

// TestListShowsOwnWritesAtOnce: what this store writes or moves shows in
// its next listing, as a new store reading the folders would list it, and
// the listing's JSON is what encoding/json makes of it.
func TestListShowsOwnWritesAtOnce(t *testing.T) {
	const (
		id    = "0193c7b2-0000-7000-8000-0000000000e1"
		other = "0193c7b2-0000-7000-8000-0000000000e2"
	)
	hourAgo := time.Now().Add(-time.Hour)
	c := &clock{now: time.Now()}
	s, dir := openStore(t, session.Options{Now: c.Now})
	for _, d := range []*session.Document{newDoc(id, t0, 1, 1), newDoc(other, t0.Add(time.Hour), 1, 1)} {
		if err := s.Save(d); err != nil {
			t.Fatal(err)
		}
	}
	// Old files and folders, so the listing trusts them.
	backdate(t, hourAgo, filepath.Join(dir, id+".json"), filepath.Join(dir, other+".json"), dir, filepath.Join(dir, session.ArchivedDir))

	// same lists both kinds with s and with a new store, and checks that
	// they agree, that want are the active IDs, and that the JSON is right.
	same := func(what string, want ...string) {
		t.Helper()
		for _, archived := range []bool{false, true} {
			opts := session.ListOptions{Archived: archived}
			got, err := s.List(opts)
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := mustOpen(t, dir, session.Options{}).List(opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(fresh, got); diff != "" {
				t.Errorf("%s, archived=%v: this store's listing differs from a new store's (-new +this):\n%s", what, archived, diff)
			}
			data, err := s.ListJSON(opts)
			if err != nil {
				t.Fatal(err)
			}
			// As echo's c.JSON encodes: encoding/json, HTML escaped, a newline.
			wantJSON, err := stdjson.Marshal(fresh)
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != string(wantJSON)+"\n" {
				t.Errorf("%s, archived=%v: ListJSON =\n%s\nwant\n%s", what, archived, data, wantJSON)
			}
			if !archived {
				if diff := cmp.Diff(want, ids(got)); diff != "" {
					t.Errorf("%s: active IDs (-want +got):\n%s", what, diff)
				}
			}
		}
	}
	same("first listing", other, id)
	same("unchanged", other, id)

	if _, err := s.Update(id, func(d *session.Document) error {
		d.Title = "a <new> title & more"
		d.UpdatedAt = t0.Add(2 * time.Hour)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := listOne(t, s, id).Title; got != "a <new> title & more" {
		t.Errorf("after a title change: title %q", got)
	}
	same("after a title change", id, other)

	created, err := s.Create(session.NewSession{Title: "created"})
	if err != nil {
		t.Fatal(err)
	}
	same("after a create", created.ID, id, other)

	if err := s.Archive(id); err != nil {
		t.Fatal(err)
	}
	same("after an archive", created.ID, other)

	if err := s.Restore(id); err != nil {
		t.Fatal(err)
	}
	same("after a restore", created.ID, id, other)

	// A document another program adds while this store writes shows at once
	// too: the names of the folder are read after a write of this store.
	const foreign = "0193c7b2-0000-7000-8000-0000000000e3"
	writeFile(t, filepath.Join(dir, foreign+".json"), string(mustEncode(t, newDoc(foreign, t0, 1, 1))))
	if _, err := s.Update(other, func(d *session.Document) error {
		d.Title = "renamed again"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	same("after another program's create", created.ID, id, other, foreign)
}

// TestListInPlaceEditAfterOwnWrite: after a write of this store, whose
// listing reads only the folder's names, an edit written into a file by
// another program shows within folderTTL, never later.
func TestListInPlaceEditAfterOwnWrite(t *testing.T) {
	const (
		id    = "0193c7b2-0000-7000-8000-0000000000d1"
		other = "0193c7b2-0000-7000-8000-0000000000d2"
	)
	hourAgo := time.Now().Add(-time.Hour).Truncate(time.Second)
	c := &clock{now: time.Now()}
	s, dir := openStore(t, session.Options{Now: c.Now})
	doc := newDoc(id, t0, 1, 1)
	for _, d := range []*session.Document{doc, newDoc(other, t0, 1, 1)} {
		if err := s.Save(d); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, id+".json")
	backdate(t, hourAgo, path, filepath.Join(dir, other+".json"), dir)
	listOne(t, s, id)

	if _, err := s.Update(other, func(d *session.Document) error {
		d.Title = "changed by this store"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	doc.Title = "edited in place by another program"
	writeFile(t, path, string(mustEncode(t, doc)))
	backdate(t, hourAgo.Add(time.Second), path)
	if got := listOne(t, s, other).Title; got != "changed by this store" {
		t.Errorf("this store's write: title %q", got)
	}
	c.advance(folderTTL)
	if got := listAfterCheck(t, s, id).Title; got != doc.Title {
		t.Errorf("after folderTTL: title %q, want %q", got, doc.Title)
	}
}

func mustEncode(t testing.TB, doc *session.Document) []byte {
	t.Helper()
	data, err := session.Encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A listing read from the file counts usage as the document does: by
// model, carried messages once, whatever the order of a thread's members.
func TestListUsageMatchesDocument(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	id := "0193c7b2-0000-7000-8000-0000000000c5"
	doc := realisticDoc(id, 3, 200)
	last := doc.Threads[0].Messages[len(doc.Threads[0].Messages)-2:]
	next := append([]session.Message{}, last...)
	next = append(next, session.Message{
		ID: "haiku", Role: "assistant", Model: "anthropic/claude-haiku-4-5", At: t0,
		Usage:   &session.Usage{InputTokens: 7, OutputTokens: 3, CacheCreationInputTokens: 500},
		Content: []session.Block{{Type: session.BlockText, Text: "ok"}},
	})
	doc.Threads = append(doc.Threads, session.Thread{CreatedAt: t0, CompactedFrom: new(int), Carried: len(last), Summary: "s", Messages: next})
	if err := s.Save(doc); err != nil {
		t.Fatal(err)
	}
	want := doc.UsageByModel()
	if len(want) != 2 {
		t.Fatalf("UsageByModel() = %+v, want two models", want)
	}
	fresh := mustOpen(t, dir, session.Options{})
	sums, err := fresh.List(session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := findSummary(sums, id)
	if diff := cmp.Diff(want, got.Usage); diff != "" {
		t.Errorf("listed usage (-want +got):\n%s", diff)
	}

	// "carried" written after "messages" (by hand, or by another writer).
	path := filepath.Join(dir, id+".json")
	var tree map[string]any
	if err := stdjson.Unmarshal(readFile(t, path), &tree); err != nil {
		t.Fatal(err)
	}
	threads := tree["threads"].([]any)
	th := threads[1].(map[string]any)
	msgs, _ := stdjson.Marshal(th["messages"])
	reordered := fmt.Sprintf(`{"created_at":%q,"compacted_from":0,"summary":"s","messages":%s,"carried":%d}`, th["created_at"], msgs, len(last))
	first, _ := stdjson.Marshal(threads[0])
	tree["threads"] = []stdjson.RawMessage{first, stdjson.RawMessage(reordered)}
	data, _ := stdjson.Marshal(tree)
	writeFile(t, path, string(data))
	sums, err = mustOpen(t, dir, session.Options{}).List(session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = findSummary(sums, id)
	if diff := cmp.Diff(want, got.Usage); diff != "" {
		t.Errorf("listed usage, carried after messages (-want +got):\n%s", diff)
	}
}

// TestListSharesOneSlice: an unchanged listing is one slice for every
// caller (a page of 100 rows copied 10,000 summaries per request), which
// an append cannot change; a change makes a new one.
func TestListSharesOneSlice(t *testing.T) {
	c := &clock{now: time.Now()}
	s, _ := openStore(t, session.Options{Now: c.Now})
	for i := range 3 {
		if err := s.Save(newDoc(fmt.Sprintf("0193c7b2-0000-7000-8000-00000000005%d", i), t0, 1, 1)); err != nil {
			t.Fatal(err)
		}
	}
	c.advance(time.Minute) // the files are old enough to be cached
	a, err := s.List(session.ListOptions{})
	if err != nil || len(a) != 3 {
		t.Fatalf("List: %d sessions, %v", len(a), err)
	}
	_ = append(a, session.Summary{ID: "appended"})
	b, err := s.List(session.ListOptions{})
	if err != nil || len(b) != 3 || &a[0] != &b[0] {
		t.Fatalf("second List: %d sessions (%v), shared %v", len(b), err, len(b) > 0 && &a[0] == &b[0])
	}
	if err := s.Save(newDoc("0193c7b2-0000-7000-8000-000000000059", t0, 1, 1)); err != nil {
		t.Fatal(err)
	}
	d, err := s.List(session.ListOptions{})
	if err != nil || len(d) != 4 || len(a) != 3 {
		t.Errorf("after a save: %d sessions, the earlier slice %d (%v)", len(d), len(a), err)
	}
}

// TestListPageAndSummaries holds ListPage and Summaries, which copy a
// window or nothing, to what List returns.
func TestListPageAndSummaries(t *testing.T) {
	s, _ := openStore(t, session.Options{})
	for i := range 7 {
		id := fmt.Sprintf("0193c7b2-0000-7000-8000-%012x", i+1)
		if err := s.Save(newDoc(id, t0.Add(time.Duration(i)*time.Hour), 1, i)); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.List(session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 7 {
		t.Fatalf("List: %d sessions, want 7", len(all))
	}
	tests := []struct {
		from, to int
		want     []session.Summary
	}{
		{0, 3, all[:3]},
		{3, 6, all[3:6]},
		{6, 9, all[6:]},
		{0, 100, all},
		{7, 10, nil},
		{20, 30, nil},
		{-5, 2, all[:2]},
		{4, 2, nil},
	}
	for _, tt := range tests {
		page, total, err := s.ListPage(session.ListOptions{}, tt.from, tt.to)
		if err != nil {
			t.Fatal(err)
		}
		if total != 7 {
			t.Errorf("ListPage(%d, %d): total %d, want 7", tt.from, tt.to, total)
		}
		if diff := cmp.Diff(tt.want, page, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("ListPage(%d, %d) (-List's window +page):\n%s", tt.from, tt.to, diff)
		}
	}
	seq, n, err := s.Summaries(session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []session.Summary
	for sum := range seq {
		got = append(got, sum)
	}
	if n != len(all) {
		t.Errorf("Summaries counts %d, List returns %d", n, len(all))
	}
	if diff := cmp.Diff(all, got); diff != "" {
		t.Errorf("Summaries (-List +Summaries):\n%s", diff)
	}
}

// replaceFile replaces path with a file of content by a rename, as
// another program that follows docs/FORMAT.md does.
func replaceFile(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".replacing"
	writeFile(t, tmp, content)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
