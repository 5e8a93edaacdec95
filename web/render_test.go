package web_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"myco/session"
	"myco/static"
	"myco/web"
)

var update = flag.Bool("update", false, "rewrite golden files")

func render(t *testing.T, c templ.Component) string {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// golden compares html with testdata/name.golden.html. Tags are put on
// their own lines first so a change shows as a readable diff, and the
// assets' version (static.Version, which any change to static/ moves)
// reads VERSION.
func golden(t *testing.T, name, html string) {
	t.Helper()
	html = strings.ReplaceAll(html, "/static/"+static.Version()+"/", "/static/VERSION/")
	got := []byte(strings.ReplaceAll(html, "><", ">\n<") + "\n")
	path := filepath.Join("testdata", name+".golden.html")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./web -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the render; if the change is intended, run go test ./web -update and review the diff", path)
	}
}

func loadDoc(t *testing.T) *session.Document {
	t.Helper()
	const path = "testdata/session.json"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := session.Decode(b, path, "")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func homeView() web.HomeView {
	now := time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)
	return web.HomeView{
		Query:   "flaky",
		Page:    1,
		HasMore: true,
		Profile: "work",
		Now:     now,
		Rows: []web.SessionRow{
			{ID: "0193c7b2-6c1e-7c4a-9a0e-3f5b2d1e8a90", Title: "Fix the flaky test", Model: "anthropic/claude-sonnet-4-5", UpdatedAt: now.Add(-3 * time.Hour), Messages: 9,
				Usage: web.UsageView{Input: 1200, Output: 340, CacheRead: 48000, CacheWrite: 2100, USD: 0.0298, Models: []string{"anthropic/claude-sonnet-4-5"}}},
			{ID: "0193c7b2-0000-7000-8000-000000000001", Title: "Untitled", UpdatedAt: now.Add(-30 * time.Second), Messages: 1},
			{ID: "0193c7b2-0000-7000-8000-000000000002", Damaged: "invalid character '}' at byte 12"},
		},
	}
}

func sessionView(t *testing.T) web.SessionView {
	t.Helper()
	return web.NewSessionView(loadDoc(t), web.SessionViewOptions{
		Sidecars:    map[string]string{"readline": "go test ./...\ngit status", "console": "$ make\nok"},
		RecentLimit: 4,
		Profile:     "work",
		Price:       testPricer(),
	})
}

// assertCSPClean fails on anything the page's CSP would block or that
// would run script: inline script or style, handlers, style attributes.
func assertCSPClean(t *testing.T, d *goquery.Document) {
	t.Helper()
	if n := d.Find("style").Length(); n > 0 {
		t.Errorf("%d inline <style> elements", n)
	}
	// The one inline script the CSP allows, by its hash.
	d.Find("script:not([src])").Each(func(_ int, s *goquery.Selection) {
		sum := sha256.Sum256([]byte(s.Text()))
		if h := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(web.InlineScriptHashes, h) {
			t.Errorf("inline <script> %q: its hash %s is not in the CSP's %s", s.Text(), h, web.InlineScriptHashes)
		}
	})
	d.Find("*").Each(func(_ int, s *goquery.Selection) {
		for _, a := range s.Nodes[0].Attr {
			if a.Key == "style" || strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s %s=%q>", goquery.NodeName(s), a.Key, a.Val)
			}
		}
	})
}

func byTestID(d *goquery.Document, id string) *goquery.Selection {
	return d.Find(`[data-testid="` + id + `"]`)
}

func TestHomePageGolden(t *testing.T) {
	html := render(t, web.HomePage(homeView()))
	golden(t, "home", html)
	d := parseHTML(t, html)
	assertCSPClean(t, d)

	if n := byTestID(d, "session-row").Length(); n != 2 {
		t.Errorf("%d session rows, want 2", n)
	}
	link := byTestID(d, "session-link").First()
	if href, _ := link.Attr("href"); href != "/s/0193c7b2-6c1e-7c4a-9a0e-3f5b2d1e8a90" {
		t.Errorf("link href %q", href)
	}
	// A plain link: a click stays in the tab, Ctrl-click opens a new one.
	if target, ok := link.Attr("target"); ok {
		t.Errorf("link target %q, want none", target)
	}
	if url, _ := byTestID(d, "archive-button").First().Attr("data-url"); url != "/api/sessions/0193c7b2-6c1e-7c4a-9a0e-3f5b2d1e8a90/archive" {
		t.Errorf("archive data-url %q", url)
	}
	if n := byTestID(d, "restore-button").Length(); n != 0 {
		t.Errorf("%d restore buttons on the home page", n)
	}
	damaged := byTestID(d, "damaged-row")
	if damaged.Length() != 1 || damaged.Find("button").Length() != 0 || !strings.Contains(damaged.Text(), "at byte 12") {
		t.Errorf("damaged row %q: want one, with its reason and no buttons", damaged.Text())
	}
	search := byTestID(d, "search-input")
	if v, _ := search.Attr("value"); v != "flaky" {
		t.Errorf("search value %q, want the query", v)
	}
	if _, ok := search.Attr("autofocus"); !ok {
		t.Error("search input is not autofocused")
	}
	if id, _ := search.Attr("id"); d.Find(`label[for="`+id+`"]`).Length() != 1 {
		t.Error("search input has no label")
	}
	if url, _ := byTestID(d, "load-more").Attr("data-url"); url != "/partials/sessions?page=2&q=flaky" {
		t.Errorf("load-more data-url %q", url)
	}
	when := d.Find(`[data-testid="session-row"] time`).First()
	if when.Text() != "3 hours ago" {
		t.Errorf("relative time %q, want 3 hours ago", when.Text())
	}
	if title, _ := when.Attr("title"); title != "2026-11-29 18:00 UTC" {
		t.Errorf("time title %q, want the absolute time", title)
	}
	if page, _ := d.Find("body").Attr("data-page"); page != "home" {
		t.Errorf("body data-page %q, want home", page)
	}
}

func TestArchivedRows(t *testing.T) {
	v := homeView()
	v.Archived, v.HasMore = true, false
	d := parseHTML(t, render(t, web.HomePage(v)))
	if n := byTestID(d, "restore-button").Length(); n != 2 {
		t.Errorf("%d restore buttons, want 2", n)
	}
	if n := byTestID(d, "archive-button").Length(); n != 0 {
		t.Errorf("%d archive buttons on the archived page", n)
	}
	if n := byTestID(d, "load-more").Length(); n != 0 {
		t.Errorf("load-more shown without more rows")
	}
	if page, _ := d.Find("body").Attr("data-page"); page != "archived" {
		t.Errorf("body data-page %q, want archived", page)
	}
}

func TestSessionRowsFragment(t *testing.T) {
	v := web.HomeView{Query: "nothing", Page: 1}
	html := render(t, web.SessionRows(v))
	if strings.Contains(html, "<html") || strings.Contains(html, "<body") {
		t.Errorf("fragment has a document around it: %q", html)
	}
	if !strings.Contains(html, `data-testid="empty-list"`) || !strings.Contains(html, "“nothing”") {
		t.Errorf("empty result without a message: %q", html)
	}
	v.Page = 2
	if html := render(t, web.SessionRows(v)); html != "" {
		t.Errorf("an empty later page renders %q, want nothing", html)
	}
}

func TestSessionPageGolden(t *testing.T) {
	html := render(t, web.SessionPage(sessionView(t)))
	golden(t, "session", html)
	d := parseHTML(t, html)
	assertCSPClean(t, d)

	if got := byTestID(d, "session-title").Text(); got != "Fix the flaky test" {
		t.Errorf("h1 %q", got)
	}
	if got := d.Find("title").Text(); got != "Fix the flaky test" {
		t.Errorf("<title> %q", got)
	}
	body := d.Find("body")
	for attr, want := range map[string]string{
		"data-page":       "session",
		"data-session-id": "0193c7b2-6c1e-7c4a-9a0e-3f5b2d1e8a90",
		"data-archived":   "false",
		"data-events":     "/api/sessions/0193c7b2-6c1e-7c4a-9a0e-3f5b2d1e8a90/events",
	} {
		if got, _ := body.Attr(attr); got != want {
			t.Errorf("body %s=%q, want %q", attr, got, want)
		}
	}
	counts := map[string]int{
		"thread": 1, "earlier-thread": 1, "thread-boundary": 1, "sidecar": 2,
		"links-panel": 1, "scratchpad": 1, "composer": 1, "load-earlier": 1,
		"locked-banner": 0, "archived-banner": 0,
		// The latest thread's last four messages: 0006 folds into 0005.
		"message": 4, "tool-call": 2, "tool-result": 2, "stop-marker": 1,
		// The composer and what the chat script fills.
		"composer-input": 1, "send-button": 1, "image-button": 1, "image-input": 1,
		"turn-status": 1, "command-help": 1, "provider-help": 1, "session-usage": 1,
		"attachment": 0, "approval": 0, "queued": 0, "turn-error": 0,
		// The turn of msg_0004 to msg_0007, rendered from the document;
		// the interrupted one after it reported no usage.
		"turn-usage": 1, "session-cost": 1, "session-hit": 1,
	}
	for id, want := range counts {
		if got := byTestID(d, id).Length(); got != want {
			t.Errorf("%d × %s, want %d", got, id, want)
		}
	}
	// Messages before the window stay on the server.
	if d.Find(`[data-message-id="msg_0004"]`).Length() != 0 {
		t.Error("msg_0004 is before the window but rendered")
	}
	earlier := byTestID(d, "load-earlier")
	if url, _ := earlier.Attr("data-url"); url != "/s/0193c7b2-6c1e-7c4a-9a0e-3f5b2d1e8a90/messages?before=1&thread=1" {
		t.Errorf("load-earlier data-url %q", url)
	}
	// A call and its outcome display together.
	call := d.Find(`[data-testid="tool-call"][data-tool-use-id="toolu_02B"]`)
	if got := call.Find(`[data-testid="tool-result"] pre`).Text(); got != "8080 (pid 4242)" {
		t.Errorf("result inside the call = %q", got)
	}
	// The earlier thread is collapsed behind its summary.
	thread := byTestID(d, "earlier-thread")
	if thread.Find("details[open]").Length() != 0 || byTestID(d, "earlier-thread").Find(`[data-testid="message"]`).Length() != 0 {
		t.Error("earlier thread is not collapsed and empty")
	}
	if got := thread.Find(".thread-summary strong").Text(); got != "fixed" {
		t.Errorf("summary markdown not rendered: %q", got)
	}
	if url, _ := thread.Find("details").Attr("data-url"); url != "/s/0193c7b2-6c1e-7c4a-9a0e-3f5b2d1e8a90/messages?before=3&thread=0" {
		t.Errorf("earlier thread data-url %q", url)
	}
	// A javascript: link is shown, as text.
	if d.Find(`[data-testid="links-panel"] a[href^="javascript"]`).Length() != 0 {
		t.Error("javascript: link in the links panel")
	}
	if got := d.Find(`[data-testid="links-panel"] .inert`).Text(); !strings.Contains(got, "javascript:alert(1)") {
		t.Errorf("inert link shown as %q, want its URL as text", got)
	}
	if got := byTestID(d, "scratchpad").Text(); !strings.Contains(got, "<b>not bold</b>") {
		t.Errorf("scratchpad %q, want its text as typed", got)
	}
}

func TestSessionPageLegacyImageAndHumanText(t *testing.T) {
	v := web.NewSessionView(loadDoc(t), web.SessionViewOptions{})
	d := parseHTML(t, render(t, web.SessionPage(v)))
	src, _ := d.Find(`[data-message-id="msg_0004"] img`).Attr("src")
	if src != "/s/0193c7b2-6c1e-7c4a-9a0e-3f5b2d1e8a90/inline/msg_0004/1" {
		t.Errorf("legacy image src %q", src)
	}
	msg := d.Find(`[data-message-id="msg_0008"]`)
	if msg.Find("script").Length() != 0 || !strings.Contains(msg.Text(), "<script>alert(1)</script>") {
		t.Errorf("a person's text must show as typed, inert: %q", msg.Text())
	}
	if dt, _ := msg.Find("time").Attr("datetime"); dt != "2026-11-29T18:50:00Z" {
		t.Errorf("human turn time datetime %q", dt)
	}
}

func TestSessionPageArchived(t *testing.T) {
	v := sessionView(t)
	v.Archived = true
	d := parseHTML(t, render(t, web.SessionPage(v)))
	banner := byTestID(d, "archived-banner")
	if banner.Length() != 1 || banner.Find(`[data-testid="restore-button"][data-reload]`).Length() != 1 {
		t.Error("archived page without a banner holding a reloading Restore button")
	}
	if byTestID(d, "composer").Length() != 0 || d.Find("#composer").Length() != 0 {
		t.Error("archived page has a composer")
	}
	assertNoComposerParts(t, d)
	body := d.Find("body")
	if a, _ := body.Attr("data-archived"); a != "true" {
		t.Errorf("data-archived %q, want true", a)
	}
	if _, ok := body.Attr("data-events"); ok {
		t.Error("archived page follows the event stream")
	}
}

func TestSessionPageLocked(t *testing.T) {
	v := sessionView(t)
	v.LockedBy = &web.LockInfo{PID: 4242, URL: "http://127.0.0.1:40000/s/0193c7b2-6c1e-7c4a-9a0e-3f5b2d1e8a90"}
	d := parseHTML(t, render(t, web.SessionPage(v)))
	banner := byTestID(d, "locked-banner")
	if !strings.Contains(banner.Text(), "Open in process 4242") {
		t.Errorf("locked banner %q", banner.Text())
	}
	a := banner.Find("a")
	if href, _ := a.Attr("href"); href != v.LockedBy.URL {
		t.Errorf("locked banner link %q", href)
	}
	if rel, _ := a.Attr("rel"); !strings.Contains(rel, "noopener") {
		t.Errorf("locked banner link rel %q", rel)
	}
	if d.Find("#composer").Length() != 0 {
		t.Error("locked page has a composer")
	}
	assertNoComposerParts(t, d)
}

// assertNoComposerParts checks that a read-only page offers no way to
// write, while it still shows the session's usage.
func assertNoComposerParts(t *testing.T, d *goquery.Document) {
	t.Helper()
	for _, id := range []string{"composer-input", "send-button", "image-button", "image-input", "turn-status", "command-help"} {
		if n := byTestID(d, id).Length(); n != 0 {
			t.Errorf("read-only page has %d × %s", n, id)
		}
	}
	if d.Find("textarea, [data-composer]").Length() != 0 {
		t.Error("read-only page has a textarea or a composer root")
	}
	if byTestID(d, "session-usage").Length() != 1 {
		t.Error("read-only page without the session's usage")
	}
}

func TestMessagesFragmentRender(t *testing.T) {
	f, err := web.MessagesFragment(loadDoc(t), 0, 3, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	html := render(t, web.Messages(f))
	d := parseHTML(t, html)
	if byTestID(d, "load-earlier").Length() != 0 {
		t.Error("load-earlier shown at the start of a thread")
	}
	// msg_0003 holds only the result of msg_0002's call.
	if n := byTestID(d, "message").Length(); n != 2 {
		t.Errorf("%d messages, want 2", n)
	}
	result := d.Find(`[data-testid="tool-call"] [data-testid="tool-result"]`)
	if e, _ := result.Attr("data-is-error"); e != "true" || !result.HasClass("error") {
		t.Errorf("failed result not marked: %q", e)
	}
	if got := result.Find(".duration").Text(); got != "26.4 s" {
		t.Errorf("duration %q, want 26.4 s", got)
	}
}

// A retried answer's failed predecessor stays on the page, folded behind a
// summary that says why; the person's message and the new answer show as
// usual, and a call cut short says so.
func TestReplacedAnswerFolded(t *testing.T) {
	failed := agent("a1", "Half an answer")
	failed.StopReason, failed.ReplacedBy = session.StopError, "a2"
	call := toolUse("a3", "toolu_1", "bash", `{"command":"sleep 9"}`)
	cut := toolResult("r1", "toolu_1", `"started"`, false, 1500)
	cut.Content[0].Interrupted = true
	d := doc(session.Thread{Messages: []session.Message{
		human("h1", "Explain it"), failed, agent("a2", "The whole answer"), call, cut,
	}})
	f, err := web.MessagesFragment(d, 0, -1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	html := render(t, web.Messages(f))
	golden(t, "replaced", html)
	q := parseHTML(t, html)

	folded := byTestID(q, "replaced-answer")
	if folded.Length() != 1 || !folded.Is("details") {
		t.Fatalf("%d replaced answers, want one <details>", folded.Length())
	}
	if _, open := folded.Attr("open"); open {
		t.Error("the replaced answer is open; want it folded")
	}
	if got := folded.ChildrenFiltered("summary").Text(); got != "Earlier answer, replaced by a retry" {
		t.Errorf("summary %q", got)
	}
	if by, _ := folded.Attr("data-replaced-by"); by != "a2" {
		t.Errorf("data-replaced-by %q, want a2", by)
	}
	if id, _ := folded.Find(`[data-testid="message"]`).Attr("data-message-id"); id != "a1" {
		t.Errorf("folded message %q, want a1", id)
	}
	if !strings.Contains(folded.Text(), "Half an answer") {
		t.Errorf("folded answer lost its text: %q", folded.Text())
	}
	for _, id := range []string{"h1", "a2", "a3"} {
		m := q.Find(`[data-message-id="` + id + `"]`)
		if m.Length() != 1 || m.ParentsFiltered("details.replaced").Length() != 0 {
			t.Errorf("message %s: want it shown once, unfolded", id)
		}
	}
	result := byTestID(q, "tool-result")
	if v, _ := result.Attr("data-interrupted"); v != "true" || result.Find(".status").Text() != "interrupted" {
		t.Errorf("a call cut short shows data-interrupted=%q status %q", v, result.Find(".status").Text())
	}
}

func TestErrorPage(t *testing.T) {
	d := parseHTML(t, render(t, web.ErrorPage(404, "No session 1234.")))
	if got := d.Find("h1").Text(); got != "404 Not Found" {
		t.Errorf("h1 %q", got)
	}
	if !strings.Contains(d.Find("main").Text(), "No session 1234.") {
		t.Error("message not shown")
	}
}
