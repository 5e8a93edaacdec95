package server_test

import (
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
)

// The Settings page adds, edits and removes MCP servers as JSON entries,
// and refuses a bad one beside its field, writing nothing.
func TestSettingsMCPServers(t *testing.T) {
	t.Parallel()
	ts, ls, path := newSettingsServer(t, `{"mcp_servers": {"old": {"command": "/nonexistent/old-server", "disabled": true}}}`)
	page := parseDoc(t, ts.do("GET", "/settings", nil))
	if got := page.Find(`[data-testid="settings-mcp-server"][data-server="old"] textarea`).Text(); !strings.Contains(got, `"disabled": true`) {
		t.Errorf("the old server's entry shows %q", got)
	}
	form := url.Values{
		`mcp_servers.old`: {""},
		"new_mcp":         {"docs"}, "new_mcp.config": {`{"url": "http://127.0.0.1:1/mcp", "allow": ["*"], "timeout_s": 30}`},
	}
	wantStatus(t, ts.postForm("/settings", form), http.StatusSeeOther)
	st := ls.Current()
	if _, ok := st.MCPServers["old"]; ok {
		t.Error("the emptied server is still configured")
	}
	if d := st.MCPServers["docs"]; d.URL != "http://127.0.0.1:1/mcp" || d.TimeoutS != 30 || !d.Allows("anything") {
		t.Errorf("the new server: %+v", d)
	}

	tests := []struct {
		name, field, value, says string
	}{
		{"not JSON", "mcp_servers.docs", `{"url": `, "one JSON object"},
		{"neither command nor url", "mcp_servers.docs", `{"args": ["x"]}`, `needs "command"`},
		{"bad url", "mcp_servers.docs", `{"url": "ftp://x"}`, "http or https"},
		{"bad timeout", "mcp_servers.docs", `{"url": "http://x", "timeout_s": -1}`, "seconds"},
		{"bad name", "new_mcp", "a__b", "no __"},
		{"taken name", "new_mcp", "docs", "a server already"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := os.ReadFile(path)
			form := url.Values{tt.field: {tt.value}}
			if tt.field == "new_mcp" {
				form.Set("new_mcp.config", `{"command": "x"}`)
			}
			resp := ts.postForm("/settings", form)
			wantStatus(t, resp, http.StatusUnprocessableEntity)
			d := parseDoc(t, resp)
			msg := d.Find(`[data-testid="field-error"][data-field='` + tt.field + `']`).Text()
			if !strings.Contains(msg, tt.says) {
				t.Errorf("beside %s: %q, want %q (page error %q)", tt.field, msg, tt.says, d.Find(`[data-testid="settings-error"]`).Text())
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Errorf("settings.json changed by a refused save:\n%s", after)
			}
		})
	}
}
