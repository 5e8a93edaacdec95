package profiles_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myco/profiles"
)

func TestMCPServersSettings(t *testing.T) {
	tests := []struct {
		name, file, wantErr string
	}{
		{name: "stdio and http", file: `{"mcp_servers": {"gh": {"command": "npx", "args": ["-y", "x"], "env": {"T": "${T}"}, "allow": ["*"]}, "docs": {"url": "https://d.example/mcp", "headers": {"A": "b"}, "timeout_s": 5}}}`},
		{name: "disabled", file: `{"mcp_servers": {"off": {"command": "x", "disabled": true}}}`},
		{name: "neither", file: `{"mcp_servers": {"x": {"args": ["a"]}}}`, wantErr: `needs "command"`},
		{name: "both", file: `{"mcp_servers": {"x": {"command": "a", "url": "http://b"}}}`, wantErr: "has both"},
		{name: "bad url", file: `{"mcp_servers": {"x": {"url": "file:///x"}}}`, wantErr: "http or https"},
		{name: "bad name", file: `{"mcp_servers": {"a b": {"command": "x"}}}`, wantErr: "must be named"},
		{name: "double underscore", file: `{"mcp_servers": {"a__b": {"command": "x"}}}`, wantErr: "no __"},
		{name: "timeout too long", file: `{"mcp_servers": {"x": {"command": "x", "timeout_s": 7200}}}`, wantErr: "timeout_s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := profiles.LoadSettings(path)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(s.MCPServers) == 0 {
					t.Error("no servers read")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want %q", err, tt.wantErr)
			}
		})
	}
	m := profiles.MCPServer{Allow: []string{"search"}}
	if !m.Allows("search") || m.Allows("write") || m.Timeout() != 60*time.Second || m.Transport() != "stdio" {
		t.Errorf("helpers of %+v", m)
	}
}
