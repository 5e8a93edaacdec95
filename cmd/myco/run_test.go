package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"myco/session"
)

// cli runs the program in process against a temp MYCO_HOME.
type cli struct {
	t    *testing.T
	home string
}

func newCLI(t *testing.T) *cli {
	t.Helper()
	return &cli{t: t, home: t.TempDir()}
}

func (c *cli) run(args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	var out, errOut bytes.Buffer
	getenv := func(k string) string {
		if k == "MYCO_HOME" {
			return c.home
		}
		return ""
	}
	err := run(context.Background(), args, getenv, nil, &out, &errOut)
	code = exitCode(err, &errOut)
	return out.String(), errOut.String(), code
}

func (c *cli) store(profile string) *session.Store {
	c.t.Helper()
	s, err := session.Open(c.sessionDir(profile), session.Options{})
	if err != nil {
		c.t.Fatal(err)
	}
	return s
}

func (c *cli) sessionDir(profile string) string {
	return filepath.Join(c.home, "profiles", profile, "session")
}

func (c *cli) create(profile, title string) string {
	c.t.Helper()
	doc, err := c.store(profile).Create(session.NewSession{Title: title, Model: "anthropic/x"})
	if err != nil {
		c.t.Fatal(err)
	}
	return doc.ID
}

func TestSessionCommands(t *testing.T) {
	c := newCLI(t)
	a := c.create("default", "Alpha")
	b := c.create("default", "Beta")
	other := c.create("work", "Elsewhere")

	out, errOut, code := c.run("sessions", "list")
	if code != 0 || !strings.Contains(out, a) || !strings.Contains(out, "Beta") || strings.Index(out, b) > strings.Index(out, a) {
		t.Fatalf("list: code %d out %q err %q", code, out, errOut)
	}

	out, _, code = c.run("sessions", "list", "--json")
	var sums []session.Summary
	if code != 0 || json.Unmarshal([]byte(out), &sums) != nil || len(sums) != 2 {
		t.Fatalf("list --json: code %d out %q", code, out)
	}

	out, _, code = c.run("sessions", "show", a[:len(a)-4], "--json")
	if code != 0 || !strings.Contains(out, `"title": "Alpha"`) {
		t.Errorf("show prefix --json: %d %q", code, out)
	}
	out, _, code = c.run("--profile", "work", "sessions", "show", other)
	if code != 0 || !strings.Contains(out, "Elsewhere") {
		t.Errorf("show in work: %d %q", code, out)
	}

	_, errOut, code = c.run("sessions", "show", other)
	if code != 1 || !strings.Contains(errOut, `profile "work"`) {
		t.Errorf("show of another profile's session: %d %q", code, errOut)
	}
	_, errOut, code = c.run("sessions", "show", a[:4])
	if code != 1 || !strings.Contains(errOut, "ambiguous") {
		t.Errorf("ambiguous prefix: %d %q", code, errOut)
	}
	if n := strings.Count(strings.TrimSpace(errOut), "\n"); n != 0 {
		t.Errorf("error is %d lines: %q", n+1, errOut)
	}

	out, _, code = c.run("sessions", "title", b, "Beta, renamed")
	if doc, _ := c.store("default").Load(b); code != 0 || doc.Title != "Beta, renamed" {
		t.Errorf("title without a server: %d %q %q", code, out, doc.Title)
	}

	out, _, code = c.run("sessions", "search", "renamed")
	if code != 0 || !strings.Contains(out, b) || !strings.Contains(out, "title") {
		t.Errorf("search: %d %q", code, out)
	}
	_, errOut, code = c.run("sessions", "search", "zebra")
	if code != 1 || !strings.Contains(errOut, `nothing matches "zebra"`) {
		t.Errorf("search without hits: %d %q", code, errOut)
	}

	_, _, code = c.run("sessions", "archive", a)
	if _, err := os.Stat(filepath.Join(c.sessionDir("default"), "archived", a+".json")); code != 0 || err != nil {
		t.Fatalf("archive: code %d, file %v", code, err)
	}
	out, _, _ = c.run("sessions", "list", "--archived")
	if !strings.Contains(out, a) || strings.Contains(out, b) {
		t.Errorf("list --archived: %q", out)
	}
	_, errOut, code = c.run("sessions", "archive", a)
	if code != 1 || !strings.Contains(errOut, "already archived") {
		t.Errorf("archive twice: %d %q", code, errOut)
	}
	_, _, code = c.run("sessions", "restore", a)
	if _, err := os.Stat(filepath.Join(c.sessionDir("default"), a+".json")); code != 0 || err != nil {
		t.Fatalf("restore: code %d, file %v", code, err)
	}
}

func TestArchiveLockedNamesOwner(t *testing.T) {
	c := newCLI(t)
	id := c.create("default", "busy")
	// Another open file description on the lock stands in for another
	// process (session's tests use a real child process).
	l, err := c.store("default").Lock(id, session.Owner{PID: 31337, URL: "http://127.0.0.1:5555"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	_, errOut, code := c.run("sessions", "archive", id)
	if code != 1 || !strings.Contains(errOut, "locked by pid 31337 (http://127.0.0.1:5555)") {
		t.Errorf("archive of locked session: %d %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(c.sessionDir("default"), id+".json")); err != nil {
		t.Errorf("locked session moved: %v", err)
	}
}

func TestDamagedDocumentCommands(t *testing.T) {
	c := newCLI(t)
	c.create("default", "fine")
	id := "0193c7b2-6c1e-7c4a-9a0e-3f5b2d1e8a90"
	path := filepath.Join(c.sessionDir("default"), id+".json")
	bad := []byte(`{"schema": 7, "id": "` + id + `", "threads": []}`)
	os.WriteFile(path, bad, 0o600)

	out, _, code := c.run("sessions", "list")
	if code != 0 || !strings.Contains(out, "DAMAGED: unsupported schema 7") {
		t.Errorf("list: %d %q", code, out)
	}
	for _, args := range [][]string{{"sessions", "show", id}, {"sessions", "archive", id}} {
		_, errOut, code := c.run(args...)
		if code != 1 || !strings.Contains(errOut, "damaged") {
			t.Errorf("%v: %d %q", args, code, errOut)
		}
	}
	_, errOut, code := c.run("images", "gc")
	if code != 1 || !strings.Contains(errOut, "damaged") {
		t.Errorf("gc with a damaged document: %d %q", code, errOut)
	}
	// Its images cannot be looked for: verify cannot say all is well.
	_, errOut, code = c.run("images", "verify")
	if code != 1 || !strings.Contains(errOut, "session "+id+": cannot read its image references") ||
		!strings.Contains(errOut, "1 damaged documents could not be checked") {
		t.Errorf("verify with a damaged document: %d %q", code, errOut)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, bad) {
		t.Errorf("damaged document changed")
	}
}

func TestImageCommands(t *testing.T) {
	c := newCLI(t)
	c.create("default", "x") // makes the profile
	im, err := session.OpenImages(filepath.Join(c.home, "profiles", "default", "images"))
	if err != nil {
		t.Fatal(err)
	}
	gif := []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;")
	ref, err := im.Put(gif)
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := c.run("images", "verify")
	if code != 0 || !strings.Contains(out, "checked 1 images") || errOut != "" {
		t.Errorf("verify: %d %q %q", code, out, errOut)
	}
	out, _, code = c.run("images", "gc", "--dry-run")
	if code != 0 || !strings.Contains(out, "would remove "+ref.SHA256) || !im.Has(ref.SHA256) {
		t.Errorf("gc --dry-run: %d %q", code, out)
	}
	path, _ := im.Path(ref.SHA256)
	os.WriteFile(path, []byte("GIF89a\x01\x00\x01\x00\x00\x00\x01;"), 0o600)
	out, errOut, code = c.run("images", "verify")
	if code != 1 || !strings.Contains(errOut, "corrupt") || !strings.Contains(errOut, "no session refers to it") ||
		!strings.Contains(errOut, "1 of 1 images") {
		t.Errorf("verify corrupt: %d %q %q", code, out, errOut)
	}
}

// TestVerifyNamesSessions checks that verify finds the images sessions
// refer to and that are not stored (hashing the store alone cannot see a
// blob that is not there), and says whose they are.
func TestVerifyNamesSessions(t *testing.T) {
	c := newCLI(t)
	im, err := session.OpenImages(filepath.Join(c.home, "profiles", "default", "images"))
	if err != nil {
		t.Fatal(err)
	}
	good, err := im.Put([]byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"))
	if err != nil {
		t.Fatal(err)
	}
	bad, err := im.Put([]byte("GIF89a\x02\x00\x01\x00\x00\x00\x00;"))
	if err != nil {
		t.Fatal(err)
	}
	const gone = "0000000000000000000000000000000000000000000000000000000000000001"
	fine := c.createWithImages("default", "fine", good.SHA256)
	lost := c.createWithImages("default", "lost", gone, good.SHA256)
	archived := c.createWithImages("default", "lost too", gone)
	damagedImage := c.createWithImages("default", "damaged image", bad.SHA256)
	if err := c.store("default").Archive(archived); err != nil {
		t.Fatal(err)
	}

	out, errOut, code := c.run("images", "verify")
	goneAt := filepath.Join(c.home, "profiles", "default", "images", gone[:2], gone)
	wantLines := []string{
		"session " + lost + ": image sha256:" + gone + " missing at " + goneAt,
		"session " + archived + ": image sha256:" + gone + " missing at " + goneAt,
		"myco: 1 referenced images are missing",
	}
	for _, w := range wantLines {
		if !strings.Contains(errOut, w+"\n") {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
	if code != 1 || strings.Contains(errOut, fine) || !strings.Contains(out, "checked 2 images") {
		t.Errorf("verify: code %d, out %q, err %q; want 1, 2 checked, and %s not named", code, out, errOut, fine)
	}

	path, _ := im.Path(bad.SHA256)
	os.WriteFile(path, []byte("GIF89a rotten"), 0o600)
	_, errOut, code = c.run("images", "verify")
	want := "session " + damagedImage + ": image sha256:" + bad.SHA256 + " corrupt at " + path
	if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "1 of 2 images are corrupt") {
		t.Errorf("verify corrupt: code %d, err %q; want 1 and %q", code, errOut, want)
	}
}

// createWithImages makes a session whose one message shows images by SHA-256.
func (c *cli) createWithImages(profile, title string, shas ...string) string {
	c.t.Helper()
	id := c.create(profile, title)
	var blocks []session.Block
	for _, sha := range shas {
		blocks = append(blocks, session.Block{Type: session.BlockImage, SHA256: sha, MediaType: "image/gif"})
	}
	_, err := c.store(profile).Update(id, func(d *session.Document) error {
		d.Threads[len(d.Threads)-1].Messages = append(d.Threads[len(d.Threads)-1].Messages,
			session.Message{ID: "m1", Role: "user", Human: true, Content: blocks})
		return nil
	})
	if err != nil {
		c.t.Fatal(err)
	}
	return id
}

func TestUsageErrors(t *testing.T) {
	c := newCLI(t)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown command", []string{"frobnicate"}, 2, "unknown command"},
		{"sessions without verb", []string{"sessions"}, 2, "which command"},
		{"show without id", []string{"sessions", "show"}, 2, "expected 1 argument"},
		{"unknown flag", []string{"sessions", "list", "--bogus"}, 2, "bogus"},
		{"bad profile", []string{"--profile", "../x", "sessions", "list"}, 1, "invalid profile name"},
		{"missing profile", []string{"--profile", "nope", "sessions", "list"}, 1, `profile "nope" does not exist`},
		{"help", []string{"--help"}, 0, "myco sessions list"},
		{"non-loopback addr", []string{"--addr", "0.0.0.0:0", "--no-open"}, 1, "loopback address only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := c.run(tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("code %d, stderr %q; want %d and %q", code, errOut, tt.code, tt.want)
			}
		})
	}
}

// TestShowSidecars checks that show prints the historical transcripts the
// session page shows, whole, above the threads, archived or not.
func TestShowSidecars(t *testing.T) {
	c := newCLI(t)
	id := c.create("default", "old work")
	plain := c.create("default", "no history")
	dir := c.sessionDir("default")
	readline := "ls -la\nmake test\n"
	console := "$ make test\nok  \tmyco/session\n"
	os.WriteFile(filepath.Join(dir, id+".readline"), []byte(readline), 0o600)
	os.WriteFile(filepath.Join(dir, id+".console"), []byte(console), 0o600)
	want := "\n=== readline history (from before myco) ===\n" + readline +
		"\n=== console transcript (from before myco) ===\n" + console +
		"\n=== thread 0"

	out, errOut, code := c.run("sessions", "show", id)
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("show: code %d, err %q, out:\n%s\nwant it to hold:\n%s", code, errOut, out, want)
	}
	if _, _, code := c.run("sessions", "archive", id); code != 0 {
		t.Fatalf("archive: code %d", code)
	}
	out, errOut, code = c.run("sessions", "show", id)
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("show archived: code %d, err %q, out:\n%s", code, errOut, out)
	}
	out, _, code = c.run("sessions", "show", plain)
	if code != 0 || strings.Contains(out, "from before myco") {
		t.Errorf("show without sidecars: code %d, out:\n%s", code, out)
	}
}

// TestTitleRule checks that `sessions title` renames by the one title rule
// (session.SetTitle), as the page and the agent do.
func TestTitleRule(t *testing.T) {
	long := strings.Repeat("é", session.TitleMax+10)
	tests := []struct {
		name      string
		title     string
		archived  bool
		wantCode  int
		wantTitle string
		wantErr   string
	}{
		{"one line, trimmed", "  Fix\n the\ttest ", false, 0, "Fix the test", ""},
		{"cut to the cap", long, false, 0, strings.Repeat("é", session.TitleMax), ""},
		{"empty refused", " \n ", false, 1, "before", "title is empty"},
		{"archived refused", "After", true, 1, "before", "session is archived"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t)
			id := c.create("default", "before")
			if tt.archived {
				if err := c.store("default").Archive(id); err != nil {
					t.Fatal(err)
				}
			}
			out, errOut, code := c.run("sessions", "title", id, tt.title)
			doc, err := c.store("default").Load(id)
			if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantCode || doc.Title != tt.wantTitle || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("code %d, title %q, stderr %q; want %d, %q, %q", code, doc.Title, errOut, tt.wantCode, tt.wantTitle, tt.wantErr)
			}
			if code == 0 && out != fmt.Sprintf("renamed %s to %q\n", id, tt.wantTitle) {
				t.Errorf("stdout %q", out)
			}
		})
	}
}

// TestShowCutsOnCharacters: `sessions show` shortens a long tool result,
// and the cut must not split a character (it printed invalid UTF-8).
func TestShowCutsOnCharacters(t *testing.T) {
	c := newCLI(t)
	id := c.create("default", "Euros")
	w, err := c.store("default").OpenWriter(id, session.Owner{PID: os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	long, _ := json.Marshal("x" + strings.Repeat("€", 1000)) // 3,001 bytes: a cut at 2,000 lands inside a €
	for _, m := range []session.Message{
		{ID: "a1", Role: "assistant", Content: []session.Block{{Type: session.BlockToolUse, ID: "t1", Name: "bash", Input: []byte(`{"command":"euros"}`)}}},
		{ID: "u1", Role: "user", Content: []session.Block{{Type: session.BlockToolResult, ToolUseID: "t1", Content: long}}},
	} {
		if err := w.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := c.run("sessions", "show", id)
	if code != 0 {
		t.Fatalf("show: %d %q", code, errOut)
	}
	if !utf8.ValidString(out) {
		t.Errorf("show printed invalid UTF-8 around the cut: %q", out[strings.Index(out, "more bytes")-20:])
	}
	if !strings.Contains(out, "(1002 more bytes)") { // 1 + 666×3 bytes shown of 3,001
		t.Errorf("show does not say the result was cut: %q", out)
	}
}
