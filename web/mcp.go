package web

import (
	"context"
	"fmt"
	"strings"
)

// MCPPanelView is the side panel's list of the profile's MCP servers,
// as one session sees them: each server's state and tools, and whether
// the session uses it.
type MCPPanelView struct {
	SessionID string
	Editable  bool // the switch works (a live or openable session, not archived or locked)
	Servers   []MCPServerView
}

// MCPServerView is one MCP server in the panel.
type MCPServerView struct {
	Name      string
	Transport string // stdio, http
	State     string // connecting, connected, failed, disabled
	Reason    string // why it failed
	LastError string // a call's last failure, while connected
	Tools     []string
	On        bool // the session uses it (the person's switch)
	// OAuth: the server signs in with OAuth (Sign in / Sign out);
	// SignedIn: a sign-in is kept for it.
	OAuth    bool
	SignedIn bool
}

// StateText is the server's state as the panel says it.
func (s MCPServerView) StateText() string {
	switch s.State {
	case "connected":
		return "connected"
	case "connecting":
		return "connecting…"
	case "failed":
		return "failed"
	case "disabled":
		return "disabled in settings"
	case "needs_sign_in":
		return "sign-in needed"
	}
	return s.State
}

// ToolsText is a server's tools on one line.
func (s MCPServerView) ToolsText() string {
	if len(s.Tools) == 0 {
		return "no tools"
	}
	return fmt.Sprintf("%d tools: %s", len(s.Tools), strings.Join(s.Tools, ", "))
}

// RenderMCPPanel is the panel event's HTML for the MCP part alone.
func RenderMCPPanel(v MCPPanelView) (string, error) {
	var b strings.Builder
	if err := PanelMCP(v).Render(context.Background(), &b); err != nil {
		return "", fmt.Errorf("render mcp panel: %w", err)
	}
	return b.String(), nil
}
