package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"myco/e2e/fakellm"
	"myco/profiles"
	"myco/session"
)

// runCLI is a cli whose default profile speaks to the fake model: the
// model is the only thing faked; the server, its stores and the HTTP
// between them are myco's own.
type runCLI struct {
	*cli
	fake *fakellm.Server
}

// newRunCLI makes the profile (settings, a stored key) and moves the test
// into a folder of its own: the sessions a run creates work there.
func newRunCLI(t *testing.T, settings map[string]any) *runCLI {
	t.Helper()
	c := &runCLI{cli: newCLI(t), fake: fakellm.Start(t)}
	p, err := profiles.Open(c.home, profiles.DefaultName)
	if err != nil {
		t.Fatal(err)
	}
	s := map[string]any{
		"default_model": "anthropic/fake-model",
		"title_model":   "anthropic/fake-title",
		"providers":     map[string]any{"anthropic": map[string]any{"base_url": c.fake.URL}},
		"undo":          false,
	}
	for k, v := range settings {
		s[k] = v
	}
	data, _ := json.Marshal(s)
	if err := os.WriteFile(p.SettingsPath(), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := profiles.SaveKey(p.Dir, "anthropic", "sk-test"); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	return c
}

// myco runs the program with args, stdin from in, until it returns.
func (c *runCLI) myco(ctx context.Context, in string, args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	var out, errOut syncBuffer
	getenv := func(k string) string {
		if k == "MYCO_HOME" {
			return c.home
		}
		return ""
	}
	err := run(ctx, args, getenv, strings.NewReader(in), &out, &errOut)
	code = exitCode(err, &errOut)
	return out.String(), errOut.String(), code
}

// runOK is a `myco run` that must succeed.
func (c *runCLI) runOK(args ...string) (stdout, stderr string) {
	c.t.Helper()
	out, errOut, code := c.myco(context.Background(), "", append([]string{"run"}, args...)...)
	if code != 0 {
		c.t.Fatalf("myco run %q: exit %d\nstdout %q\nstderr %q", args, code, out, errOut)
	}
	return out, errOut
}

// assertNoServer checks that nothing of a server is left: no server.json,
// and the profile's lock is free.
func (c *runCLI) assertNoServer() {
	c.t.Helper()
	p, err := profiles.Lookup(c.home, profiles.DefaultName)
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := os.Stat(p.ServerPath()); !os.IsNotExist(err) {
		c.t.Errorf("server.json left after the run: %v", err)
	}
	lock := profileLock(p)
	locked, err := lock.TryLock()
	if err != nil || !locked {
		c.t.Errorf("the profile's lock is still held after the run (%v)", err)
	}
	lock.Unlock()
}

// load reads the session which (an ID, a name, @last) means.
func (c *runCLI) load(which string) *session.Document {
	c.t.Helper()
	st := c.store("default")
	id, err := st.Resolve(which)
	if err != nil {
		c.t.Fatalf("resolve %s: %v", which, err)
	}
	doc, err := st.Load(id)
	if err != nil {
		c.t.Fatal(err)
	}
	return doc
}

// texts are the texts of the latest thread's messages, in order.
func texts(doc *session.Document) []string {
	var out []string
	for _, m := range doc.Threads[len(doc.Threads)-1].Messages {
		var parts []string
		for _, b := range m.Content {
			if b.Type == session.BlockText {
				parts = append(parts, b.Text)
			}
		}
		out = append(out, m.Role+": "+strings.Join(parts, " "))
	}
	return out
}

// With no server, a run serves the profile in its own process for the
// turn: the answer on stdout, exit 0, and nothing of the server left
// after. -n names the session; --fork-from NAME and @last fork it, and
// the fork's turn reads the raw history of the one before (a phase
// pipeline).
func TestRunWithoutServer(t *testing.T) {
	c := newRunCLI(t, nil)
	out, _ := c.runOK("-n", "explore", "look around [[say:found three things]]")
	if out != "found three things\n" {
		t.Errorf("stdout %q", out)
	}
	c.assertNoServer()
	explore := c.load("explore")
	cwd, _ := os.Getwd()
	if explore.Name != "explore" || explore.Cwd != cwd || explore.Title == "" {
		t.Errorf("session: name %q, cwd %q (want %q), title %q", explore.Name, explore.Cwd, cwd, explore.Title)
	}

	// Every command that takes an ID takes the name.
	if out, _, code := c.myco(context.Background(), "", "sessions", "show", "explore", "--json"); code != 0 || !strings.Contains(out, `"name": "explore"`) {
		t.Errorf("sessions show explore: exit %d, %q", code, out)
	}

	out, _ = c.runOK("--fork-from", "explore", "Entering phase: plan [[say:the plan]]")
	if out != "the plan\n" {
		t.Errorf("fork's stdout %q", out)
	}
	plan := c.load("@last")
	if plan.Parent == nil || plan.Parent.Session != explore.ID || plan.Name != "" {
		t.Fatalf("the run did not fork explore: parent %+v, name %q (a fork inherits none)", plan.Parent, plan.Name)
	}
	want := []string{"user: look around [[say:found three things]]", "assistant: found three things",
		"user: Entering phase: plan [[say:the plan]]", "assistant: the plan"}
	if got := texts(plan); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the fork holds\n%q\nwant\n%q", got, want)
	}
	// What the model was sent for the fork's turn: the whole history.
	reqs := c.fake.Requests()
	last := reqs[len(reqs)-1]
	for i := len(reqs) - 1; i >= 0 && last.JSON["tools"] == nil; i-- {
		last = reqs[i] // skip the title requests
	}
	if msgs, _ := last.JSON["messages"].([]any); len(msgs) != 3 {
		t.Errorf("the fork's request holds %d messages, want 3 (the explore turn and the new prompt)", len(msgs))
	}

	// @last is the fork now; -n moves the name to the new session.
	out, _ = c.runOK("--fork-from", "@last", "--keep-turns", "1", "-n", "explore", "[[say:again]]")
	if out != "again\n" {
		t.Errorf("stdout %q", out)
	}
	again := c.load("explore")
	if again.Parent == nil || again.Parent.Session != plan.ID || len(texts(again)) != 4 {
		t.Errorf("explore is now %s, parent %+v, %d messages", again.ID, again.Parent, len(texts(again)))
	}
	if old, _ := c.store("default").Load(explore.ID); old.Name != "" {
		t.Errorf("the first session kept the name %q", old.Name)
	}
	if out, _, _ := c.myco(context.Background(), "", "sessions", "list"); !strings.Contains(out, "NAME") || !strings.Contains(out, again.ID) || !strings.Contains(out, " explore ") {
		t.Errorf("sessions list:\n%s", out)
	}
	out, _, _ = c.myco(context.Background(), "", "sessions", "list", "--json")
	var sums []session.Summary
	json.Unmarshal([]byte(out), &sums)
	named := 0
	for _, s := range sums {
		if s.Name == "explore" {
			named++
		}
	}
	if len(sums) != 3 || named != 1 || sums[0].Name != "explore" {
		t.Errorf("listing: %d sessions, %d named explore, newest %q", len(sums), named, sums[0].Name)
	}
	c.assertNoServer()
}

// Through a running server the turn is that server's: its listing has
// the session, and it keeps running after the run. The prompt may come
// on standard input, and --session continues a session by name.
func TestRunThroughServer(t *testing.T) {
	c := newRunCLI(t, nil)
	link, _, stop := serveOnce(t, c.cli)
	defer stop()
	out, _, code := c.myco(context.Background(), "first [[say:through the server]]\n", "run", "-n", "live")
	if code != 0 || out != "through the server\n" {
		t.Fatalf("run: exit %d, stdout %q", code, out)
	}
	out, _ = c.runOK("--session", "live", "[[say:continued]]")
	if out != "continued\n" {
		t.Errorf("--session: stdout %q", out)
	}
	origin, token, _ := strings.Cut(link, "/?token=")
	req, _ := http.NewRequest(http.MethodGet, origin+"/api/sessions", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sums []session.Summary
	json.NewDecoder(resp.Body).Decode(&sums)
	if len(sums) != 1 || sums[0].Name != "live" || sums[0].Messages != 4 {
		t.Errorf("the server lists %+v, want the one session named live with 4 messages", sums)
	}
	p, _ := profiles.Lookup(c.home, profiles.DefaultName)
	if info, err := profiles.ReadServerInfo(p.ServerPath()); err != nil || !answers(info) {
		t.Errorf("the server is gone after the run: %v", err)
	}
	// myco --resume takes the name too.
	out, _, code = c.myco(context.Background(), "", "--no-open", "--resume", "live")
	if code != 0 || !strings.Contains(out, "/s/"+sums[0].ID+"?token=") {
		t.Errorf("--resume live: exit %d, stdout %q", code, out)
	}
}

// --json prints one JSON object a line: the turn's events as they come,
// then the run's result.
func TestRunJSON(t *testing.T) {
	c := newRunCLI(t, nil)
	out, _ := c.runOK("--json", "[[text:30]]")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var names []string
	var text strings.Builder
	for _, line := range lines {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not a JSON line: %q: %v", line, err)
		}
		name, _ := ev["event"].(string)
		names = append(names, name)
		if name == "text.delta" {
			text.WriteString(ev["text"].(string))
		}
	}
	if names[0] != "turn.start" || !strings.Contains(strings.Join(names, " "), "text.delta") || names[len(names)-2] != "turn.end" || names[len(names)-1] != "run.end" {
		t.Errorf("events %q", names)
	}
	var res struct {
		Session    string `json:"session"`
		Answer     string `json:"answer"`
		StopReason string `json:"stop_reason"`
		OK         bool   `json:"ok"`
		Usage      struct {
			OutputTokens int `json:"output_tokens"`
		} `json:"usage"`
	}
	json.Unmarshal([]byte(lines[len(lines)-1]), &res)
	final := res
	if !res.OK || res.StopReason != "end_turn" || res.Usage.OutputTokens == 0 || final.Answer != text.String() || !strings.HasPrefix(final.Answer, "alpha bravo") {
		t.Errorf("result %+v, answer %q, streamed %q", res, final.Answer, text.String())
	}
	if doc := c.load(final.Session); len(doc.Threads[0].Messages) != 2 {
		t.Errorf("session %s has %d messages", final.Session, len(doc.Threads[0].Messages))
	}
}

// A turn that fails exits 1 with the reason on stderr, nothing on stdout;
// with --json the last line says so too.
func TestRunFailedTurn(t *testing.T) {
	c := newRunCLI(t, nil)
	out, errOut, code := c.myco(context.Background(), "", "run", "[[fault:400]]")
	if code != 1 || out != "" || !strings.Contains(errOut, "myco: the turn failed: ") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, _, code = c.myco(context.Background(), "", "run", "--json", "[[fault:400]] again")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var res struct {
		OK         bool   `json:"ok"`
		StopReason string `json:"stop_reason"`
		Error      string `json:"error"`
	}
	json.Unmarshal([]byte(lines[len(lines)-1]), &res)
	if code != 1 || res.OK || res.StopReason != "error" || !strings.HasPrefix(res.Error, "the turn failed: ") {
		t.Errorf("--json: exit %d, result %+v", code, res)
	}
	c.assertNoServer()
}

// A bad command line exits 2 and runs nothing.
func TestRunBadCommandLine(t *testing.T) {
	c := newRunCLI(t, nil)
	for _, args := range [][]string{
		{"run"},
		{"run", "two", "prompts"},
		{"run", "--session", "a", "--fork-from", "b", "hi"},
		{"run", "--keep-turns", "1", "hi"},
		{"run", "--fork-from", "a", "--keep-turns", "-2", "hi"},
		{"run", "--allow", "rm", "hi"},
		{"run", "-n", "cafe", "hi"},
		{"run", "--nosuch", "hi"},
	} {
		if _, errOut, code := c.myco(context.Background(), "", args...); code != 2 {
			t.Errorf("%q: exit %d, stderr %q", args, code, errOut)
		}
	}
	if _, errOut, code := c.myco(context.Background(), "  \n", "run"); code != 2 || !strings.Contains(errOut, "the prompt is empty") {
		t.Errorf("an empty prompt on stdin: exit %d, stderr %q", code, errOut)
	}
	if n := len(c.fake.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
	_, errOut, code := c.myco(context.Background(), "", "run", "--session", "nosuch", "hi")
	if code != 1 || !strings.Contains(errOut, `no session "nosuch"`) {
		t.Errorf("an unknown session: exit %d, stderr %q", code, errOut)
	}
}

// An approval the settings would ask for fails the run with the reason
// and stops the turn (the command never runs); --allow bash approves it
// once, and the tool's activity is on stderr.
func TestRunApprovals(t *testing.T) {
	c := newRunCLI(t, map[string]any{"approvals": map[string]any{"bash": "ask", "edit": "ask"}})
	marker := filepath.Join(t.TempDir(), "ran")
	prompt := `[[tool:bash {"command":"touch ` + marker + ` && echo ran"}]]`
	out, errOut, code := c.myco(context.Background(), "", "run", prompt)
	if code != 1 || out != "" || !strings.Contains(errOut, "< bash: not run: this run may not approve it\n") ||
		!strings.HasSuffix(errOut, "myco: the agent asked to run bash and this run may not: pass --allow bash\n") {
		t.Errorf("without --allow: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran without an approval")
	}
	doc := c.load("@last")
	msgs := doc.Threads[0].Messages
	if last := msgs[len(msgs)-1]; last.Role != "user" || len(last.Content) == 0 || last.Content[0].Type != session.BlockToolResult || !last.Content[0].IsError {
		t.Errorf("the turn's last message %+v, want the refused call's result", last)
	}

	out, errOut = c.runOK("--allow", "bash,edit", prompt)
	if !strings.HasPrefix(out, "Tool result: ran\n") || !strings.Contains(errOut, "> bash: touch "+marker) || !strings.Contains(errOut, "< bash: ok\n") || !strings.Contains(errOut, "approved bash once") {
		t.Errorf("with --allow bash: stdout %q, stderr %q", out, errOut)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	c.assertNoServer()
}

// Two runs at once with no server: the first serves, the second runs its
// turn on that server (a second myco sees it as the profile's server),
// and the first stops its server only once the second's turn has ended.
func TestRunConcurrent(t *testing.T) {
	c := newRunCLI(t, nil)
	type result struct {
		out, errOut string
		code        int
		at          time.Time
	}
	runAt := func(ch chan<- result, prompt string) {
		out, errOut, code := c.myco(context.Background(), "", "run", prompt)
		ch <- result{out, errOut, code, time.Now()}
	}
	first, second := make(chan result, 1), make(chan result, 1)
	go runAt(first, "[[text:50]] [[delay:40ms]]")
	p, _ := profiles.Lookup(c.home, profiles.DefaultName)
	deadline := time.Now().Add(20 * time.Second)
	for {
		if info, err := profiles.ReadServerInfo(p.ServerPath()); err == nil && answers(info) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first run never served")
		}
		time.Sleep(10 * time.Millisecond)
	}
	go runAt(second, "[[text:60]] [[delay:50ms]]")
	a, b := <-first, <-second
	if a.code != 0 || b.code != 0 || len(strings.Fields(a.out)) != 50 || len(strings.Fields(b.out)) != 60 {
		t.Fatalf("first: %d %q %q; second: %d %q %q", a.code, a.out, a.errOut, b.code, b.out, b.errOut)
	}
	if a.at.Before(b.at) || !strings.Contains(a.errOut, "waiting for the turns other runs or tabs started") {
		t.Errorf("the first run stopped its server before the second run's turn ended; its stderr %q", a.errOut)
	}
	c.assertNoServer()
}

// Ctrl-C stops the turn through the server, exits 1, and leaves nothing
// of the server.
func TestRunInterrupted(t *testing.T) {
	c := newRunCLI(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		out, errOut string
		code        int
	}
	done := make(chan result, 1)
	go func() {
		out, errOut, code := c.myco(ctx, "", "run", "[[text:400]] [[delay:20ms]]")
		done <- result{out, errOut, code}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for len(c.fake.Requests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the model was never called")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	r := <-done
	if r.code != 1 || r.out != "" || !strings.Contains(r.errOut, "myco: stopped: the turn of session") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.out, r.errOut)
	}
	c.assertNoServer()
	// The answer is kept, marked, once it had text when the stop came.
	for _, m := range c.load("@last").Threads[0].Messages {
		if m.Role == "assistant" && m.StopReason != session.StopInterrupted {
			t.Errorf("an answer of the stopped turn ended %q", m.StopReason)
		}
	}
}

// A server that goes away before it takes the run's message (a server
// another run started, stopping as that run ends) is no failure: the run
// starts again on the profile's server, here one of its own.
func TestRunStartsAgainWhenTheServerGoes(t *testing.T) {
	c := newRunCLI(t, nil)
	var healthz, creates atomic.Int32
	gone := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			if healthz.Add(1) > 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
			}
		case "/api/sessions":
			creates.Add(1)
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close() // gone before it answered
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer gone.Close()
	p, _ := profiles.Lookup(c.home, profiles.DefaultName)
	if err := profiles.WriteServerInfo(p.ServerPath(), profiles.ServerInfo{PID: os.Getpid(), URL: gone.URL, Token: "t"}); err != nil {
		t.Fatal(err)
	}
	out, errOut := c.runOK("[[say:second try]]")
	if out != "second try\n" || creates.Load() != 1 {
		t.Errorf("stdout %q, stderr %q, %d sessions asked of the server that went", out, errOut, creates.Load())
	}
	c.assertNoServer()
}

// A myco started while a headless run serves the profile opens the page
// on that server, and serves the profile itself once the run ends, on the
// same address and token: the tab it opened reconnects.
func TestServeTakesOverFromHeadlessRun(t *testing.T) {
	c := newRunCLI(t, nil)
	done := make(chan string, 1)
	go func() {
		out, errOut, code := c.myco(context.Background(), "", "run", "[[text:40]] [[delay:25ms]]")
		if code != 0 {
			done <- fmt.Sprintf("exit %d: %s", code, errOut)
			return
		}
		done <- out
	}()
	p, _ := profiles.Lookup(c.home, profiles.DefaultName)
	var info profiles.ServerInfo
	deadline := time.Now().Add(20 * time.Second)
	for {
		var err error
		if info, err = profiles.ReadServerInfo(p.ServerPath()); err == nil && answers(info) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run never served")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !info.Headless {
		t.Errorf("server.json of a run's server: %+v, want headless", info)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	getenv := func(k string) string {
		if k == "MYCO_HOME" {
			return c.home
		}
		return ""
	}
	served := make(chan error, 1)
	go func() { served <- run(ctx, []string{"--no-open"}, getenv, nil, &out, &errOut) }()
	if got := <-done; len(strings.Fields(got)) != 40 {
		t.Errorf("the run: %q", got)
	}
	deadline = time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), "myco is serving profile") {
		if time.Now().After(deadline) {
			t.Fatalf("myco did not take over: %q %q", out.String(), errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "already running") || !strings.Contains(out.String(), "serving profile \"default\" at "+info.URL+"/?token="+info.Token) {
		t.Errorf("myco said %q; want the run's server first, then itself on %s with its token", out.String(), info.URL)
	}
	now, err := profiles.ReadServerInfo(p.ServerPath())
	if err != nil || now.Headless || now.URL != info.URL || !answers(now) {
		t.Errorf("server.json after the takeover: %+v (%v)", now, err)
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("myco: %v", err)
	}
	c.assertNoServer()
}

// A sub-agent's approval is the run's to give as its own: refused (the
// turn stopped, the reason said) without --allow, approved once with it.
func TestRunSubagentApprovals(t *testing.T) {
	c := newRunCLI(t, map[string]any{"approvals": map[string]any{"bash": "ask", "edit": "ask"}})
	marker := filepath.Join(t.TempDir(), "ran")
	child := `⟦tool:bash {\"command\":\"touch ` + marker + ` && echo ran\"}⟧`
	prompt := `[[tool:task {"description":"helper","prompt":"` + child + `"}]]`
	out, errOut, code := c.myco(context.Background(), "", "run", prompt)
	if code != 1 || out != "" || !strings.Contains(errOut, "a sub-agent (helper) asked to run bash and this run may not: pass --allow bash") {
		t.Errorf("without --allow: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the sub-agent's command ran without an approval")
	}
	out, errOut = c.runOK("--allow", "bash", prompt)
	if !strings.Contains(out, "ran") || !strings.Contains(errOut, "approved bash once for a sub-agent (helper)") {
		t.Errorf("with --allow bash: stdout %q, stderr %q", out, errOut)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	c.assertNoServer()
}
