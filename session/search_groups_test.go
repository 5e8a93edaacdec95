package session_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"myco/session"
)

// groupsFixture is a store where the newest session says "zebra" in fifty
// answers and an older one says it once: the flood and the real one.
type groupsFixture struct {
	store                         *session.Store
	flood, one, titled, untouched string
}

func newGroupsFixture(t *testing.T) groupsFixture {
	t.Helper()
	s, err := session.Open(filepath.Join(t.TempDir(), "session"), session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := groupsFixture{store: s}
	f.untouched = searchSession(t, s, 0, "Nothing here", func(d *session.Document) {
		d.Threads[0].Messages = []session.Message{searchText("u1", "user", "no such animal")}
	})
	f.one = searchSession(t, s, 1, "The real one", func(d *session.Document) {
		d.Threads[0].Messages = []session.Message{
			{ID: "r1", Role: "user", Human: true, At: searchT0.Add(time.Hour),
				Content: []session.Block{{Type: session.BlockText, Text: "where did the **zebra** go?"}}},
		}
	})
	f.titled = searchSession(t, s, 2, "Zebra crossing", func(d *session.Document) {
		d.Threads[0].Messages = []session.Message{searchText("t1", "user", "a title hit alone")}
	})
	f.flood = searchSession(t, s, 3, "Zebra flood", func(d *session.Document) {
		for i := range 50 {
			d.Threads[0].Messages = append(d.Threads[0].Messages, session.Message{
				ID: fmt.Sprintf("f%02d", i), Role: "assistant", At: searchT0.Add(time.Duration(i) * time.Minute),
				Content: []session.Block{{Type: session.BlockText, Text: fmt.Sprintf("## Zebra %d\n\nA **zebra** in `code`.", i)}},
			})
		}
	})
	return f
}

// shape is a group without its hits' excerpts, for comparing.
type shape struct {
	Session    string
	TitleMatch bool
	Total      int
	Messages   []string
}

func shapes(groups []session.Group) []shape {
	var out []shape
	for _, g := range groups {
		sh := shape{Session: g.Session, TitleMatch: g.TitleMatch, Total: g.Total}
		for _, h := range g.Hits {
			sh.Messages = append(sh.Messages, h.Message)
		}
		out = append(out, sh)
	}
	return out
}

func TestSearchGroups(t *testing.T) {
	f := newGroupsFixture(t)
	tests := []struct {
		name string
		q    string
		o    session.GroupOptions
		want []shape
	}{
		{"a flood of hits takes one group, the one hit is still found", "zebra", session.GroupOptions{}, []shape{
			{Session: f.flood, TitleMatch: true, Total: 50, Messages: []string{"f49", "f48", "f47"}},
			{Session: f.one, Total: 1, Messages: []string{"r1"}},
		}},
		{"hits per session as asked", "zebra", session.GroupOptions{PerSession: 1}, []shape{
			{Session: f.flood, TitleMatch: true, Total: 50, Messages: []string{"f49"}},
			{Session: f.one, Total: 1, Messages: []string{"r1"}},
		}},
		{"the number of sessions is bounded, newest first", "zebra", session.GroupOptions{Sessions: 1}, []shape{
			{Session: f.flood, TitleMatch: true, Total: 50, Messages: []string{"f49", "f48", "f47"}},
		}},
		{"one session: every hit up to the search limit", "zebra", session.GroupOptions{Session: f.flood}, []shape{
			{Session: f.flood, TitleMatch: true, Total: 50, Messages: func() []string {
				var ids []string
				for i := 49; i >= 0; i-- {
					ids = append(ids, fmt.Sprintf("f%02d", i))
				}
				return ids
			}()},
		}},
		{"one session that does not hold the words", "zebra", session.GroupOptions{Session: f.untouched}, nil},
		{"a title alone makes no group", "crossing", session.GroupOptions{}, nil},
		{"empty query", " ", session.GroupOptions{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			groups, err := f.store.SearchGroups(tt.q, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, shapes(groups)); diff != "" {
				t.Errorf("SearchGroups(%q, %+v) (-want +got):\n%s", tt.q, tt.o, diff)
			}
		})
	}
}

func TestSearchGroupsUnknownSession(t *testing.T) {
	f := newGroupsFixture(t)
	if _, err := f.store.SearchGroups("zebra", session.GroupOptions{Session: "0193c7b2-0000-7000-8000-00000000dead"}); err == nil {
		t.Error("no error for a session that does not exist")
	}
}

// TestSearchGroupsHit: a hit says who wrote it and when, and its excerpt
// is the text as the page shows it: an answer's Markdown without its
// markup, a person's words as typed.
func TestSearchGroupsHit(t *testing.T) {
	f := newGroupsFixture(t)
	groups, err := f.store.SearchGroups("zebra", session.GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 {
		t.Fatalf("got %d groups, want 2", len(groups))
	}
	want := []session.Hit{
		{Session: f.flood, Title: "Zebra flood", Message: "f49", Kind: session.HitMessage,
			From: session.FromAgent, At: searchT0.Add(49 * time.Minute), Excerpt: "Zebra 49 A zebra in code."},
		{Session: f.one, Title: "The real one", Message: "r1", Kind: session.HitMessage,
			From: session.FromPerson, At: searchT0.Add(time.Hour), Excerpt: "where did the **zebra** go?"},
	}
	got := []session.Hit{groups[0].Hits[0], groups[1].Hits[0]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hits (-want +got):\n%s", diff)
	}
	if g := groups[1]; g.Title != "The real one" || !g.UpdatedAt.Equal(searchT0.Add(time.Hour)) {
		t.Errorf("group %q updated %v", g.Title, g.UpdatedAt)
	}
	for _, h := range groups[0].Hits {
		if strings.ContainsAny(h.Excerpt, "#*`") {
			t.Errorf("excerpt %q shows Markdown", h.Excerpt)
		}
	}
}
