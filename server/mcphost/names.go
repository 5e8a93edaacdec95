package mcphost

import (
	"encoding/json"
	"strings"
)

// Prefix starts the name of every MCP tool the model is offered.
const Prefix = "mcp__"

// maxToolName is the longest tool name every provider accepts.
const maxToolName = 64

// ToolName is how tool of server is offered to the model:
// mcp__SERVER__TOOL, with runes a provider refuses replaced by _ and cut
// to maxToolName.
func ToolName(server, tool string) string {
	clean := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, tool)
	name := Prefix + server + "__" + clean
	if len(name) > maxToolName {
		name = name[:maxToolName]
	}
	return name
}

// SplitToolName gives the server of an offered name; the tool's own
// name is found in the server's list (ToolName changed it maybe).
func SplitToolName(name string) (server string, ok bool) {
	rest, ok := strings.CutPrefix(name, Prefix)
	if !ok {
		return "", false
	}
	server, _, ok = strings.Cut(rest, "__")
	return server, ok && server != ""
}

// schemaOf is a tool's input schema as a map, its keys encoded in sorted
// order (encoding/json sorts maps), so the tools block is the same bytes
// in every request. A schema the model cannot take becomes an empty
// object schema.
func schemaOf(s any) map[string]any {
	b, err := json.Marshal(s)
	if err != nil {
		return emptySchema()
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || m == nil {
		return emptySchema()
	}
	if m["type"] != "object" {
		m["type"] = "object"
	}
	return m
}

func emptySchema() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{}}
}
