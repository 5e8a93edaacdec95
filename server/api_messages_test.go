package server_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// markdownDoc holds an answer whose Markdown has what a rendering loses
// (emphasis marks, a fence, a table) and a person's message with an image.
const markdownDoc = `{
 "schema": 1,
 "id": "0193c7b2-0000-7000-8000-0000000000bb",
 "title": "Markdown",
 "created_at": "2026-11-02T10:00:00Z",
 "updated_at": "2026-11-02T10:30:00Z",
 "threads": [
  {
   "created_at": "2026-11-02T10:00:00Z",
   "messages": [
    {"id": "u1", "role": "user", "at": "2026-11-02T10:00:05Z", "human": true,
     "content": [
      {"type": "image", "media_type": "image/png", "sha256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
      {"type": "text", "text": "what is *this*?"}
     ]},
    {"id": "a1", "role": "assistant", "at": "2026-11-02T10:00:09Z", "stop_reason": "tool_use",
     "content": [
      {"type": "text", "text": "# Title\n\n**bold** and ` + "`code`" + `\n\n| a | b |\n|---|---|\n| 1 | 2 |"},
      {"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "ls"}},
      {"type": "text", "text": "` + "```go\\nfunc main() {}\\n```" + `"}
     ]}
   ]
  }
 ]
}
`

const markdownID = "0193c7b2-0000-7000-8000-0000000000bb"

func writeMarkdownDoc(t *testing.T, ts *testServer) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(ts.dir, "session", markdownID+".json"), []byte(markdownDoc), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestMessageMarkdown checks that a message's Markdown comes back as
// stored: its text blocks joined, nothing rendered, images and tool calls
// left out.
func TestMessageMarkdown(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	writeMarkdownDoc(t, ts)
	tests := []struct {
		name    string
		message string
		want    string
	}{
		{name: "a person's text", message: "u1", want: "what is *this*?"},
		{name: "an answer's text blocks", message: "a1", want: "# Title\n\n**bold** and `code`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```go\nfunc main() {}\n```"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := ts.do("GET", "/api/sessions/"+markdownID+"/messages/"+tt.message+"/markdown", nil)
			wantStatus(t, resp, http.StatusOK)
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
				t.Errorf("Content-Type %q, want text/plain", ct)
			}
			body, _ := io.ReadAll(resp.Body)
			if string(body) != tt.want {
				t.Errorf("body %q, want %q", body, tt.want)
			}
		})
	}
}

// TestMessageMarkdownRefused checks who may not read a message: without
// the token, under a foreign Host, from another site; and what a missing
// message or session answers.
func TestMessageMarkdownRefused(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	writeMarkdownDoc(t, ts)
	path := "/api/sessions/" + markdownID + "/messages/a1/markdown"
	tests := []struct {
		name     string
		path     string
		hdr      []string
		noToken  bool
		want     int
		wantBody string
	}{
		{name: "no token", path: path, noToken: true, want: http.StatusUnauthorized},
		{name: "wrong token", path: path, noToken: true, hdr: []string{"Authorization", "Bearer nope"}, want: http.StatusUnauthorized},
		{name: "rebinding host", path: path, hdr: []string{"Host", "evil.example:" + port(ts)}, want: http.StatusForbidden},
		{name: "foreign origin", path: path, hdr: []string{"Origin", "http://evil.example"}, want: http.StatusForbidden},
		{name: "null origin", path: path, hdr: []string{"Origin", "null"}, want: http.StatusForbidden},
		{name: "cross-site fetch", path: path, hdr: []string{"Sec-Fetch-Site", "cross-site"}, want: http.StatusForbidden},
		{name: "own origin", path: path, hdr: []string{"Origin", ts.url, "Sec-Fetch-Site", "same-origin"}, want: http.StatusOK},
		{
			name: "missing message", path: "/api/sessions/" + markdownID + "/messages/nope/markdown",
			want: http.StatusNotFound, wantBody: `no message \"nope\" in session ` + markdownID,
		},
		{
			name: "missing session", path: "/api/sessions/0193c7b2-0000-7000-8000-00000000beef/messages/a1/markdown",
			want: http.StatusNotFound, wantBody: "session not found",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest("GET", ts.url+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.noToken {
				req.Header.Set("Authorization", "Bearer "+testToken)
			}
			for i := 0; i+1 < len(tt.hdr); i += 2 {
				if tt.hdr[i] == "Host" {
					req.Host = tt.hdr[i+1]
					continue
				}
				req.Header.Set(tt.hdr[i], tt.hdr[i+1])
			}
			resp, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tt.want, body)
			}
			if tt.want != http.StatusOK && strings.Contains(string(body), "**bold**") {
				t.Errorf("a refused request got the message: %s", body)
			}
			if tt.wantBody != "" && !strings.Contains(string(body), tt.wantBody) {
				t.Errorf("body %s, want it to say %q", body, tt.wantBody)
			}
		})
	}
}
