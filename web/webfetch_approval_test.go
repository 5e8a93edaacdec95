package web_test

import (
	"strings"
	"testing"

	"myco/web"
)

// A web_fetch approval names the host, shows the whole URL, offers that
// host for the session and says where a host is allowed for good.
func TestWebFetchApprovalCard(t *testing.T) {
	tests := []struct {
		name, input, host, url, session string
	}{
		{"a URL", `{"url":"https://Docs.Python.org./3/library/pathlib.html?q=<x>"}`, "docs.python.org",
			"https://Docs.Python.org./3/library/pathlib.html?q=<x>", "Allow docs.python.org for this session"},
		{"with a port and offset", `{"url":"http://example.com:8080/a","offset":2000}`, "example.com",
			"http://example.com:8080/a", "Allow example.com for this session"},
		{"a look-alike name is shown as it is spelled", `{"url":"https://аpple.com/"}`, "xn--pple-43d.com",
			"https://аpple.com/", "Allow xn--pple-43d.com for this session"},
		{"no URL", `{"offset":1}`, "this host", "", "Allow this host for this session"},
		{"not JSON", `nonsense`, "this host", "", "Allow this host for this session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			html, err := web.ApprovalHTML("toolu_9", "web_fetch", []byte(tt.input), "")
			if err != nil {
				t.Fatal(err)
			}
			d := parseHTML(t, html)
			assertCSPClean(t, d)
			if got := byTestID(d, "approval-host").Text(); got != tt.host {
				t.Errorf("host %q, want %q", got, tt.host)
			}
			if got := byTestID(d, "approval-url").Text(); got != tt.url {
				t.Errorf("url %q, want %q", got, tt.url)
			}
			if got := d.Find(`button[data-decision="session"]`).Text(); got != tt.session {
				t.Errorf("session button %q, want %q", got, tt.session)
			}
			if note := byTestID(d, "approval-note").Text(); !strings.Contains(note, "web_fetch.allowed_hosts") {
				t.Errorf("note %q does not say how to allow a host in settings", note)
			}
			if byTestID(d, "approval-command").Length() != 0 && tt.url != "" {
				t.Error("the card shows the input as JSON besides the URL")
			}
		})
	}
}
