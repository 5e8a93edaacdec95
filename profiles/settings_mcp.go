package profiles

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"time"
)

// MCPServer is one MCP server the agent may use (settings mcp_servers):
// a program myco starts and talks to over stdio (Command, Args, Env), or
// a server at URL over Streamable HTTP (Headers). Values of Env and
// Headers may name myco's environment variables as ${NAME}, so a token
// need not be written in the file.
type MCPServer struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Disabled keeps the server in the file without starting it.
	Disabled bool `json:"disabled,omitempty"`
	// Allow names the server's tools the agent calls without asking
	// ("*": all of them); the others ask, as bash does.
	Allow []string `json:"allow,omitempty"`
	// TimeoutS bounds one tool call (and the connection's start), in
	// seconds; 0 means DefaultMCPTimeout.
	TimeoutS int `json:"timeout_s,omitempty"`
}

// DefaultMCPTimeout bounds a tool call of a server that sets no
// timeout_s: long enough for a search or a build, short enough that a
// hung server does not hold a turn for long.
const DefaultMCPTimeout = 60 * time.Second

// maxMCPTimeoutS is an hour: a call that needs longer is a job for bash.
const maxMCPTimeoutS = 3600

// mcpServerName is what a server may be called: its tools are offered to
// the model as mcp__NAME__TOOL, and providers accept only these runes in
// a tool's name.
var mcpServerName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// Timeout is timeout_s as a duration, DefaultMCPTimeout when unset.
func (m MCPServer) Timeout() time.Duration {
	if m.TimeoutS <= 0 {
		return DefaultMCPTimeout
	}
	return time.Duration(m.TimeoutS) * time.Second
}

// Allows reports whether the agent may call tool without asking.
func (m MCPServer) Allows(tool string) bool {
	return slices.Contains(m.Allow, "*") || slices.Contains(m.Allow, tool)
}

// Transport is "stdio" or "http", as the server is reached.
func (m MCPServer) Transport() string {
	if m.URL != "" {
		return "http"
	}
	return "stdio"
}

func (s Settings) checkMCPServers() error {
	for _, name := range slices.Sorted(maps.Keys(s.MCPServers)) {
		m, path := s.MCPServers[name], keyPath("mcp_servers", name)
		if !mcpServerName.MatchString(name) || containsDoubleUnderscore(name) {
			return &fieldError{path: path, msg: "must be named with 1 to 32 letters, digits, - and _ (no __), as its tools are mcp__NAME__TOOL"}
		}
		switch {
		case m.Command == "" && m.URL == "":
			return &fieldError{path: path, msg: `needs "command" (a program spoken to over stdio) or "url" (Streamable HTTP)`}
		case m.Command != "" && m.URL != "":
			return &fieldError{path: path, msg: `has both "command" and "url": give one`}
		case m.URL != "":
			u, err := url.Parse(m.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return &fieldError{path: keyPath(path, "url"), msg: fmt.Sprintf("must be an http or https URL, not %q", m.URL)}
			}
		}
		if m.TimeoutS < 0 || m.TimeoutS > maxMCPTimeoutS {
			return &fieldError{path: keyPath(path, "timeout_s"), msg: fmt.Sprintf("must be 1 to %d seconds (0: %s), not %d", maxMCPTimeoutS, DefaultMCPTimeout, m.TimeoutS)}
		}
	}
	return nil
}

func containsDoubleUnderscore(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i] == '_' && s[i-1] == '_' {
			return true
		}
	}
	return false
}
