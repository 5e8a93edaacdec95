package mcphost_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myco/e2e/mcptest"
	"myco/profiles"
	"myco/server/mcphost"
)

// callbackURL is where the authorization server sends the browser back:
// myco's page, which the test's browser never loads (it stops at the
// redirect and hands its query to Callback, as the page does).
const callbackURL = "http://127.0.0.1:9/mcp/oauth/callback"

// browse opens an authorization URL as a person who approves would, and
// returns the query the authorization server sent back.
func browse(t *testing.T, authURL string) url.Values {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || err != nil || !strings.HasPrefix(loc.String(), callbackURL) {
		t.Fatalf("authorize answered %s to %q", resp.Status, resp.Header.Get("Location"))
	}
	return loc.Query()
}

func TestOAuthSignIn(t *testing.T) {
	o := mcptest.NewOAuthServer("web")
	ts := httptest.NewServer(o)
	t.Cleanup(ts.Close)
	o.Base = ts.URL
	grants := filepath.Join(t.TempDir(), "mcp-oauth.json")
	cfg := map[string]profiles.MCPServer{"web": {URL: ts.URL + "/mcp"}}
	h, changed := newHostWith(t, grants, cfg)

	st := waitState(t, h, changed, "web", mcphost.NeedsSignIn)
	if !st.OAuth || st.SignedIn || !strings.Contains(st.Reason, "sign in") {
		t.Fatalf("before sign-in: %+v", st)
	}
	if res := h.Call(t.Context(), "web", "echo", []byte(`{"text":"x"}`)); !res.IsError {
		t.Fatalf("a call before sign-in: %+v", res)
	}

	// A refusal at the authorization server ends the flow with its reason.
	o.Refused = true
	authURL, err := h.Login(t.Context(), "web", callbackURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Callback(browse(t, authURL)); err == nil || !strings.Contains(err.Error(), "The person said no.") {
		t.Fatalf("a refused sign-in: %v", err)
	}
	st = waitLastError(t, h, changed, "web")
	if st.State != mcphost.NeedsSignIn || !strings.Contains(st.LastError, "sign-in failed") {
		t.Fatalf("after a refusal: %+v", st)
	}

	// Signing in connects, and keeps the grant, private.
	if !strings.Contains(authURL, "code_challenge_method=S256") {
		t.Errorf("no PKCE in %s", authURL)
	}
	o.Refused = false
	query := signIn(t, h, "web")
	if _, err := h.Callback(query); !errors.Is(err, mcphost.ErrNotFound) {
		t.Errorf("the same answer twice: %v", err)
	}
	if st := waitState(t, h, changed, "web", mcphost.Connected); !st.SignedIn {
		t.Errorf("connected but not signed in: %+v", st)
	}
	if res := h.Call(t.Context(), "web", "echo", []byte(`{"text":"signed in"}`)); res.Text != "echo: signed in" || res.IsError {
		t.Fatalf("call after sign-in: %+v", res)
	}
	fi, err := os.Stat(grants)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("grants file: %v, %v", fi, err)
	}

	// A new process reads the grant: no sign-in.
	h.Close()
	h2, changed2 := newHostWith(t, grants, cfg)
	waitState(t, h2, changed2, "web", mcphost.Connected)

	// A revoked token asks to sign in again rather than retrying forever.
	o.Revoke()
	h2.Close()
	h3, changed3 := newHostWith(t, grants, cfg)
	if st := waitState(t, h3, changed3, "web", mcphost.NeedsSignIn); !strings.Contains(st.Reason, "refused the saved sign-in") {
		t.Errorf("a revoked grant: %+v", st)
	}

	// Signing out forgets the grant.
	if err := h3.Logout("web"); err != nil {
		t.Fatal(err)
	}
	if raw, _ := os.ReadFile(grants); strings.Contains(string(raw), `"web"`) {
		t.Errorf("the grant is still on disk: %s", raw)
	}
	if _, err := h3.Callback(url.Values{"state": {"made-up"}, "code": {"x"}}); !errors.Is(err, mcphost.ErrNotFound) {
		t.Errorf("an unknown state: %v", err)
	}
}

// A token refreshed while connected is written back: the refresh token
// rotates, so a restart that read the old one could not connect.
func TestOAuthRefreshIsKept(t *testing.T) {
	o := mcptest.NewOAuthServer("web")
	o.ExpiresIn = 1 // inside oauth2's expiry margin: every request refreshes
	ts := httptest.NewServer(o)
	t.Cleanup(ts.Close)
	o.Base = ts.URL
	grants := filepath.Join(t.TempDir(), "mcp-oauth.json")
	cfg := map[string]profiles.MCPServer{"web": {URL: ts.URL + "/mcp"}}
	h, changed := newHostWith(t, grants, cfg)
	waitState(t, h, changed, "web", mcphost.NeedsSignIn)
	signIn(t, h, "web")
	waitState(t, h, changed, "web", mcphost.Connected)
	for range 3 {
		if res := h.Call(t.Context(), "web", "echo", []byte(`{"text":"again"}`)); res.IsError {
			t.Fatalf("call: %+v", res)
		}
	}
	if n := o.Issued(); n < 3 {
		t.Fatalf("%d tokens issued: the test did not make the token refresh", n)
	}
	h.Close()
	h2, changed2 := newHostWith(t, grants, cfg)
	waitState(t, h2, changed2, "web", mcphost.Connected)
}

// A server with a key of its own, or over stdio, does not sign in.
func TestOAuthNotForEveryServer(t *testing.T) {
	h, _ := newHost(t, map[string]profiles.MCPServer{
		"keyed": {URL: "http://127.0.0.1:9/mcp", Headers: map[string]string{"authorization": "Bearer x"}},
		"local": stdioServer(""),
	})
	for _, name := range []string{"keyed", "local"} {
		if _, err := h.Login(t.Context(), name, callbackURL); !errors.Is(err, mcphost.ErrNoSignIn) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := h.Login(t.Context(), "nope", callbackURL); !errors.Is(err, mcphost.ErrNotFound) {
		t.Errorf("unknown: %v", err)
	}
}

// signIn signs in to server name as a person who approves would.
func signIn(t *testing.T, h *mcphost.Host, name string) url.Values {
	t.Helper()
	authURL, err := h.Login(t.Context(), name, callbackURL)
	if err != nil {
		t.Fatal(err)
	}
	query := browse(t, authURL)
	if got, err := h.Callback(query); err != nil || got != name {
		t.Fatalf("Callback: %q, %v", got, err)
	}
	return query
}

// waitLastError waits until server name reports a LastError.
func waitLastError(t *testing.T, h *mcphost.Host, changed chan struct{}, name string) mcphost.Status {
	t.Helper()
	for range 300 {
		for _, st := range h.Statuses() {
			if st.Name == name && st.LastError != "" {
				return st
			}
		}
		<-changed
	}
	t.Fatalf("%s never reported an error", name)
	return mcphost.Status{}
}
