package session_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"myco/session"
)

// searchT0 is the time of the oldest session of a search fixture.
var searchT0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// searchFixture is a store holding three sessions, the newest last:
// old (archived, with sidecars), mid, and new.
type searchFixture struct {
	store         *session.Store
	dir           string
	old, mid, new string
}

func newSearchFixture(t *testing.T) searchFixture {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "session")
	s, err := session.Open(dir, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := searchFixture{store: s, dir: dir}
	f.old = searchSession(t, s, 0, "Old shell log", func(d *session.Document) {
		d.Threads[0].Messages = []session.Message{
			searchText("o1", "user", "the deploy script broke"),
		}
	})
	writeSidecar(t, filepath.Join(dir, f.old+".readline"), searchReadline())
	writeSidecar(t, filepath.Join(dir, f.old+".console"), []byte("\x1b[31mERROR\x1b[0m Kernel Panic at boot\n"))
	if err := s.Archive(f.old); err != nil {
		t.Fatal(err)
	}
	f.mid = searchSession(t, s, 1, "Fix the flaky test", func(d *session.Document) {
		d.Scratchpad = "TODO: rerun the Flaky test with -race"
		d.Threads[0].Messages = []session.Message{
			searchText("m1", "user", "why does TestLock fail on CI?"),
			{ID: "m2", Role: "assistant", Content: []session.Block{
				{Type: session.BlockText, Text: "Let me look."},
				{Type: session.BlockToolUse, ID: "toolu_1", Name: "bash",
					Input: jsontext.Value(`{"command":"go test -run TestLock\n./session/"}`)},
			}},
			{ID: "m3", Role: "user", Content: []session.Block{
				{Type: session.BlockToolResult, ToolUseID: "toolu_1",
					Content: jsontext.Value(`"--- FAIL: TestLock (0.01s)\nlock held by pid 4242"`)},
			}},
		}
		d.Threads = append(d.Threads, session.Thread{CreatedAt: searchT0, Messages: []session.Message{
			searchText("m4", "user", "deploy it once the flaky test passes"),
		}})
	})
	f.new = searchSession(t, s, 2, "Screenshots", func(d *session.Document) {
		d.Threads[0].Messages = []session.Message{
			{ID: "n1", Role: "user", Content: []session.Block{
				{Type: session.BlockText, Text: "what is on this screen?"},
				{Type: session.BlockImage, SHA256: strings.Repeat("ab", 32), MediaType: "image/png"},
				{Type: session.BlockImage, MediaType: "image/png", Data: "iVBORw0KGgoNEEDLEINDATA"},
			}},
			{ID: "n2", Role: "user", Content: []session.Block{
				{Type: session.BlockToolResult, ToolUseID: "toolu_2", Content: jsontext.Value(
					`[{"type":"text","text":"screenshot saved"},{"type":"image","media_type":"image/png","data":"AAAAsecretPIXELS"}]`)},
			}},
		}
	})
	return f
}

// searchSession creates a session updated n hours after searchT0.
func searchSession(t *testing.T, s *session.Store, n int, title string, fill func(*session.Document)) string {
	t.Helper()
	doc, err := s.Create(session.NewSession{Title: title})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Update(doc.ID, func(d *session.Document) error {
		fill(d)
		d.UpdatedAt = searchT0.Add(time.Duration(n) * time.Hour)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return doc.ID
}

func searchText(id, role, text string) session.Message {
	return session.Message{ID: id, Role: role, Content: []session.Block{{Type: session.BlockText, Text: text}}}
}

func writeSidecar(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// searchReadline is a 100 KB transcript: "ancient-word" only in its first
// kilobytes, "recent-word" near its end.
func searchReadline() []byte {
	var b bytes.Buffer
	b.WriteString("$ echo ancient-word\n")
	for b.Len() < 100<<10 {
		b.WriteString("$ ls\nfile.txt\n")
	}
	b.WriteString("$ make recent-word\n")
	return b.Bytes()
}

// where is a hit without its excerpt and title, for comparing.
type where struct {
	Session, Kind, Message string
	Thread                 int
}

func wheres(hits []session.Hit) []where {
	var out []where
	for _, h := range hits {
		out = append(out, where{Session: h.Session, Kind: h.Kind, Message: h.Message, Thread: h.Thread})
	}
	return out
}

func TestSearch(t *testing.T) {
	f := newSearchFixture(t)
	tests := []struct {
		name, q string
		want    func(f searchFixture) []where
	}{
		{"case-insensitive, newest session first, messages newest first", "DEPLOY", func(f searchFixture) []where {
			return []where{
				{Session: f.mid, Kind: session.HitMessage, Message: "m4", Thread: 1},
				{Session: f.old, Kind: session.HitMessage, Message: "o1"},
			}
		}},
		{"every word, in one place", "flaky test", func(f searchFixture) []where {
			return []where{
				{Session: f.mid, Kind: session.HitTitle},
				{Session: f.mid, Kind: session.HitScratchpad},
				{Session: f.mid, Kind: session.HitMessage, Message: "m4", Thread: 1},
			}
		}},
		{"words spread over messages do not match", "deploy TestLock", func(searchFixture) []where { return nil }},
		{"tool input string values", "testlock ./session/", func(f searchFixture) []where {
			return []where{{Session: f.mid, Kind: session.HitMessage, Message: "m2"}}
		}},
		{"tool result string", "pid 4242", func(f searchFixture) []where {
			return []where{{Session: f.mid, Kind: session.HitMessage, Message: "m3"}}
		}},
		{"tool result text blocks", "screenshot saved", func(f searchFixture) []where {
			return []where{{Session: f.new, Kind: session.HitMessage, Message: "n2"}}
		}},
		{"legacy inline image data is not searched", "NEEDLEINDATA", func(searchFixture) []where { return nil }},
		{"image data in a tool result is not searched", "secretpixels", func(searchFixture) []where { return nil }},
		{"image hashes are not searched", "abababab", func(searchFixture) []where { return nil }},
		{"sidecar tail of an archived session", "recent-word", func(f searchFixture) []where {
			return []where{{Session: f.old, Kind: session.SidecarReadline}}
		}},
		{"sidecar beyond the last 64 KB is not searched", "ancient-word", func(searchFixture) []where { return nil }},
		{"console sidecar", "kernel panic", func(f searchFixture) []where {
			return []where{{Session: f.old, Kind: session.SidecarConsole}}
		}},
		{"empty query", "  ", func(searchFixture) []where { return nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := f.store.Search(tt.q, 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want(f), wheres(hits)); diff != "" {
				t.Errorf("Search(%q) (-want +got):\n%s", tt.q, diff)
			}
		})
	}
}

func TestSearchHitFields(t *testing.T) {
	f := newSearchFixture(t)
	hits, err := f.store.Search("4242", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []session.Hit{{
		Session: f.mid, Title: "Fix the flaky test", Thread: 0, Message: "m3",
		Kind: session.HitMessage, From: session.FromTool, Excerpt: "--- FAIL: TestLock (0.01s) lock held by pid 4242",
	}}
	if diff := cmp.Diff(want, hits); diff != "" {
		t.Errorf("hits (-want +got):\n%s", diff)
	}
}

func TestSearchLimit(t *testing.T) {
	f := newSearchFixture(t)
	hits, err := f.store.Search("test", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 {
		t.Fatalf("got %d hits, want 2: %v", len(hits), wheres(hits))
	}
}

func TestSearchExcerpt(t *testing.T) {
	tests := []struct {
		name, text string
	}{
		{"match in the middle of a long line", strings.Repeat("lorem ipsum ", 100) + "NEEDLE" + strings.Repeat(" dolor sit", 100)},
		{"match at the start", "needle" + strings.Repeat("\n\tline", 200)},
		{"match at the end", strings.Repeat("line\r\n", 200) + "needle"},
		{"multi-byte text", strings.Repeat("日本語のテキスト", 50) + "needle" + strings.Repeat("ü", 300)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "session")
			s, err := session.Open(dir, session.Options{})
			if err != nil {
				t.Fatal(err)
			}
			searchSession(t, s, 0, "", func(d *session.Document) {
				d.Threads[0].Messages = []session.Message{searchText("x", "user", tt.text)}
			})
			hits, err := s.Search("needle", 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != 1 {
				t.Fatalf("got %d hits, want 1", len(hits))
			}
			ex := hits[0].Excerpt
			if !strings.Contains(strings.ToLower(ex), "needle") {
				t.Errorf("excerpt %q does not show the match", ex)
			}
			if strings.ContainsAny(ex, "\n\r\t") || !utf8.ValidString(ex) {
				t.Errorf("excerpt %q is not one valid line", ex)
			}
			if n := len(ex); n > 200 {
				t.Errorf("excerpt is %d bytes, want about 160", n)
			}
		})
	}
}

// TestSearchSkipsDamaged: a damaged document neither fails the search nor
// changes; the others are still found.
func TestSearchSkipsDamaged(t *testing.T) {
	f := newSearchFixture(t)
	path := filepath.Join(f.dir, "0193c7b2-0000-7000-8000-0000000000d1.json")
	damaged := []byte(`{"schema": 1, "id": "0193c7b2-0000-7000-8000-0000000000d1", "title": "deploy`)
	writeSidecar(t, path, damaged)
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := f.store.Search("deploy", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 {
		t.Errorf("got %v, want the two readable hits", wheres(hits))
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, damaged) || !after.ModTime().Equal(before.ModTime()) {
		t.Error("the damaged document changed")
	}
}

// TestSearchPrefilter: the prefilter skips decoding but finds what only
// the journal holds, and a word in one message and another word in the next
// is no message hit.
func TestSearchPrefilter(t *testing.T) {
	s, _ := openStore(t, session.Options{})
	doc, err := s.Create(session.NewSession{Title: "Prefilter"})
	if err != nil {
		t.Fatal(err)
	}
	w := openWriter(t, s, doc.ID)
	for _, m := range []session.Message{
		searchText("p1", "user", "the quokka is in the journal only"),
		searchText("p2", "assistant", "and the WOMBAT in the next message"),
	} {
		if err := w.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		query string
		want  []string // message IDs
	}{
		{"Quokka", []string{"p1"}},
		{"wombat", []string{"p2"}},
		{"quokka wombat", nil},
		{"zanzibar", nil},
	} {
		hits, err := s.Search(tt.query, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.Message)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Search(%q) messages (-want +got):\n%s", tt.query, diff)
		}
	}
}

// TestSearchSidecarLeftBehind: a sidecar that an archive cut short left in
// the active folder is still searched with its archived session.
func TestSearchSidecarLeftBehind(t *testing.T) {
	f := newSearchFixture(t)
	from := filepath.Join(f.dir, session.ArchivedDir, f.old+".console")
	if err := os.Rename(from, filepath.Join(f.dir, f.old+".console")); err != nil {
		t.Fatal(err)
	}
	hits, err := f.store.Search("kernel panic", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []where{{Session: f.old, Kind: session.SidecarConsole}}
	if diff := cmp.Diff(want, wheres(hits)); diff != "" {
		t.Errorf("hits (-want +got):\n%s", diff)
	}
}
