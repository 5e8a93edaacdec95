package server_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"myco/session"
)

// TestPickPaths: GET …/paths?q= finds files anywhere below the session's
// folder by a fuzzy query, leaving out dependencies, hidden files and
// links that lead out of the folder; a query too long is refused.
func TestPickPaths(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	dir := t.TempDir()
	for _, f := range []string{"src/app/runtime.ts", "README.md", "node_modules/x/runtime.ts", ".git/runtime"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "runtime-secret"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "runtime-secret"), filepath.Join(dir, "runtime-link")); err != nil {
		t.Fatal(err)
	}
	resp := ts.do("POST", "/api/sessions", strings.NewReader(`{"cwd":`+jsonString(dir)+`}`))
	wantStatus(t, resp, http.StatusCreated)
	id := decode[session.Summary](t, resp).ID

	tests := []struct {
		name, query string
		status      int
		want        []string
	}{
		{"fuzzy", "?q=rntm", http.StatusOK, []string{"src/app/runtime.ts"}},
		{"empty query lists the top", "?q=", http.StatusOK, []string{"README.md", "src/", "src/app/", "src/app/runtime.ts"}},
		{"prefix still completes", "?prefix=src/", http.StatusOK, []string{"src/app/"}},
		{"too long", "?q=" + strings.Repeat("a", 300), http.StatusBadRequest, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := ts.do("GET", "/api/sessions/"+id+"/paths"+tt.query, nil)
			wantStatus(t, resp, tt.status)
			if tt.want == nil {
				return
			}
			got := decode[map[string][]string](t, resp)["paths"]
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCreateInPlanMode: POST /api/sessions {mode: plan} starts the
// session in plan mode; build or none does not; anything else is 400.
func TestCreateInPlanMode(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	tests := []struct {
		name, body string
		status     int
		wantMode   string
	}{
		{"plan", `{"mode":"plan"}`, http.StatusCreated, session.ModePlan},
		{"plan in capitals", `{"mode":" Plan "}`, http.StatusCreated, session.ModePlan},
		{"build", `{"mode":"build"}`, http.StatusCreated, ""},
		{"none", `{}`, http.StatusCreated, ""},
		{"unknown", `{"mode":"yolo"}`, http.StatusBadRequest, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := ts.do("POST", "/api/sessions", strings.NewReader(tt.body))
			wantStatus(t, resp, tt.status)
			if tt.status != http.StatusCreated {
				return
			}
			id := decode[session.Summary](t, resp).ID
			doc, err := ts.sessions.Load(id)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Mode != tt.wantMode {
				t.Errorf("mode %q, want %q", doc.Mode, tt.wantMode)
			}
		})
	}
}

// TestManifest: the manifest and its icons are served without the token
// (a browser fetches the manifest without cookies), with their types, and
// name nothing secret; nothing else under /icons/ is public, and the rest
// of the server still wants the token.
func TestManifest(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	get := func(path string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", ts.url+path, nil)
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	tests := []struct {
		path, wantType string
		status         int
	}{
		{"/manifest.webmanifest", "application/manifest+json", http.StatusOK},
		{"/icons/icon-192.png", "image/png", http.StatusOK},
		{"/icons/icon-512.png", "image/png", http.StatusOK},
		{"/icons/icon-maskable-512.png", "image/png", http.StatusOK},
		{"/icons/favicon.svg", "image/svg+xml", http.StatusOK},
		{"/icons/style.css", "", http.StatusUnauthorized}, // not public: the token first
		{"/icons/../api/sessions", "", http.StatusUnauthorized},
		{"/static/icon-192.png", "", http.StatusUnauthorized},
		{"/api/sessions", "", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp := get(tt.path)
			wantStatus(t, resp, tt.status)
			if tt.wantType != "" && !strings.HasPrefix(resp.Header.Get("Content-Type"), tt.wantType) {
				t.Errorf("Content-Type %q, want %q", resp.Header.Get("Content-Type"), tt.wantType)
			}
			if resp.Header.Get("Set-Cookie") != "" {
				t.Errorf("Set-Cookie on a public file: %q", resp.Header.Get("Set-Cookie"))
			}
			body, _ := io.ReadAll(resp.Body)
			if strings.Contains(string(body), testToken) {
				t.Error("the token is in the body")
			}
		})
	}
	// A POST to the manifest is no public route.
	req, _ := http.NewRequest("POST", ts.url+"/manifest.webmanifest", nil)
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		t.Errorf("POST manifest: %d", resp.StatusCode)
	}
	// The page links it, and the CSP lets it load.
	page := ts.do("GET", "/", nil)
	wantStatus(t, page, http.StatusOK)
	body, _ := io.ReadAll(page.Body)
	if !strings.Contains(string(body), `rel="manifest" href="/manifest.webmanifest"`) {
		t.Error("the layout does not link the manifest")
	}
	if !strings.Contains(page.Header.Get("Content-Security-Policy"), "manifest-src 'self'") {
		t.Errorf("CSP %q has no manifest-src", page.Header.Get("Content-Security-Policy"))
	}
}
