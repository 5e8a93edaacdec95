package web_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"myco/session"
	"myco/web"
)

// The queue is listed by the server, on the page and in the queued event
// alike: steers first, marked and without Edit or Cancel; the text as
// text.
func TestQueuedList(t *testing.T) {
	q := []session.Queued{
		{ID: "s1", Text: "prefer the short answer", Steer: true},
		{ID: "q1", Text: "then <b>run</b> the tests"},
	}
	tests := []struct {
		name string
		html string
	}{
		{"page", render(t, web.Composer(web.ComposerView{SessionID: sessionID, Queued: q}))},
		{"event", mustHTML(t, q)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := parseHTML(t, tt.html)
			assertCSPClean(t, d)
			items := byTestID(d, "queued")
			if items.Length() != 2 {
				t.Fatalf("%d items, want 2", items.Length())
			}
			steer, queued := items.Eq(0), items.Eq(1)
			if id, _ := steer.Attr("data-queued-id"); id != "s1" || steer.AttrOr("data-steer", "none") == "none" {
				t.Errorf("first item %q is not the steer, marked", id)
			}
			if steer.Find("[data-queued-action]").Length() != 0 {
				t.Error("a steer can be edited or cancelled")
			}
			if got := queued.Find("[data-queued-text]").Text(); got != "then <b>run</b> the tests" {
				t.Errorf("queued text %q, want it as typed", got)
			}
			var actions []string
			queued.Find("[data-queued-action]").Each(func(_ int, b *goquery.Selection) { actions = append(actions, b.AttrOr("data-queued-action", "")) })
			if strings.Join(actions, ",") != "edit,cancel" {
				t.Errorf("queued actions %v, want edit and cancel", actions)
			}
		})
	}
	empty := parseHTML(t, render(t, web.Composer(web.ComposerView{SessionID: sessionID})))
	if _, hidden := empty.Find("[data-queued-list]").Attr("hidden"); !hidden {
		t.Error("an empty queue's list is shown")
	}
	if html := mustHTML(t, nil); html != "" {
		t.Errorf("an empty queue renders %q", html)
	}
}

func mustHTML(t *testing.T, q []session.Queued) string {
	t.Helper()
	html, err := web.QueuedHTML(q)
	if err != nil {
		t.Fatal(err)
	}
	return html
}
