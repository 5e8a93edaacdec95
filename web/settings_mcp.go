package web

import (
	"strconv"
	"strings"
)

// MCPSettingView is one MCP server on the Settings page: its entry of
// mcp_servers as JSON, edited whole, and its state now.
type MCPSettingView struct {
	Field  string // mcp_servers.NAME
	Name   string
	Config string // the entry as indented JSON
	State  string // connected, failed, … ("" for a new one)
	Reason string
}

// Rows is how tall the entry's textarea is: the whole entry, within reason.
func (m MCPSettingView) Rows() string {
	n := strings.Count(m.Config, "\n") + 2
	return strconv.Itoa(min(max(n, 4), 16))
}
