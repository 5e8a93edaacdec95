package server_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"myco/profiles"
	"myco/server"
	"myco/session"
)

// TestCreateSessionCwd checks the folder rules of POST /api/sessions: the
// default is where myco was started; a folder the person names must be an
// absolute path ("~/" from home) to an existing folder that the file
// tools' denial rules allow, and a refusal says why.
func TestCreateSessionCwd(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	project := filepath.Join(dir, "project")
	profile := filepath.Join(dir, "profile")
	secrets := filepath.Join(home, "secrets")
	for _, d := range []string{started, project, profile, secrets, filepath.Join(home, "x")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(project, "notes.txt")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secrets, filepath.Join(project, "way-in")); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, dir, func(o *server.Options) {
		o.Cwd = started
		o.ProfileDir = profile
		o.Settings = profiles.NewLiveSettings(profiles.Settings{DeniedPaths: []string{"~/secrets"}})
	})

	tests := []struct {
		name    string
		body    string
		status  int
		wantCwd string // on success
		wantErr string // in the refusal
	}{
		{name: "no cwd: where myco started", body: `{}`, status: http.StatusCreated, wantCwd: started},
		{name: "empty: where myco started", body: `{"cwd": "  "}`, status: http.StatusCreated, wantCwd: started},
		{name: "good", body: `{"cwd": ` + strconv.Quote(project+"/") + `}`, status: http.StatusCreated, wantCwd: project},
		{name: "home", body: `{"cwd": "~/x"}`, status: http.StatusCreated, wantCwd: filepath.Join(home, "x")},
		{name: "relative", body: `{"cwd": "src/project"}`, status: http.StatusBadRequest, wantErr: `"src/project" is relative`},
		{name: "missing", body: `{"cwd": ` + strconv.Quote(project+"/gone") + `}`, status: http.StatusBadRequest, wantErr: "does not exist"},
		{name: "a file", body: `{"cwd": ` + strconv.Quote(file) + `}`, status: http.StatusBadRequest, wantErr: "is a file, not a folder"},
		{name: "denied by settings", body: `{"cwd": "~/secrets"}`, status: http.StatusBadRequest, wantErr: "inside ~/secrets (settings denied_paths)"},
		{name: "denied through a link", body: `{"cwd": ` + strconv.Quote(filepath.Join(project, "way-in")) + `}`, status: http.StatusBadRequest, wantErr: "it leads to " + secrets},
		{name: "the profile folder", body: `{"cwd": ` + strconv.Quote(profile) + `}`, status: http.StatusBadRequest, wantErr: "myco's profile folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := ts.do("POST", "/api/sessions", strings.NewReader(tt.body))
			wantStatus(t, resp, tt.status)
			if tt.status != http.StatusCreated {
				got := decode[map[string]string](t, resp)
				if !strings.Contains(got["error"], tt.wantErr) {
					t.Errorf("error %q, want it to say %q", got["error"], tt.wantErr)
				}
				return
			}
			sum := decode[session.Summary](t, resp)
			if sum.Cwd != tt.wantCwd {
				t.Errorf("answer's cwd %q, want %q", sum.Cwd, tt.wantCwd)
			}
			doc, err := ts.sessions.Load(sum.ID)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Cwd != tt.wantCwd {
				t.Errorf("stored cwd %q, want %q", doc.Cwd, tt.wantCwd)
			}
		})
	}
}

// TestNewSessionForm checks the form the dialog fetches: the folder myco
// started from first, then the distinct folders of recent sessions, newest
// first, at most web.MaxRecentFolders.
func TestNewSessionForm(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir, func(o *server.Options) { o.Cwd = "/started/here" })
	var folders []string
	for i := range 10 {
		folders = append(folders, "/src/p"+strconv.Itoa(i))
	}
	// Oldest first, each twice: the listing has each folder once.
	for _, f := range append(folders, folders...) {
		if _, err := ts.sessions.Create(session.NewSession{Cwd: f}); err != nil {
			t.Fatal(err)
		}
	}
	resp := ts.do("GET", "/partials/new-session", nil)
	wantStatus(t, resp, http.StatusOK)
	d := parseDoc(t, resp)
	if got := d.Find(`[data-testid="new-session-cwd"]`).AttrOr("value", ""); got != "/started/here" {
		t.Errorf("folder field %q, want /started/here", got)
	}
	var got []string
	d.Find(`[data-testid="recent-folder"]`).Each(func(_ int, s *goquery.Selection) {
		got = append(got, s.AttrOr("data-folder", ""))
	})
	want := []string{"/src/p9", "/src/p8", "/src/p7", "/src/p6", "/src/p5", "/src/p4", "/src/p3", "/src/p2"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("recent folders %q, want %q", got, want)
	}
}

// TestProviderLine checks that without a provider the home page says so in
// one line that leads to the Settings page, where the old help page leads
// too.
func TestProviderLine(t *testing.T) {
	ts := newTestServer(t)
	resp := ts.do("GET", "/", nil, "Accept", "text/html")
	wantStatus(t, resp, http.StatusOK)
	d := parseDoc(t, resp)
	line := d.Find(`[data-testid="provider-line"]`)
	if line.Length() != 1 || line.Find("a").AttrOr("href", "") != "/settings" {
		t.Fatalf("provider line %q, want one linking to /settings", line.Text())
	}
	if d.Find(`[data-testid="start-button"]`).Length() != 1 {
		t.Error("an empty home page offers no New session button")
	}
	resp = ts.do("GET", "/help/providers", nil, "Accept", "text/html")
	wantStatus(t, resp, http.StatusSeeOther)
	if got := resp.Header.Get("Location"); got != "/settings" {
		t.Errorf("/help/providers leads to %q, want /settings", got)
	}
}

func parseDoc(t *testing.T, resp *http.Response) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
