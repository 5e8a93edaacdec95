package live

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"myco/profiles"
	"myco/server/event"
	"myco/server/webfetch"
	"myco/session"
)

// webSite is a test web server the session's fetcher reaches as
// docs.test and other.test (webfetch.Options' seams); nothing else on
// loopback is reachable, and nothing reaches the internet.
func webSite(t *testing.T, o *Options) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, "http://other.test/landed", http.StatusFound)
		case "/long":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, strings.Repeat("0123456789", 5000))
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<html><head><title>Page %[1]s</title></head><body><h1>Page %[1]s</h1><p>Some <strong>bold</strong> words on %[1]s.</p></body></html>`, r.URL.Path)
		}
	}))
	t.Cleanup(srv.Close)
	addr := netip.MustParseAddrPort(srv.Listener.Addr().String())
	o.WebFetcher = webfetch.New(webfetch.Options{
		Hosts:     map[string]string{"docs.test": addr.String(), "other.test": addr.String(), "intranet.test": "10.0.0.5:80"},
		AllowAddr: func(ap netip.AddrPort) bool { return ap == addr },
	})
	return srv
}

func webCall(url string) string {
	in, _ := json.Marshal(map[string]any{"url": url})
	return "tool:web_fetch " + string(in)
}

// approvals answers every approval the session asks for with decision,
// and gives the tools and inputs asked about once the turn is done.
func approveAll(t *testing.T, e *fileEnv, s *Session, decision string, done <-chan struct{}) []event.ToolApproval {
	t.Helper()
	var asked []event.ToolApproval
	for {
		select {
		case ev := <-e.events.ch:
			if a, ok := ev.data.(event.ToolApproval); ok {
				asked = append(asked, a)
				if err := s.Approve(a.ToolUseID, decision); err != nil {
					t.Fatal(err)
				}
			}
		case <-done:
			for {
				select {
				case ev := <-e.events.ch:
					if a, ok := ev.data.(event.ToolApproval); ok {
						asked = append(asked, a)
					}
				default:
					return asked
				}
			}
		}
	}
}

// A real turn: the model calls web_fetch three times, twice on one host;
// the person allows each host for the session, and is asked once per
// host. The page reaches the model as Markdown; a later turn asks no more.
func TestWebFetchAsksOncePerHost(t *testing.T) {
	e, fake := newGoalEnv(t)
	webSite(t, &e.opts)
	s := e.newSession(t)
	text := "[[steps: " + webCall("http://docs.test/a") + " ;; " + webCall("http://docs.test/b") + " ;; " +
		webCall("http://other.test/c") + " ;; say:read all three]]"
	var res TurnResult
	done := make(chan struct{})
	go func() {
		defer close(done)
		var err error
		if res, err = s.Run(context.Background(), text); err != nil {
			t.Error(err)
		}
	}()
	asked := approveAll(t, e, s, DecisionSession, done)
	if res.Failed() || res.Answer != "read all three" {
		t.Fatalf("turn %+v", res)
	}
	var hosts []string
	for _, a := range asked {
		if a.Tool != "web_fetch" {
			t.Fatalf("approval of %s, want web_fetch", a.Tool)
		}
		var in webFetchInput
		_ = json.Unmarshal(a.Input, &in)
		hosts = append(hosts, in.URL)
	}
	if strings.Join(hosts, " ") != "http://docs.test/a http://other.test/c" {
		t.Fatalf("asked about %q, want docs.test/a then other.test/c only", hosts)
	}
	outs := []string{}
	s.w.View(func(d *session.Document) {
		for _, m := range d.Threads[0].Messages {
			for _, b := range m.Content {
				if b.Type == session.BlockToolResult {
					outs = append(outs, b.ResultText())
					if b.IsError {
						t.Errorf("web_fetch failed: %s", b.ResultText())
					}
				}
			}
		}
	})
	if len(outs) != 3 || !strings.Contains(outs[0], "Title: Page /a") || !strings.Contains(outs[0], "Some **bold** words on /a.") {
		t.Fatalf("outcomes %q: want three pages as Markdown", outs)
	}
	// The page reached the model: its next request carried the outcome.
	reqs := fake.Requests()
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, `Some **bold** words on /c.`) {
		t.Fatalf("the model never read the page: %s", last)
	}

	// A later turn fetches from both hosts without asking.
	done = make(chan struct{})
	go func() {
		defer close(done)
		var err error
		if res, err = s.Run(context.Background(), "[[steps: "+webCall("http://other.test/d")+" ;; say:ok]]"); err != nil {
			t.Error(err)
		}
	}()
	if again := approveAll(t, e, s, DecisionDeny, done); len(again) != 0 || res.Failed() {
		t.Fatalf("asked again %d times (turn %+v)", len(again), res)
	}
}

// Allow once allows that call only; deny is told to the agent; a host in
// settings web_fetch.allowed_hosts is never asked about.
func TestWebFetchOnceDenyAndSettings(t *testing.T) {
	e := newFileEnv(t)
	webSite(t, &e.opts)
	s := e.newSession(t)
	call := func(decision string) (toolOutcome, int) {
		out := make(chan toolOutcome, 1)
		done := make(chan struct{})
		go func() {
			defer close(done)
			out <- run(t, s, "web_fetch", map[string]any{"url": "http://docs.test/x"})
		}()
		n := len(approveAll(t, e, s, decision, done))
		return <-out, n
	}
	out, n := call(DecisionOnce)
	wantOutcome(t, out, false, "Some **bold** words on /x.")
	if n != 1 {
		t.Fatalf("asked %d times, want 1", n)
	}
	out, n = call(DecisionDeny)
	wantOutcome(t, out, true, "The person denied fetching http://docs.test/x")
	if n != 1 {
		t.Fatalf("after allow once, asked %d times, want 1", n)
	}
	withSettings(&e.opts, func(st *profiles.Settings) { st.WebFetch.AllowedHosts = []string{"*.test"} })
	out, n = call(DecisionDeny)
	wantOutcome(t, out, false, "Some **bold** words on /x.")
	if n != 0 {
		t.Fatalf("a host in allowed_hosts: asked %d times, want 0", n)
	}
}

// What is refused without asking, and what a redirect to a host not
// approved, a long page and bad input give the agent.
func TestWebFetchOutcomes(t *testing.T) {
	e := newFileEnv(t, func(o *Options) {
		withSettings(o, func(st *profiles.Settings) { st.WebFetch.AllowedHosts = []string{"docs.test", "intranet.test"} })
	})
	webSite(t, &e.opts)
	s := e.newSession(t)
	tests := []struct {
		name    string
		input   map[string]any
		isError bool
		has     []string
	}{
		{"loopback", map[string]any{"url": "http://127.0.0.1:1/"}, true, []string{"127.0.0.1 is a loopback address"}},
		{"ipv6 loopback", map[string]any{"url": "http://[::1]/"}, true, []string{"::1 is a loopback address"}},
		{"private", map[string]any{"url": "http://192.168.1.1/"}, true, []string{"a private address"}},
		{"metadata", map[string]any{"url": "http://169.254.169.254/latest/"}, true, []string{"link-local"}},
		{"a name resolving to a private address", map[string]any{"url": "http://intranet.test/"}, true,
			[]string{"Not fetched: http://intranet.test/: web_fetch does not connect to local, private or special addresses: 10.0.0.5 is a private address."}},
		{"scheme", map[string]any{"url": "file:///etc/passwd"}, true, []string{"only http and https"}},
		{"no url", map[string]any{}, true, []string{`web_fetch needs {"url"`}},
		{"misnamed field", map[string]any{"uri": "http://docs.test/"}, true, []string{`unknown field "uri"`}},
		{"bad max_chars", map[string]any{"url": "http://docs.test/", "max_chars": 1_000_000}, true, []string{"max_chars 1 to 100000"}},
		{"redirect to an unapproved host", map[string]any{"url": "http://docs.test/away"}, true,
			[]string{"Not followed: http://docs.test/away redirects to http://other.test/landed, on other.test", "the person is asked"}},
		{"long page cut", map[string]any{"url": "http://docs.test/long", "max_chars": 100}, false,
			[]string{"Characters 0 to 100 of 50000", "[Cut at character 100 of 50000. For more, call web_fetch with {\"offset\":100,\"url\":\"http://docs.test/long\"}"}},
		{"read on", map[string]any{"url": "http://docs.test/long", "offset": 49990}, false,
			[]string{"Characters 49990 to 50000 of 50000\n\n0123456789"}},
		{"past the end", map[string]any{"url": "http://docs.test/long", "offset": 60000}, false,
			[]string{"offset 60000 is past the end"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantOutcome(t, run(t, s, "web_fetch", tt.input), tt.isError, tt.has...)
		})
	}
	for len(e.events.ch) > 0 {
		if ev := <-e.events.ch; ev.name == "tool.approval" {
			t.Fatalf("asked for approval: %+v", ev.data)
		}
	}
}

// Plan mode allows web_fetch (it only reads), and a sub-agent starts
// with the hosts its parent was allowed for the session.
func TestWebFetchInPlanModeAndSubagents(t *testing.T) {
	e, _ := newSubagentEnv(t, profiles.Subagents{MaxDepth: 2, MaxRunning: 4})
	webSite(t, &e.opts)
	s := e.newSession(t)
	if _, err := s.SetMode(ModePlan); err != nil {
		t.Fatal(err)
	}
	if out, refused := s.planRefusal(toolUse("web_fetch", map[string]any{"url": "http://docs.test/"})); refused {
		t.Fatalf("plan mode refuses web_fetch: %s", out.output)
	}
	// The sub-agent's answer quotes its call's outcome (fakellm).
	sub := taskCall(t, "read", "⟦"+webCall("http://docs.test/sub")+"⟧", false)
	text := "[[steps: " + webCall("http://docs.test/first") + " ;; " + strings.TrimSuffix(strings.TrimPrefix(sub, "[["), "]]") + " ;; say:done]]"
	var res TurnResult
	done := make(chan struct{})
	go func() {
		defer close(done)
		var err error
		if res, err = s.Run(context.Background(), text); err != nil {
			t.Error(err)
		}
	}()
	asked := approveAll(t, e, s, DecisionSession, done)
	if res.Failed() {
		t.Fatalf("turn %+v", res)
	}
	if len(asked) != 1 {
		t.Fatalf("asked %d times, want once: the sub-agent inherits docs.test", len(asked))
	}
	found := false
	for _, b := range results(s) {
		if b.IsError {
			t.Fatalf("a call failed: %s", b.ResultText())
		}
		found = found || strings.Contains(b.ResultText(), "Tool result: URL: http://docs.test/sub")
	}
	if !found {
		t.Fatal("the sub-agent's answer is not among the outcomes")
	}
}
