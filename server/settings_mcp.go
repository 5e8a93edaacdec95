package server

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"myco/profiles"
	"myco/web"
)

// The Settings page edits each MCP server as its entry of mcp_servers,
// in JSON: one textarea per server, and a new one by name.

// mcpKeys are the keys of a server's entry, so a refused value is shown
// beside its server's textarea.
var mcpKeys = []string{"command", "args", "env", "url", "headers", "disabled", "allow", "timeout_s"}

func (s *Server) mcpSettingsViews(st profiles.Settings) []web.MCPSettingView {
	states := map[string]string{}
	reasons := map[string]string{}
	if s.mcp != nil {
		for _, ms := range s.mcp.Statuses() {
			states[ms.Name], reasons[ms.Name] = string(ms.State), ms.Reason
		}
	}
	var out []web.MCPSettingView
	for _, name := range slices.Sorted(maps.Keys(st.MCPServers)) {
		out = append(out, web.MCPSettingView{
			Field: profiles.KeyPath("mcp_servers", name), Name: name, Config: mcpJSON(st.MCPServers[name]),
			State: states[name], Reason: reasons[name],
		})
	}
	return out
}

// mcpJSON is a server's entry as the page shows it.
func mcpJSON(m profiles.MCPServer) string {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "{}"
	}
	return string(b)
}

// mcpServers writes the servers the form changed, removed or added.
func (e *settingsEdit) mcpServers(doc profiles.SettingsDoc) error {
	for _, name := range slices.Sorted(maps.Keys(e.cur.MCPServers)) {
		field := profiles.KeyPath("mcp_servers", name)
		if !e.form.Has(field) {
			continue
		}
		e.mcpFields(field, field)
		v := strings.ReplaceAll(trimmed(e.form, field), "\r\n", "\n")
		switch {
		case v == mcpJSON(e.cur.MCPServers[name]):
		case v == "":
			doc.Delete("mcp_servers", name)
		default:
			entry, err := mcpEntry(field, v)
			if err != nil {
				return err
			}
			doc.Set(entry, "mcp_servers", name)
		}
	}
	name := trimmed(e.form, "new_mcp")
	if name == "" {
		return nil
	}
	if _, ok := e.cur.MCPServers[name]; ok {
		return &formError{"new_mcp", "is a server already: change it above"}
	}
	path := profiles.KeyPath("mcp_servers", name)
	e.fields[path] = "new_mcp"
	e.mcpFields(path, "new_mcp.config")
	entry, err := mcpEntry("new_mcp.config", trimmed(e.form, "new_mcp.config"))
	if err != nil {
		return err
	}
	doc.Set(entry, "mcp_servers", name)
	return nil
}

// mcpFields maps a server's keys to the form field that holds them.
func (e *settingsEdit) mcpFields(path, field string) {
	if _, ok := e.fields[path]; !ok {
		e.fields[path] = field
	}
	for _, k := range mcpKeys {
		e.fields[profiles.KeyPath(path, k)] = field
	}
}

// mcpEntry parses a server's JSON entry from field, numbers as written.
func mcpEntry(field, text string) (map[string]any, error) {
	if text == "" {
		return nil, &formError{field, `must be a JSON object, e.g. {"command": "my-server"} or {"url": "https://…/mcp"}`}
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	var entry map[string]any
	if err := dec.Decode(&entry); err != nil || entry == nil || dec.More() {
		msg := "must be one JSON object"
		if err != nil {
			msg += ": " + err.Error()
		}
		return nil, &formError{field, msg}
	}
	return entry, nil
}

// fillMCP puts the servers the person sent back into the form.
func fillMCP(v *web.SettingsView, get func(string, *string)) {
	for i := range v.MCP {
		get(v.MCP[i].Field, &v.MCP[i].Config)
	}
	get("new_mcp", &v.NewMCP.Name)
	get("new_mcp.config", &v.NewMCP.Config)
}
