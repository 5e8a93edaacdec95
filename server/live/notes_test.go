package live

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myco/profiles"
	"myco/server/event"
	"myco/server/tools"
	"myco/session"
)

// modelTexts is the text of what the model is sent for the latest thread.
func modelTexts(s *Session) []string {
	var thread session.Thread
	s.w.View(func(d *session.Document) { thread = d.Threads[len(d.Threads)-1] })
	var out []string
	for _, m := range normalize(s.withNotes(seen(thread.Messages))) {
		for _, b := range m.Content {
			// myco's own context note has a test of its own.
			if b.Type == session.BlockText && !strings.HasPrefix(b.Text, "<system-reminder>") {
				out = append(out, m.Role+": "+b.Text)
			}
		}
	}
	return out
}

func count(texts []string, sub string) int {
	n := 0
	for _, t := range texts {
		n += strings.Count(t, sub)
	}
	return n
}

// A note reaches the model once, before the person's next words; the
// same request built again (a retry) shows it again, and a later message
// does not carry it.
func TestNoteDeliveredOnceBeforeTheNextMessage(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	if _, err := s.SendNote("nightly build", "tests failed in pkg/x"); err != nil {
		t.Fatal(err)
	}
	ev := e.events.next(t, "note")
	if n := ev.data.(interface{ Name() string }); n.Name() != "note" {
		t.Fatal("no note event")
	}
	if _, err := s.appendHuman("what happened?", nil); err != nil {
		t.Fatal(err)
	}
	got := modelTexts(s)
	if len(got) != 2 || !strings.HasPrefix(got[0], `user: [Earlier, at `) || !strings.Contains(got[0], `"nightly build" sent: "tests failed in pkg/x"]`) ||
		got[1] != "user: what happened?" {
		t.Fatalf("model sees %q", got)
	}
	if again := modelTexts(s); count(again, "tests failed") != 1 {
		t.Fatalf("a retry's request: %q", again)
	}
	if len(s.PendingNotes()) != 0 {
		t.Fatal("the note still waits after its message")
	}
	if err := s.appendMessage(session.Message{ID: "a1", Role: "assistant", Content: []session.Block{{Type: session.BlockText, Text: "ok"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.appendHuman("and now?", nil); err != nil {
		t.Fatal(err)
	}
	if got := modelTexts(s); count(got, "tests failed") != 1 {
		t.Fatalf("the note is sent twice: %q", got)
	}
	// A new process sees the same: delivery is in the document.
	id := s.ID()
	s.m.Close()
	again := e.open(t, id)
	if got := modelTexts(again); count(got, "tests failed") != 1 {
		t.Fatalf("after a reopen: %q", got)
	}
}

// A note left while myco is not running waits in the profile and goes
// with the first message once the session is open again.
func TestNoteWaitsWhileClosed(t *testing.T) {
	e := newFileEnv(t)
	doc, err := e.store.Create(session.NewSession{Title: "closed", Cwd: e.work})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Update(doc.ID, func(d *session.Document) error {
		session.AddNote(d, session.Note{ID: "n1", Kind: session.NoteText, From: "cron", Text: "backup done"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s := e.open(t, doc.ID)
	if _, err := s.appendHuman("hello", nil); err != nil {
		t.Fatal(err)
	}
	if got := modelTexts(s); count(got, `"cron" sent: "backup done"`) != 1 {
		t.Fatalf("model sees %q", got)
	}
}

// Each note is cut to 1,200 characters, and at most 6,000 characters of
// notes go with one message: the newest, and a line on the rest.
func TestNotesAreBounded(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	for i := range 10 {
		if _, err := s.SendNote("job", fmt.Sprintf("note-%d %s", i, strings.Repeat("x", 2000))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.appendHuman("go", nil); err != nil {
		t.Fatal(err)
	}
	got := modelTexts(s)
	total := 0
	for _, g := range got {
		if strings.Contains(g, "sent:") {
			if n := len([]rune(g)); n > maxNoteChars+100 {
				t.Errorf("a note of %d characters", n)
			}
			total += len([]rune(g))
		}
	}
	if total > maxNotesChars {
		t.Errorf("%d characters of notes", total)
	}
	if count(got, "note-9 ") != 1 || count(got, "note-0 ") != 0 {
		t.Errorf("the newest are not the ones kept: %q", got)
	}
	if !strings.Contains(got[0], "6 older notes were left out") {
		t.Errorf("first block %q, want the count of notes left out", got[0])
	}
}

// An attached file counts as read: edit_file takes it at once.
func TestAttachedFileCountsAsRead(t *testing.T) {
	e := newFileEnv(t, allowEdits)
	s := e.newSession(t)
	e.write(t, "a.txt", "alpha\nbeta\n")
	n, err := s.Attach("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(n.Text, "     1\talpha") {
		t.Fatalf("attached text %q", n.Text)
	}
	wantOutcome(t, run(t, s, "edit_file", edit("a.txt", "alpha", "omega")), false, "Edited")
	if _, err := s.appendHuman("look", nil); err != nil {
		t.Fatal(err)
	}
	if got := modelTexts(s); count(got, "[You attached a.txt at ") != 1 {
		t.Fatalf("model sees %q", got)
	}
}

// @path follows read_file's rules: ~/.ssh and .env are refused, a folder
// lists its entries.
func TestAttachRefusesDeniedPaths(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newFileEnv(t, func(o *Options) {
		withSettings(o, func(st *profiles.Settings) { st.DeniedPaths = append(st.DeniedPaths, "~/.ssh") })
	})
	s := e.newSession(t)
	e.write(t, ".env", "TOKEN=1")
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(e.work, "keys")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"~/.ssh/id_rsa", ".env", "keys/id_rsa", "keys"} {
		if _, err := s.Attach(p); !errors.Is(err, tools.ErrDenied) {
			t.Errorf("Attach(%q) = %v, want denied", p, err)
		}
	}
	if err := os.Mkdir(filepath.Join(e.work, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.write(t, "src/main.go", "package main\n")
	n, err := s.Attach("src")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(n.Text, "main.go") {
		t.Errorf("folder listing %q", n.Text)
	}
	if len(s.PendingNotes()) != 1 {
		t.Fatalf("pending %d, want 1 (refused ones are not kept)", len(s.PendingNotes()))
	}
	if err := s.RemoveNote(n.ID); err != nil {
		t.Fatal(err)
	}
	if len(s.PendingNotes()) != 0 {
		t.Fatal("a removed attachment still waits")
	}
}

// A !command runs in the session's shell; its output streams to the tabs
// and goes to the model with the next message.
func TestCommandOutputGoesWithTheNextMessage(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	id, err := s.RunCommand("echo from-the-shell")
	if err != nil {
		t.Fatal(err)
	}
	for {
		ev := e.events.next(t, "note")
		if n := ev.data.(event.Note); n.ID == id && n.Exit != nil {
			if *n.Exit != 0 || !strings.Contains(n.Text, "from-the-shell") {
				t.Fatalf("outcome %+v", n)
			}
			break
		}
	}
	if _, err := s.appendHuman("see?", nil); err != nil {
		t.Fatal(err)
	}
	got := modelTexts(s)
	if count(got, "[You ran `echo from-the-shell` at ") != 1 || count(got, "exit 0; output:\nfrom-the-shell") != 1 {
		t.Fatalf("model sees %q", got)
	}
}

// Leaving a note costs one short journal record however many wait, and so
// does sending the message that carries them (issue 18: each note rewrote
// the whole list; 10,000 took ten minutes).
func TestNoteCostsOneShortRecord(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	journal := filepath.Join(s.w.Dir(), s.ID()+".journal")
	size := func() int64 {
		info, err := os.Stat(journal)
		if err != nil {
			return 0
		}
		return info.Size()
	}
	for i := range 300 {
		if _, err := s.SendNote("nightly build", fmt.Sprintf("build %d failed in pkg/x", i)); err != nil {
			t.Fatal(err)
		}
	}
	before := size()
	if _, err := s.SendNote("nightly build", "one more"); err != nil {
		t.Fatal(err)
	}
	if grew := size() - before; grew > 1024 {
		t.Errorf("the 301st note wrote %d bytes to the journal, want one short record", grew)
	}
}
