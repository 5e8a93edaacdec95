package session_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"myco/session"
)

const archID = "0193c7b2-0000-7000-8000-0000000000f1"

// sidecars are the files of a session besides its document and lock.
var sidecars = map[string]string{
	".readline": "$ go test ./...\nok\n",
	".console":  "> build\n",
	".anything": "a file a later version may add",
}

func withSidecars(t *testing.T, dir, id string) {
	t.Helper()
	for ext, content := range sidecars {
		writeFile(t, filepath.Join(dir, id+ext), content)
	}
}

// archivedFlag reads the "archived" member straight from the file.
func archivedFlag(t *testing.T, path string) any {
	t.Helper()
	return jsonTree(t, readFile(t, path)).(map[string]any)["archived"]
}

func TestArchiveRestore(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	arch := filepath.Join(dir, session.ArchivedDir)
	if err := s.Save(newDoc(archID, t0, 1, 2)); err != nil {
		t.Fatal(err)
	}
	withSidecars(t, dir, archID)
	// Files of other sessions stay where they are.
	neighbour := filepath.Join(dir, archID+"x.console")
	writeFile(t, neighbour, "not mine")
	lock := filepath.Join(dir, archID+".lock")
	assertExists(t, lock)

	moved := func(from, to string, archived bool) {
		t.Helper()
		for ext, content := range sidecars {
			assertMissing(t, filepath.Join(from, archID+ext))
			if got := string(readFile(t, filepath.Join(to, archID+ext))); got != content {
				t.Errorf("%s: %q, want %q", ext, got, content)
			}
		}
		assertMissing(t, filepath.Join(from, archID+".json"))
		if got := archivedFlag(t, filepath.Join(to, archID+".json")); got != archived {
			t.Errorf(`"archived" in the file = %v, want %v`, got, archived)
		}
		doc, err := s.Load(archID)
		if err != nil {
			t.Fatal(err)
		}
		if doc.Archived != archived || doc.MessageCount() != 2 {
			t.Errorf("loaded archived=%v with %d messages, want archived=%v with 2", doc.Archived, doc.MessageCount(), archived)
		}
		if got, err := s.IsArchived(archID); err != nil || got != archived {
			t.Errorf("IsArchived = %v, %v; want %v", got, err, archived)
		}
		for _, kind := range []string{session.SidecarReadline, session.SidecarConsole} {
			got, err := s.Sidecar(archID, kind)
			if err != nil || string(got) != sidecars["."+kind] {
				t.Errorf("Sidecar(%s) = %q, %v", kind, got, err)
			}
		}
		assertExists(t, lock)
		assertMissing(t, filepath.Join(arch, archID+".lock"))
		assertExists(t, neighbour)
	}

	if err := s.Archive(archID); err != nil {
		t.Fatal(err)
	}
	moved(dir, arch, true)
	if err := s.Archive(archID); !errors.Is(err, session.ErrAlreadyArchived) {
		t.Errorf("second Archive = %v, want ErrAlreadyArchived", err)
	}
	if err := s.Restore(archID); err != nil {
		t.Fatal(err)
	}
	moved(arch, dir, false)
	if err := s.Restore(archID); !errors.Is(err, session.ErrNotArchived) {
		t.Errorf("second Restore = %v, want ErrNotArchived", err)
	}

	for _, op := range []func(string) error{s.Archive, s.Restore} {
		if err := op("0193c7b2-0000-7000-8000-00000000beef"); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("on an absent session: %v, want ErrNotFound", err)
		}
		if err := op("../x"); !errors.Is(err, session.ErrInvalidID) {
			t.Errorf("on ../x: %v, want ErrInvalidID", err)
		}
	}
}

// TestArchiveConflict: a file already at the destination stops the move
// before anything changes, on either side.
func TestArchiveConflict(t *testing.T) {
	tests := []struct {
		name     string
		archived bool   // where the session is before the operation
		conflict string // a file in the other folder
		op       func(*session.Store) error
	}{
		{"archive onto a sidecar", false, archID + ".console", func(s *session.Store) error { return s.Archive(archID) }},
		{"archive onto a document", false, archID + ".json", func(s *session.Store) error { return s.Archive(archID) }},
		{"restore onto a sidecar", true, archID + ".readline", func(s *session.Store) error { return s.Restore(archID) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, dir := openStore(t, session.Options{})
			arch := filepath.Join(dir, session.ArchivedDir)
			if err := s.Save(newDoc(archID, t0, 1, 1)); err != nil {
				t.Fatal(err)
			}
			withSidecars(t, dir, archID)
			from, to := dir, arch
			if tt.archived {
				if err := s.Archive(archID); err != nil {
					t.Fatal(err)
				}
				from, to = arch, dir
			}
			writeFile(t, filepath.Join(to, tt.conflict), "in the way")
			before := map[string]fileState{}
			for _, d := range []string{from, to} {
				entries, err := os.ReadDir(d)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range entries {
					if e.Type().IsRegular() {
						p := filepath.Join(d, e.Name())
						before[p] = freeze(t, p)
					}
				}
			}
			if err := tt.op(s); !errors.Is(err, session.ErrConflict) {
				t.Errorf("got %v, want ErrConflict", err)
			}
			for p, st := range before {
				if filepath.Ext(p) == ".lock" {
					continue // taken and released: its hint may change
				}
				assertUnchanged(t, p, st)
			}
			for _, d := range []string{from, to} {
				if got := tempFiles(t, d); len(got) != 0 {
					t.Errorf("temp files left in %s: %v", d, got)
				}
			}
			if got, err := s.IsArchived(archID); err != nil || got != tt.archived {
				t.Errorf("IsArchived = %v, %v; want %v", got, err, tt.archived)
			}
		})
	}
}

// TestRestoreMarkedInPlace: a document marked archived but still in
// session/ (an archive cut short) is restored by clearing the mark.
func TestRestoreMarkedInPlace(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	doc := newDoc(archID, t0, 1, 1)
	doc.Archived = true
	if err := s.Save(doc); err != nil {
		t.Fatal(err)
	}
	if err := s.Restore(archID); err != nil {
		t.Fatal(err)
	}
	if got := archivedFlag(t, filepath.Join(dir, archID+".json")); got != false {
		t.Errorf(`"archived" = %v after Restore, want false`, got)
	}
	assertMissing(t, filepath.Join(dir, session.ArchivedDir, archID+".json"))
}

func TestMigrateArchived(t *testing.T) {
	const (
		free    = "0193c7b2-0000-7000-8000-0000000000f2" // marked: moves
		held    = "0193c7b2-0000-7000-8000-0000000000f3" // marked, locked by another process: stays
		active  = "0193c7b2-0000-7000-8000-0000000000f4" // not marked: stays
		damaged = "0193c7b2-0000-7000-8000-0000000000d1"
	)
	s, dir := openStore(t, session.Options{})
	arch := filepath.Join(dir, session.ArchivedDir)
	for _, id := range []string{free, held, active} {
		doc := newDoc(id, t0, 1, 1)
		doc.Archived = id != active
		if err := s.Save(doc); err != nil {
			t.Fatal(err)
		}
		withSidecars(t, dir, id)
	}
	damagedPath := install(t, dir, "damaged/truncated.json", damaged)
	damagedBefore := freeze(t, damagedPath)
	heldPath := filepath.Join(dir, held+".json")
	heldBefore := freeze(t, heldPath)

	c := startLockChild(t, dir, "http://127.0.0.1:9999", held)
	var progress [][2]int
	rep, err := s.MigrateArchived(func(done, total int) { progress = append(progress, [2]int{done, total}) })
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{free}, rep.Moved); diff != "" {
		t.Errorf("Moved (-want +got):\n%s", diff)
	}
	if len(rep.Locked) != 1 || rep.Locked[0].ID != held || rep.Locked[0].Owner.PID != c.pid() || rep.Locked[0].Owner.URL != "http://127.0.0.1:9999" {
		t.Errorf("Locked = %v, want %s held by pid %d", rep.Locked, held, c.pid())
	}
	if diff := cmp.Diff([]string{damaged}, ids(rep.Damaged)); diff != "" {
		t.Errorf("Damaged (-want +got):\n%s", diff)
	}
	if len(progress) == 0 || progress[len(progress)-1] != [2]int{2, 2} {
		t.Errorf("progress calls %v, want them to end with [2 2]", progress)
	}
	for ext := range sidecars {
		assertExists(t, filepath.Join(arch, free+ext))
		assertMissing(t, filepath.Join(dir, free+ext))
		assertExists(t, filepath.Join(dir, held+ext))
		assertExists(t, filepath.Join(dir, active+ext))
	}
	assertExists(t, filepath.Join(arch, free+".json"))
	assertExists(t, filepath.Join(dir, active+".json"))
	assertUnchanged(t, heldPath, heldBefore)
	assertUnchanged(t, damagedPath, damagedBefore)

	c.kill()
	rep, err = s.MigrateArchived(nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{held}, rep.Moved); diff != "" {
		t.Errorf("Moved once the holder died (-want +got):\n%s", diff)
	}
	assertExists(t, filepath.Join(arch, held+".json"))
	assertUnchanged(t, damagedPath, damagedBefore)
}

func TestSidecar(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	if err := s.Save(newDoc(archID, t0, 1, 0)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, archID+".readline"), "readline")
	if err := s.Archive(archID); err != nil {
		t.Fatal(err)
	}
	// An archive cut short may leave a sidecar behind in session/.
	writeFile(t, filepath.Join(dir, archID+".console"), "console")

	tests := []struct {
		name, id, kind string
		want           string
		wantErr        error
	}{
		{"in the document's folder", archID, session.SidecarReadline, "readline", nil},
		{"left in the other folder", archID, session.SidecarConsole, "console", nil},
		{"invalid ID", "../x", session.SidecarReadline, "", session.ErrInvalidID},
		{"absent session", "0193c7b2-0000-7000-8000-00000000beef", session.SidecarReadline, "", session.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Sidecar(tt.id, tt.kind)
			if !errors.Is(err, tt.wantErr) || string(got) != tt.want {
				t.Errorf("Sidecar = %q, %v; want %q, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
	os.Remove(filepath.Join(dir, archID+".console"))
	if _, err := s.Sidecar(archID, session.SidecarConsole); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent sidecar: %v, want fs.ErrNotExist", err)
	}
	if _, err := s.Sidecar(archID, "json"); err == nil {
		t.Error("Sidecar of kind json succeeded: only historical sidecars may be read")
	}
}

func TestImageRefs(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	arch := filepath.Join(dir, session.ArchivedDir)
	install(t, dir, "healthy.json", healthyID)
	install(t, dir, "legacy-image.json", legacyID) // inline bytes: no reference
	const archivedSHA = "ab0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd"
	withImage := newDoc(archID, t0, 1, 0)
	withImage.Threads[0].Messages = append(withImage.Threads[0].Messages, session.Message{
		ID: "m", Role: "user", Content: []session.Block{
			{Type: session.BlockImage, SHA256: archivedSHA, MediaType: "image/webp"},
			{Type: session.BlockText, Text: "not an image", SHA256: "ignored"},
		},
	})
	if err := s.Save(withImage); err != nil {
		t.Fatal(err)
	}
	if err := s.Archive(archID); err != nil {
		t.Fatal(err)
	}
	d1, d2 := damagedDocs[0], damagedDocs[3]
	p1 := install(t, dir, d1.file, d1.id)
	p2 := install(t, arch, d2.file, d2.id)
	b1, b2 := freeze(t, p1), freeze(t, p2)

	var calls int
	refs, damaged, err := s.ImageRefs(func(done, total int) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef": true,
		archivedSHA: true,
	}
	if diff := cmp.Diff(want, refs); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
	got := ids(damaged)
	slices.Sort(got)
	if diff := cmp.Diff([]string{d1.id, d2.id}, got); diff != "" {
		t.Errorf("damaged (-want +got):\n%s", diff)
	}
	for _, d := range damaged {
		if d.Damaged == "" {
			t.Errorf("damaged %s without a reason", d.ID)
		}
	}
	if calls == 0 {
		t.Error("progress never called")
	}
	assertUnchanged(t, p1, b1)
	assertUnchanged(t, p2, b2)
}
