package server_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// compactedDoc is a session compacted once: thread 0 ends with c1 and c2,
// which thread 1 carries first, followed by own messages of its own.
func compactedDoc(id string, own int) string {
	msg := func(mid, role, text string) string {
		human := ""
		if role == "user" {
			human = `"human": true, `
		}
		return fmt.Sprintf(`{"id": %q, "role": %q, %s"at": "2026-11-02T10:00:00Z", "content": [{"type": "text", "text": %q}]}`, mid, role, human, text)
	}
	first := []string{msg("c0", "user", "first"), msg("c1", "assistant", "carried one"), msg("c2", "user", "carried two")}
	second := []string{msg("c1", "assistant", "carried one"), msg("c2", "user", "carried two")}
	for i := range own {
		role := "assistant"
		if i%2 == 1 {
			role = "user"
		}
		second = append(second, msg(fmt.Sprintf("o%03d", i), role, fmt.Sprintf("own %d", i)))
	}
	return fmt.Sprintf(`{"schema": 1, "id": %q, "title": "Compacted", "created_at": "2026-11-02T10:00:00Z", "updated_at": "2026-11-02T10:00:00Z",
 "threads": [
  {"created_at": "2026-11-02T10:00:00Z", "messages": [%s]},
  {"created_at": "2026-11-02T10:10:00Z", "compacted_from": 0, "summary": "So far.", "carried": 2, "messages": [%s]}
 ]}`, id, strings.Join(first, ",\n"), strings.Join(second, ",\n"))
}

// TestLoadEarlierStopsAtCarried checks that "Load earlier" in the latest
// thread never loads the messages carried into it: the earlier thread
// shows them.
func TestLoadEarlierStopsAtCarried(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	const id = "0193c7b2-0000-7000-8000-0000000000cc"
	const own = 150
	if err := os.WriteFile(filepath.Join(ts.dir, "session", id+".json"), []byte(compactedDoc(id, own)), 0o600); err != nil {
		t.Fatal(err)
	}
	// The page shows the last 30 (web.PageRecentLimit) of the thread's
	// 152 and offers the rest, 100 at a time.
	page := parseDoc(t, ts.do("GET", "/s/"+id, nil))
	url, ok := page.Find(`#messages [data-action="load-earlier"]`).Attr("data-url")
	if !ok {
		t.Fatal("the page offers no Load earlier")
	}
	tests := []struct {
		name          string
		path          string
		wantFirst     string // the first message loaded, "" for none
		wantCount     int
		wantLoadsMore bool
	}{
		{name: "the page's Load earlier", path: url, wantFirst: "o020", wantCount: 100, wantLoadsMore: true},
		{name: "the next Load earlier", path: "/s/" + id + "/messages?thread=1&before=22", wantFirst: "o000", wantCount: 20},
		{name: "before the first own message", path: "/s/" + id + "/messages?thread=1&before=2"},
		{name: "the last messages", path: "/s/" + id + "/messages?thread=1&before=-1", wantFirst: "o050", wantCount: 100, wantLoadsMore: true},
		{name: "an earlier thread keeps them", path: "/s/" + id + "/messages?thread=0&before=-1", wantFirst: "c0", wantCount: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := ts.do("GET", tt.path, nil)
			wantStatus(t, resp, http.StatusOK)
			d := parseDoc(t, resp)
			msgs := d.Find(`[data-testid="message"]`)
			var ids []string
			msgs.Each(func(_ int, s *goquery.Selection) { ids = append(ids, s.AttrOr("data-message-id", "")) })
			if len(ids) != tt.wantCount {
				t.Fatalf("loaded %d messages (%v), want %d", len(ids), ids, tt.wantCount)
			}
			if tt.wantCount > 0 && ids[0] != tt.wantFirst {
				t.Errorf("first loaded %s, want %s", ids[0], tt.wantFirst)
			}
			if strings.HasPrefix(tt.path, "/s/"+id+"/messages?thread=1") || tt.path == url {
				for _, mid := range ids {
					if mid == "c1" || mid == "c2" {
						t.Errorf("the latest thread loaded carried message %s again", mid)
					}
				}
			}
			if got := d.Find(`[data-action="load-earlier"]`).Length() > 0; got != tt.wantLoadsMore {
				t.Errorf("offers Load earlier: %v, want %v", got, tt.wantLoadsMore)
			}
		})
	}
}
