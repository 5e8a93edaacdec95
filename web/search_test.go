package web_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"myco/session"
	"myco/web"
)

var searchAt = time.Date(2026, 12, 1, 20, 8, 0, 0, time.UTC)

// searchGroups is a flood (fifty hits, three shown) and a session with one.
func searchGroups() []session.Group {
	hit := func(id, msg, from, excerpt string) session.Hit {
		return session.Hit{Session: id, Title: "t", Message: msg, Kind: session.HitMessage, From: from, At: searchAt, Excerpt: excerpt}
	}
	flood := "0193c7b2-0000-7000-8000-0000000000f1"
	one := "0193c7b2-0000-7000-8000-0000000000f2"
	return []session.Group{
		{Session: flood, Title: "Zebra flood", UpdatedAt: searchAt, TitleMatch: true, Total: 50, Hits: []session.Hit{
			hit(flood, "f49", session.FromAgent, "Zebra 49 A zebra in code."),
			hit(flood, "f48", session.FromTool, "ok zebra"),
			{Session: flood, Kind: session.HitScratchpad, Excerpt: "a zebra note"},
		}},
		{Session: one, Title: "The real one", UpdatedAt: searchAt, Total: 1, Hits: []session.Hit{
			hit(one, "r1", session.FromPerson, "where did the zebra go?"),
		}},
	}
}

func TestNewSearchView(t *testing.T) {
	v := web.NewSearchView("zebra", searchGroups())
	type row struct {
		Title, URL, MoreURL string
		More                int
		Who, Where, HitURLs []string
	}
	var got []row
	for _, g := range v.Groups {
		r := row{Title: g.Title, URL: g.URL, MoreURL: g.MoreURL, More: g.More}
		for _, h := range g.Hits {
			r.Who, r.Where, r.HitURLs = append(r.Who, h.Who), append(r.Where, h.Where), append(r.HitURLs, h.URL)
		}
		got = append(got, r)
	}
	want := []row{
		{
			Title: "Zebra flood", URL: "/s/0193c7b2-0000-7000-8000-0000000000f1",
			MoreURL: "/partials/search?q=zebra&session=0193c7b2-0000-7000-8000-0000000000f1", More: 47,
			Who: []string{"Agent", "Tool results", ""}, Where: []string{"", "", "scratchpad"},
			HitURLs: []string{
				"/s/0193c7b2-0000-7000-8000-0000000000f1#m-f49",
				"/s/0193c7b2-0000-7000-8000-0000000000f1#m-f48",
				"/s/0193c7b2-0000-7000-8000-0000000000f1",
			},
		},
		{
			Title: "The real one", URL: "/s/0193c7b2-0000-7000-8000-0000000000f2",
			MoreURL: "/partials/search?q=zebra&session=0193c7b2-0000-7000-8000-0000000000f2",
			Who:     []string{"You"}, Where: []string{""},
			HitURLs: []string{"/s/0193c7b2-0000-7000-8000-0000000000f2#m-r1"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("view (-want +got):\n%s", diff)
	}
	if g := web.NewHitGroupView("zebra", searchGroups()[0], true); g.MoreURL != "" {
		t.Errorf("an expanded group asks again: %q", g.MoreURL)
	}
}

func TestSearchHitsGolden(t *testing.T) {
	html := render(t, web.SearchHits(web.NewSearchView("zebra", searchGroups())))
	golden(t, "search", html)
	d := parseHTML(t, html)
	assertCSPClean(t, d)
	if n := byTestID(d, "search-group").Length(); n != 2 {
		t.Errorf("%d groups, want 2", n)
	}
	more := byTestID(d, "search-more")
	if more.Length() != 1 || more.Text() != "47 more in this session" {
		t.Errorf("more: %d, %q", more.Length(), more.Text())
	}
	first := byTestID(d, "search-hit").First()
	if who, when := first.Find(`[data-testid="hit-who"]`).Text(), first.Find("time").AttrOr("datetime", ""); who != "Agent" || when != "2026-12-01T20:08:00Z" {
		t.Errorf("first hit by %q at %q", who, when)
	}
	if marks := first.Find("mark").Length(); marks != 2 {
		t.Errorf("%d marks in %q, want 2", marks, first.Text())
	}
}

func TestSearchGroupExpanded(t *testing.T) {
	html := render(t, web.SearchGroup(web.NewHitGroupView("zebra", searchGroups()[0], true)))
	d := parseHTML(t, html)
	more := byTestID(d, "search-more")
	if href, _ := more.Attr("href"); !more.Is("a") || href != "/s/0193c7b2-0000-7000-8000-0000000000f1" {
		t.Errorf("an expanded group's more is not a link to the session: %s", html)
	}
}
