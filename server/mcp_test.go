package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"myco/e2e/mcptest"
	"myco/profiles"
	"myco/session"
)

var (
	mcptestOnce sync.Once
	mcptestPath string
	mcptestErr  error
)

// mcptestBinary builds the test MCP server (e2e/mcptest) once per run.
func mcptestBinary(t *testing.T) string {
	t.Helper()
	mcptestOnce.Do(func() {
		dir, err := os.MkdirTemp("", "myco-mcptest")
		if err != nil {
			mcptestErr = err
			return
		}
		mcptestPath = filepath.Join(dir, "mcptest")
		out, err := exec.Command("go", "build", "-o", mcptestPath, "myco/e2e/mcptest/cmd/mcptest").CombinedOutput()
		if err != nil {
			mcptestErr = &buildError{out: string(out), err: err}
		}
	})
	if mcptestErr != nil {
		t.Fatal(mcptestErr)
	}
	return mcptestPath
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return "build mcptest: " + e.err.Error() + "\n" + e.out }

// httpMCP serves mcptest over Streamable HTTP.
func httpMCP(t *testing.T) string {
	t.Helper()
	srv := mcptest.NewServer("web")
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

// mcpChatServer is a chat server with mcptest over stdio (srv, its tools
// allowed without asking) and over HTTP (web, asking).
func mcpChatServer(t *testing.T, timeoutS int) *chatServer {
	t.Helper()
	bin, url := mcptestBinary(t), httpMCP(t)
	return newChatServer(t, "anthropic", func(s *profiles.Settings) {
		s.MCPServers = map[string]profiles.MCPServer{
			"srv": {Command: bin, Allow: []string{"*"}, TimeoutS: timeoutS},
			"web": {URL: url},
		}
	})
}

// mcpCall sends text, which makes the model call one tool, and returns
// the tool.end event's data after waiting for the turn's end.
func (cs *chatServer) mcpCall(st *stream, id, text string, approve string) map[string]any {
	cs.t.Helper()
	wantStatus(cs.t, cs.send(id, text), http.StatusAccepted)
	if approve != "" {
		evs := st.until("tool.approval")
		ap := data(cs.t.(*testing.T), evs[len(evs)-1])
		wantStatus(cs.t, cs.do("POST", "/api/sessions/"+id+"/approvals/"+ap["tool_use_id"].(string), strings.NewReader(`{"decision":"`+approve+`"}`)), 200)
	}
	evs := st.until("tool.end")
	end := data(cs.t.(*testing.T), evs[len(evs)-1])
	for _, ev := range st.until("turn.end") {
		if ev.name == "turn.error" {
			cs.t.Fatalf("turn failed: %s", ev.data)
		}
	}
	return end
}

// The model calls MCP tools over stdio and HTTP through real turns; the
// tools block is the same bytes in every request; an image is kept in the
// image store.
func TestMCPToolsInTurns(t *testing.T) {
	t.Parallel()
	cs := mcpChatServer(t, 0)
	s := cs.create("mcp")
	st := cs.stream(t, s.ID)

	end := cs.mcpCall(st, s.ID, `[[tool:mcp__srv__echo {"text":"hello"}]]`, "")
	if end["output"] != "echo: hello" || end["is_error"] != false {
		t.Errorf("stdio call: %v", end)
	}
	end = cs.mcpCall(st, s.ID, `[[tool:mcp__web__echo {"text":"over http"}]]`, "once")
	if end["output"] != "echo: over http" {
		t.Errorf("http call: %v", end)
	}
	end = cs.mcpCall(st, s.ID, `[[tool:mcp__srv__image {}]]`, "")
	if !strings.Contains(end["html"].(string), "[image sha256:") {
		t.Errorf("the image result's card names no image (as read_file's does): %v", end["html"])
	}

	reqs := cs.fake.Requests()
	if len(reqs) < 6 {
		t.Fatalf("%d model requests", len(reqs))
	}
	first := wireOf(t, reqs[0]).tools
	for _, want := range []string{`"name":"mcp__srv__echo"`, `"name":"mcp__web__echo"`, "Echo the text back.", `"text"`} {
		if !strings.Contains(first, want) {
			t.Errorf("the tools block lacks %s: %s", want, first)
		}
	}
	for i, r := range reqs[1:] {
		if got := wireOf(t, r).tools; got != first {
			t.Fatalf("request %d changed the tools block:\n%s\n%s", i+1, first, got)
		}
	}
	doc, err := cs.sessions.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !hasImageResult(doc) {
		t.Error("the image tool's result holds no image block")
	}
}

func hasImageResult(doc *session.Document) bool {
	for _, m := range doc.Threads[len(doc.Threads)-1].Messages {
		for _, b := range m.Content {
			if b.Type == session.BlockToolResult && strings.Contains(string(b.Content), `"sha256"`) {
				return true
			}
		}
	}
	return false
}

// A server that hangs costs its call the timeout, not the turn; one that
// crashes fails its call and comes back.
func TestMCPHangAndCrashInTurns(t *testing.T) {
	t.Parallel()
	cs := mcpChatServer(t, 1)
	s := cs.create("mcp")
	st := cs.stream(t, s.ID)
	end := cs.mcpCall(st, s.ID, `[[tool:mcp__srv__hang {}]]`, "")
	if end["is_error"] != true || !strings.Contains(end["output"].(string), "timed out after 1s") {
		t.Errorf("hung call: %v", end)
	}
	end = cs.mcpCall(st, s.ID, `[[tool:mcp__srv__crash {}]]`, "")
	if end["is_error"] != true {
		t.Errorf("crashing call: %v", end)
	}
	// Reconnected after its backoff: connected, and the failed calls
	// forgotten.
	st.untilPanel(t, func(html string) bool {
		return strings.Contains(html, `data-server="srv" data-state="connected"`) && !strings.Contains(html, "Last call:")
	})
	if end := cs.mcpCall(st, s.ID, `[[tool:mcp__srv__echo {"text":"back"}]]`, ""); end["output"] != "echo: back" {
		t.Errorf("after the crash: %v", end)
	}
}

// untilPanel waits for a panel event whose MCP part is as ok wants.
func (st *stream) untilPanel(t *testing.T, ok func(html string) bool) {
	t.Helper()
	for {
		evs := st.until("panel")
		var p struct{ HTML string }
		if err := json.Unmarshal([]byte(evs[len(evs)-1].data), &p); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(p.HTML, `data-panel-part="mcp"`) && ok(p.HTML) {
			return
		}
	}
}

// The panel's switch takes a server's tools out of the session's block
// (the person's act), is kept in the document, and refuses a call.
func TestMCPSwitch(t *testing.T) {
	t.Parallel()
	cs := mcpChatServer(t, 0)
	s := cs.create("mcp")
	st := cs.stream(t, s.ID)
	cs.mcpCall(st, s.ID, `[[tool:mcp__srv__echo {"text":"one"}]]`, "")

	resp := cs.do("POST", "/api/sessions/"+s.ID+"/mcp", strings.NewReader(`{"server":"web","on":false}`))
	wantStatus(t, resp, http.StatusOK)
	var ans struct {
		Servers []struct {
			Name  string   `json:"name"`
			State string   `json:"state"`
			On    *bool    `json:"on"`
			Tools []string `json:"tools"`
		} `json:"servers"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil {
		t.Fatal(err)
	}
	if len(ans.Servers) != 2 || ans.Servers[1].Name != "web" || *ans.Servers[1].On || len(ans.Servers[0].Tools) == 0 {
		t.Errorf("switch answered %+v", ans)
	}
	st.untilPanel(t, func(html string) bool {
		return strings.Contains(html, `data-server="web" data-state="connected" data-on="false"`)
	})
	end := cs.mcpCall(st, s.ID, `[[tool:mcp__web__echo {"text":"two"}]]`, "")
	if end["is_error"] != true || !strings.Contains(end["output"].(string), "turned MCP server web off") {
		t.Errorf("call of a server turned off: %v", end)
	}
	reqs := cs.fake.Requests()
	last := wireOf(t, reqs[len(reqs)-1]).tools
	if strings.Contains(last, "mcp__web__") || !strings.Contains(last, "mcp__srv__echo") {
		t.Errorf("tools after the switch: %s", last)
	}
	doc, err := cs.sessions.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(doc.MCPOff, ",") != "web" {
		t.Errorf("mcp_off = %v", doc.MCPOff)
	}
	// A tab that connects now hears the servers as they are in its
	// snapshot: a state that changed before its stream opened reached no
	// panel event of its.
	resp = cs.do("GET", "/api/sessions/"+s.ID+"/events", nil)
	wantStatus(t, resp, http.StatusOK)
	evs := make(chan sseEvent, 64)
	go readEvents(t, resp.Body, evs)
	snap := data(t, nextEvent(t, evs, "snapshot"))
	if html, _ := snap["mcp_html"].(string); !strings.Contains(html, `data-server="web" data-state="connected" data-on="false"`) {
		t.Errorf("snapshot's mcp_html: %q", html)
	}
	for _, bad := range []string{`{"server":"nope","on":false}`, `{"server":"web"}`, `{`} {
		if resp := cs.do("POST", "/api/sessions/"+s.ID+"/mcp", strings.NewReader(bad)); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d", bad, resp.StatusCode)
		}
	}
}

// A stop of the turn cancels a call that would otherwise wait out the
// server's timeout.
func TestMCPStopCancelsACall(t *testing.T) {
	t.Parallel()
	cs := mcpChatServer(t, 0) // 60 s: the stop, not the timeout, ends it
	s := cs.create("mcp")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, `[[tool:mcp__srv__hang {}]]`), http.StatusAccepted)
	st.until("tool.start")
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/stop", nil), http.StatusOK)
	evs := st.until("tool.end")
	end := data(t, evs[len(evs)-1])
	if end["is_error"] != true || !strings.Contains(end["output"].(string), "stopped the turn") {
		t.Errorf("stopped call: %v", end)
	}
	st.until("turn.end")
}

// Plan mode refuses an MCP tool its server does not mark read-only.
func TestMCPPlanModeRefuses(t *testing.T) {
	t.Parallel()
	cs := mcpChatServer(t, 0)
	s := cs.create("mcp")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.do("PUT", "/api/sessions/"+s.ID+"/mode", strings.NewReader(`{"mode":"plan"}`)), http.StatusOK)
	end := cs.mcpCall(st, s.ID, `[[tool:mcp__srv__echo {"text":"x"}]]`, "")
	if end["is_error"] != true || !strings.Contains(end["output"].(string), "plan mode is on") {
		t.Errorf("an MCP call in plan mode: %v", end)
	}
}

// mcpState waits until GET /api/mcp says server name is in state.
func (cs *chatServer) mcpState(name, state string) mcpServerAnswer {
	cs.t.Helper()
	for range 600 {
		answer := decode[struct{ Servers []mcpServerAnswer }](cs.t, cs.do("GET", "/api/mcp", nil))
		for _, s := range answer.Servers {
			if s.Name == name && s.State == state {
				return s
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	cs.t.Fatalf("MCP server %s never became %s", name, state)
	return mcpServerAnswer{}
}

type mcpServerAnswer struct {
	Name     string
	State    string
	Reason   string
	OAuth    bool `json:"oauth"`
	SignedIn bool `json:"signed_in"`
}

// A server that asks for OAuth waits for the person; Sign in answers the
// authorization URL, whose way back is myco's callback page, reached
// without the token as a browser coming from another site would.
func TestMCPSignIn(t *testing.T) {
	t.Parallel()
	o := mcptest.NewOAuthServer("web")
	ts := httptest.NewServer(o)
	t.Cleanup(ts.Close)
	o.Base = ts.URL
	cs := newChatServer(t, "anthropic", func(s *profiles.Settings) {
		s.MCPServers = map[string]profiles.MCPServer{
			"web":   {URL: ts.URL + "/mcp"},
			"keyed": {URL: ts.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer wrong"}},
		}
	})
	if st := cs.mcpState("web", "needs_sign_in"); !st.OAuth || st.SignedIn {
		t.Fatalf("before sign-in: %+v", st)
	}
	wantStatus(t, cs.do("POST", "/api/mcp/keyed/login", nil), http.StatusConflict)
	wantStatus(t, cs.do("POST", "/api/mcp/nope/login", nil), http.StatusNotFound)

	resp := cs.do("POST", "/api/mcp/web/login", nil)
	wantStatus(t, resp, http.StatusOK)
	authURL := decode[struct {
		AuthURL string `json:"auth_url"`
	}](t, resp).AuthURL
	if !strings.Contains(authURL, url.QueryEscape(cs.url+"/mcp/oauth/callback")) {
		t.Fatalf("the way back is not myco's callback: %s", authURL)
	}
	back, err := noRedirect.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	back.Body.Close()
	page := func() (int, string) {
		resp, err := http.Get(back.Header.Get("Location")) // no token, no cookie
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if status, body := page(); status != http.StatusOK || !strings.Contains(body, "Signed in") {
		t.Fatalf("callback page: %d %s", status, body)
	}
	if status, body := page(); status != http.StatusBadRequest || !strings.Contains(body, "no sign-in is waiting") {
		t.Errorf("the callback page again: %d %s", status, body)
	}
	if st := cs.mcpState("web", "connected"); !st.SignedIn {
		t.Errorf("connected but not signed in: %+v", st)
	}
	// The page is the only one open without the token.
	if resp, err := http.Get(cs.url + "/api/mcp"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /api/mcp without the token: %v %v", resp.Status, err)
	}

	wantStatus(t, cs.do("POST", "/api/mcp/web/logout", nil), http.StatusNoContent)
	cs.mcpState("web", "needs_sign_in")
}
