package server_test

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myco/e2e/fakellm"
	"myco/internal/redact"
	"myco/profiles"
	"myco/server"
	"myco/server/llm"
	"myco/session"
)

// exportKey is a made-up secret in the format of a real key.
const exportKey = "sk-ant-api03-Xq9vTz3LmN8pQ2rS5tU7wY0aB4cD6eF8gH1iJ3kL5mN7oP9q"

func TestExportFormats(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	writeMarkdownDoc(t, ts)
	tests := []struct {
		format, contentType, file, has string
	}{
		{"md", "text/markdown; charset=utf-8", "markdown-0193c7b2.md", "# Markdown\n"},
		{"json", "application/json", "markdown-0193c7b2.json", `"id": "` + markdownID + `"`},
		{"html", "text/html; charset=utf-8", "markdown-0193c7b2.html", "<h1>Markdown</h1>"},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			resp := ts.do("GET", "/api/sessions/"+markdownID+"/export?format="+tt.format, nil)
			wantStatus(t, resp, http.StatusOK)
			if got := resp.Header.Get("Content-Type"); got != tt.contentType {
				t.Errorf("Content-Type %q, want %q", got, tt.contentType)
			}
			if got, want := resp.Header.Get("Content-Disposition"), `attachment; filename="`+tt.file+`"`; got != want {
				t.Errorf("Content-Disposition %q, want %q", got, want)
			}
			body, _ := io.ReadAll(resp.Body)
			if !strings.Contains(string(body), tt.has) {
				t.Errorf("body lacks %q:\n%s", tt.has, body)
			}
		})
	}
}

func TestExportRefused(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	writeMarkdownDoc(t, ts)
	tests := []struct {
		name, path string
		hdr        []string
		status     int
		says       string
	}{
		{"bad format", "/api/sessions/" + markdownID + "/export?format=pdf", nil, 400, "md, json, html"},
		{"no format", "/api/sessions/" + markdownID + "/export", nil, 400, "md, json, html"},
		{"unknown session", "/api/sessions/0193c7b2-0000-7000-8000-00000000dead/export?format=md", nil, 404, "not found"},
		{"invalid ID", "/api/sessions/..%2Fx/export?format=md", nil, 400, ""},
		{"cross-site", "/api/sessions/" + markdownID + "/export?format=md", []string{"Sec-Fetch-Site", "cross-site"}, 403, "cross-site"},
		{"other origin", "/api/sessions/" + markdownID + "/export?format=md", []string{"Origin", "http://evil.example"}, 403, "cross-origin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := ts.do("GET", tt.path, nil, tt.hdr...)
			wantStatus(t, resp, tt.status)
			body := decode[map[string]string](t, resp)
			if !strings.Contains(body["error"], tt.says) {
				t.Errorf("error %q does not say %q", body["error"], tt.says)
			}
		})
	}
}

// TestExportArchivedAndHeldElsewhere: a session archived, or open in
// another process, is exported from its file.
func TestExportArchivedAndHeldElsewhere(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	held := ts.create("held elsewhere")
	archived := ts.create("archived")
	wantStatus(t, ts.do("POST", "/api/sessions/"+archived.ID+"/archive", nil), 200)
	other, err := session.Open(filepath.Join(ts.dir, "session"), session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := other.Lock(held.ID, session.Owner{PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	for _, s := range []session.Summary{held, archived} {
		resp := ts.do("GET", "/api/sessions/"+s.ID+"/export?format=md", nil)
		wantStatus(t, resp, 200)
		body, _ := io.ReadAll(resp.Body)
		if !strings.HasPrefix(string(body), "# "+s.Title+"\n") {
			t.Errorf("export of %q starts %.40q", s.Title, body)
		}
	}
}

// TestExportLiveSessionRedacted: a live session's document holds the real
// key (its turn needs it); the export, from that document, holds the
// marker, in every format, the answer the model just gave included.
func TestExportLiveSessionRedacted(t *testing.T) {
	t.Parallel()
	fake := fakellm.Start(t)
	settings := profiles.DefaultSettings()
	settings.DefaultModel = "anthropic/fake-model"
	settings.TitleModel = "anthropic/fake-title"
	settings.Providers = map[string]profiles.Provider{"anthropic": {BaseURL: fake.URL, APIKeyEnv: "FAKE_KEY"}}
	getenv := func(k string) string {
		if k == "FAKE_KEY" {
			return "sk-test"
		}
		return ""
	}
	dir := t.TempDir()
	ts := startServer(t, dir, func(o *server.Options) {
		ss, err := session.Open(filepath.Join(dir, "session"), session.Options{Redactor: redact.New(nil)})
		if err != nil {
			t.Fatal(err)
		}
		o.Sessions = ss
		o.DefaultModel, o.Settings = settings.DefaultModel, profiles.NewLiveSettings(settings)
		o.Models = llm.NewRegistry(settings, getenv, o.Images)
		o.RetryDelays = []time.Duration{10 * time.Millisecond}
	})
	s := ts.create("secret")
	st := ts.stream(t, s.ID)
	wantStatus(t, ts.send(s.ID, "use "+exportKey+" please [[say:Understood, the answer is forty-two.]]"), http.StatusAccepted)
	st.until("turn.end")

	for _, f := range []string{"md", "json", "html"} {
		resp := ts.do("GET", "/api/sessions/"+s.ID+"/export?format="+f, nil)
		wantStatus(t, resp, 200)
		body, _ := io.ReadAll(resp.Body)
		if strings.Contains(string(body), exportKey) {
			t.Errorf("%s export holds the key", f)
		}
		for _, want := range []string{redact.Marker("anthropic-key"), "forty-two"} {
			if !strings.Contains(string(body), want) {
				t.Errorf("%s export lacks %q", f, want)
			}
		}
	}
}
