package server_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"myco/server"
	"myco/web"
)

// TestSessionFragment checks that a session page's address answers the
// session's fragment alone when asked (static/swap.js swaps it in), with
// what the page's <body> and <title> say of the session, and the page
// otherwise; a cache keeps the two apart by the header.
func TestSessionFragment(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	const live, gone = "0193c7b2-0000-7000-8000-0000000000d1", "0193c7b2-0000-7000-8000-0000000000d2"
	for _, id := range []string{live, gone} {
		if err := os.WriteFile(filepath.Join(ts.dir, "session", id+".json"), []byte(compactedDoc(id, 150)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if resp := ts.do("POST", "/api/sessions/"+gone+"/archive", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("archive: %s", resp.Status)
	}
	tests := []struct {
		name         string
		id           string
		fragment     bool
		wantStatus   int
		wantSidebar  bool
		wantArchived string // data-archived of the fragment's root
		wantEvents   bool   // the fragment names the session's stream
	}{
		{name: "the page", id: live, wantStatus: http.StatusOK, wantSidebar: true},
		{name: "the fragment", id: live, fragment: true, wantStatus: http.StatusOK, wantArchived: "false", wantEvents: true},
		{name: "an archived session's fragment", id: gone, fragment: true, wantStatus: http.StatusOK, wantArchived: "true"},
		{name: "no such session", id: "0193c7b2-0000-7000-8000-0000000000ff", fragment: true, wantStatus: http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hdr []string
			if tt.fragment {
				hdr = []string{server.FragmentHeader, "1"}
			}
			resp := ts.do("GET", "/s/"+tt.id, nil, hdr...)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if tt.wantStatus != http.StatusOK {
				return
			}
			if v := resp.Header.Values("Vary"); !containsFold(v, server.FragmentHeader) {
				t.Errorf("Vary %q lacks %s", v, server.FragmentHeader)
			}
			if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", cc)
			}
			d := parseDoc(t, resp)
			if got := d.Find("#sidebar").Length() == 1; got != tt.wantSidebar {
				t.Errorf("sidebar shown %v, want %v", got, tt.wantSidebar)
			}
			// Both show the session's newest messages, the same way.
			if n := d.Find(`#messages [data-testid="message"]`).Length(); n != web.PageRecentLimit {
				t.Errorf("%d messages shown, want %d", n, web.PageRecentLimit)
			}
			if d.Find(`#messages [data-action="load-earlier"]`).Length() != 1 {
				t.Error("no Load earlier for the older messages")
			}
			if !tt.fragment {
				if d.Find("[data-session-fragment]").Length() != 0 {
					t.Error("the page holds a fragment's root")
				}
				return
			}
			if d.Find("header.site, title, script").Length() != 0 {
				t.Error("the fragment holds more than the session's part")
			}
			root := d.Find("body > .session[data-session-fragment]")
			if root.Length() != 1 {
				t.Fatal("no fragment root")
			}
			wantAttr(t, root, "data-session-id", tt.id)
			wantAttr(t, root, "data-title", "Compacted")
			wantAttr(t, root, "data-archived", tt.wantArchived)
			events, ok := root.Attr("data-events")
			if ok != tt.wantEvents || (ok && events != "/api/sessions/"+tt.id+"/events") {
				t.Errorf("data-events %q (%v), want one: %v", events, ok, tt.wantEvents)
			}
			if _, ok := root.Attr("data-events-seq"); ok != tt.wantEvents {
				t.Errorf("data-events-seq present %v, want %v", ok, tt.wantEvents)
			}
		})
	}
}

func wantAttr(t *testing.T, s *goquery.Selection, name, want string) {
	t.Helper()
	if got, _ := s.Attr(name); got != want {
		t.Errorf("%s %q, want %q", name, got, want)
	}
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		for _, part := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), s) {
				return true
			}
		}
	}
	return false
}
