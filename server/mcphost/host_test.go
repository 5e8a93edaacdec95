package mcphost_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"myco/e2e/mcptest"
	"myco/profiles"
	"myco/server/mcphost"
)

// serveEnv makes the test binary, started again, serve mcptest over
// stdio instead of running the tests.
const serveEnv = "MCPHOST_TEST_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		if err := mcptest.ServeStdio("srv"); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// stdioServer is the test binary as an MCP server; mode is MCPTEST_MODE.
func stdioServer(mode string) profiles.MCPServer {
	return profiles.MCPServer{Command: os.Args[0], Env: map[string]string{serveEnv: "1", "MCPTEST_MODE": mode}}
}

// newHost is a Host whose failed servers wait for Reconnect, and a
// channel told of every change.
func newHost(t *testing.T, cfg map[string]profiles.MCPServer) (*mcphost.Host, chan struct{}) {
	return newHostWith(t, "", cfg)
}

// newHostWith is newHost keeping OAuth grants in grantsPath.
func newHostWith(t *testing.T, grantsPath string, cfg map[string]profiles.MCPServer) (*mcphost.Host, chan struct{}) {
	t.Helper()
	changed := make(chan struct{}, 1)
	h := mcphost.New(mcphost.Options{
		Backoff:    func(int) time.Duration { return time.Hour },
		OnChange:   func() { notify(changed) },
		Getenv:     func(k string) string { return map[string]string{"TEST_TOKEN": "sesame"}[k] },
		GrantsPath: grantsPath,
	})
	t.Cleanup(h.Close)
	h.Configure(cfg)
	return h, changed
}

func notify(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// waitState waits until server name is in state, and returns its status.
func waitState(t *testing.T, h *mcphost.Host, changed chan struct{}, name string, want mcphost.State) mcphost.Status {
	t.Helper()
	for {
		for _, st := range h.Statuses() {
			if st.Name == name && st.State == want {
				return st
			}
		}
		select {
		case <-changed:
		case <-time.After(30 * time.Second):
			t.Fatalf("server %s never became %s: %+v", name, want, h.Statuses())
		}
	}
}

func toolNames(tools []mcphost.Tool) []string {
	var out []string
	for _, tl := range tools {
		out = append(out, tl.Name)
	}
	return out
}

func TestStdioServer(t *testing.T) {
	h, changed := newHost(t, map[string]profiles.MCPServer{"srv": stdioServer("")})
	tools := h.Tools(t.Context())
	names := strings.Join(toolNames(tools), " ")
	for _, want := range []string{"mcp__srv__echo", "mcp__srv__image", "mcp__srv__hang"} {
		if !strings.Contains(names, want) {
			t.Fatalf("tools %s lack %s", names, want)
		}
	}
	waitState(t, h, changed, "srv", mcphost.Connected)
	tests := []struct {
		name, tool, args string
		wantText         string
		wantError        bool
		wantImages       int
	}{
		{name: "text", tool: "echo", args: `{"text":"hi"}`, wantText: "echo: hi"},
		{name: "image", tool: "image", args: `{}`, wantText: "a red dot", wantImages: 1},
		{name: "tool error", tool: "fail", args: `{}`, wantText: "it went wrong", wantError: true},
		{name: "unknown tool", tool: "nope", args: `{}`, wantText: "nope", wantError: true},
		{name: "bad arguments", tool: "echo", args: `{"text":5}`, wantText: "", wantError: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := h.Call(t.Context(), "srv", tc.tool, []byte(tc.args))
			if !strings.Contains(res.Text, tc.wantText) || res.IsError != tc.wantError || len(res.Images) != tc.wantImages {
				t.Errorf("got %+v, want text %q error %v images %d", res, tc.wantText, tc.wantError, tc.wantImages)
			}
		})
	}
	big := h.Call(t.Context(), "srv", "big", []byte(`{}`))
	if len(big.Text) > mcphost.MaxResultBytes+200 || !strings.Contains(big.Text, "bytes of the result cut") {
		t.Errorf("a result of %d bytes was kept at %d bytes", mcptest.BigBytes, len(big.Text))
	}
}

func TestHTTPServer(t *testing.T) {
	srv := mcptest.NewServer("web")
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sesame" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	h, changed := newHost(t, map[string]profiles.MCPServer{
		"web":    {URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer ${TEST_TOKEN}"}},
		"nokey":  {URL: ts.URL},
		"absent": {URL: "http://127.0.0.1:1/mcp"},
	})
	waitState(t, h, changed, "web", mcphost.Connected)
	// Without a key of its own, a 401 asks the person to sign in.
	if st := waitState(t, h, changed, "nokey", mcphost.NeedsSignIn); !strings.Contains(st.Reason, "sign in") || !st.OAuth {
		t.Errorf("a refused server failed with %q", st.Reason)
	}
	waitState(t, h, changed, "absent", mcphost.Failed)
	if res := h.Call(t.Context(), "web", "echo", []byte(`{"text":"over http"}`)); res.Text != "echo: over http" || res.IsError {
		t.Errorf("call over HTTP: %+v", res)
	}
	if res := h.Call(t.Context(), "nokey", "echo", []byte(`{}`)); !res.IsError || !strings.Contains(res.Text, "not connected") {
		t.Errorf("call of a failed server: %+v", res)
	}
}

// An HTTP server that goes away fails the call that finds it gone, and
// the server is marked failed (and reconnected after its backoff) rather
// than failing every later call the same way.
func TestHTTPServerGone(t *testing.T) {
	srv := mcptest.NewServer("gone")
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	h, changed := newHost(t, map[string]profiles.MCPServer{"gone": {URL: ts.URL}})
	waitState(t, h, changed, "gone", mcphost.Connected)
	ts.CloseClientConnections()
	ts.Close()
	if res := h.Call(t.Context(), "gone", "echo", []byte(`{"text":"x"}`)); !res.IsError {
		t.Fatalf("call of a server gone: %+v", res)
	}
	st := waitState(t, h, changed, "gone", mcphost.Failed)
	if st.Reason == "" {
		t.Error("no reason given")
	}
	if res := h.Call(t.Context(), "gone", "echo", []byte(`{}`)); !strings.Contains(res.Text, "not connected") {
		t.Errorf("the next call: %+v", res)
	}
}

// A hung call ends at the server's timeout, and a stop ends one at once;
// the server stays usable.
func TestHangingCall(t *testing.T) {
	cfg := stdioServer("")
	cfg.TimeoutS = 1
	h, changed := newHost(t, map[string]profiles.MCPServer{"srv": cfg})
	waitState(t, h, changed, "srv", mcphost.Connected)
	res := h.Call(t.Context(), "srv", "hang", []byte(`{}`))
	if !res.IsError || !strings.Contains(res.Text, "timed out after 1s") {
		t.Fatalf("hung call: %+v", res)
	}
	if st := h.Statuses()[0]; !strings.Contains(st.LastError, "timed out") {
		t.Errorf("the panel is not told of the timeout: %+v", st)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan mcphost.Result)
	go func() { done <- h.Call(ctx, "srv", "hang", []byte(`{}`)) }()
	cancel()
	if res := <-done; !res.IsError || !strings.Contains(res.Text, "stopped the turn") {
		t.Errorf("stopped call: %+v", res)
	}
	if res := h.Call(t.Context(), "srv", "echo", []byte(`{"text":"still here"}`)); res.Text != "echo: still here" {
		t.Errorf("after the hangs: %+v", res)
	}
}

// A server that crashes keeps its tools; a call says it is not
// connected, and why; reconnected, it answers again.
func TestCrashAndReconnect(t *testing.T) {
	h, changed := newHost(t, map[string]profiles.MCPServer{"srv": stdioServer("")})
	waitState(t, h, changed, "srv", mcphost.Connected)
	if res := h.Call(t.Context(), "srv", "crash", []byte(`{}`)); !res.IsError {
		t.Errorf("the crashing call succeeded: %+v", res)
	}
	st := waitState(t, h, changed, "srv", mcphost.Failed)
	if !strings.Contains(st.Reason, "crashing on purpose") {
		t.Errorf("reason %q lacks the server's last words", st.Reason)
	}
	if got := toolNames(h.Tools(t.Context())); len(got) == 0 {
		t.Error("a failed server lost its tools")
	}
	res := h.Call(t.Context(), "srv", "echo", []byte(`{"text":"x"}`))
	if !res.IsError || !strings.Contains(res.Text, "srv is not connected (") {
		t.Errorf("call of a crashed server: %+v", res)
	}
	h.Reconnect("srv")
	waitState(t, h, changed, "srv", mcphost.Connected)
	if res := h.Call(t.Context(), "srv", "echo", []byte(`{"text":"back"}`)); res.Text != "echo: back" {
		t.Errorf("after reconnecting: %+v", res)
	}
}

// A server that cannot start fails with a reason and never stalls Tools
// for longer than its wait.
func TestServersThatFailToStart(t *testing.T) {
	hang := stdioServer("hang")
	hang.TimeoutS = 1
	h, changed := newHost(t, map[string]profiles.MCPServer{
		"exits":   stdioServer("exit"),
		"garbage": func() profiles.MCPServer { c := stdioServer("garbage"); c.TimeoutS = 2; return c }(),
		"hangs":   hang,
		"floods":  stdioServer("flood"),
		"noisy":   stdioServer("stderr"),
		"missing": {Command: "/nonexistent/mcp-server"},
		"off":     {Command: "/nonexistent/mcp-server", Disabled: true},
	})
	want := map[string]string{
		"exits":   "refusing to start",
		"garbage": "could not connect",
		"hangs":   "no answer within 1s",
		"missing": "could not start",
		"floods":  "could not connect",
	}
	for name, reason := range want {
		if st := waitState(t, h, changed, name, mcphost.Failed); !strings.Contains(st.Reason, reason) {
			t.Errorf("%s failed with %q, want %q in it", name, st.Reason, reason)
		}
	}
	waitState(t, h, changed, "off", mcphost.Disabled)
	// A server that fills its stderr (16 MB here) works: only its tail
	// is kept.
	waitState(t, h, changed, "noisy", mcphost.Connected)
	for _, tl := range h.Tools(t.Context()) {
		if tl.Server != "noisy" {
			t.Errorf("failed servers offered %s", tl.Name)
		}
	}
	if res := h.Call(t.Context(), "off", "echo", nil); !strings.Contains(res.Text, "disabled") {
		t.Errorf("call of a disabled server: %+v", res)
	}
}

func TestToolName(t *testing.T) {
	tests := []struct{ server, tool, want string }{
		{"srv", "echo", "mcp__srv__echo"},
		{"srv", "read.file/v2", "mcp__srv__read_file_v2"},
		{"srv", strings.Repeat("a", 80), "mcp__srv__" + strings.Repeat("a", 54)},
	}
	for _, tc := range tests {
		if got := mcphost.ToolName(tc.server, tc.tool); got != tc.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
	if s, ok := mcphost.SplitToolName("mcp__srv__echo"); !ok || s != "srv" {
		t.Errorf("SplitToolName = %q, %v", s, ok)
	}
}
