package web_test

import (
	"strings"
	"testing"

	"myco/web"
)

func TestRenderMCPPanel(t *testing.T) {
	tests := []struct {
		name   string
		view   web.MCPPanelView
		want   []string
		unwant []string
	}{
		{
			name:   "no servers: hidden, but there for the panel event",
			view:   web.MCPPanelView{SessionID: "s1", Editable: true},
			want:   []string{`data-panel-part="mcp"`, " hidden"},
			unwant: []string{`data-testid="mcp-server"`},
		},
		{
			name: "states, reasons, tools and the switch",
			view: web.MCPPanelView{SessionID: "s1", Editable: true, Servers: []web.MCPServerView{
				{Name: "gh", State: "connected", Tools: []string{"search", "<b>"}, On: true},
				{Name: "bad", State: "failed", Reason: "could not start <x>: no such file", On: false},
				{Name: "old", State: "disabled"},
			}},
			want: []string{
				`data-server="gh" data-state="connected" data-on="true"`, "2 tools: search, &lt;b&gt;",
				`data-server="bad" data-state="failed" data-on="false"`, "could not start &lt;x&gt;",
				`data-server="old" data-state="disabled"`, "disabled in settings", `data-session-id="s1"`,
			},
			unwant: []string{"<b>", " hidden"},
		},
		{
			name:   "read-only: no switch",
			view:   web.MCPPanelView{SessionID: "s1", Servers: []web.MCPServerView{{Name: "gh", State: "connected", On: true}}},
			unwant: []string{"data-mcp-switch"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			html, err := web.RenderMCPPanel(tt.view)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(html, w) {
					t.Errorf("lacks %q:\n%s", w, html)
				}
			}
			for _, u := range tt.unwant {
				if strings.Contains(html, u) {
					t.Errorf("has %q:\n%s", u, html)
				}
			}
		})
	}
	// The switches of an editable panel: one per server that is not
	// disabled in settings.
	html, _ := web.RenderMCPPanel(tests[1].view)
	if n := strings.Count(html, "data-mcp-switch"); n != 2 {
		t.Errorf("%d switches, want 2", n)
	}
}
