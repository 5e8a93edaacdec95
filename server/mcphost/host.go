// Package mcphost connects the profile's MCP servers (settings
// mcp_servers) and calls their tools for the agent. One Host serves the
// whole server process: one connection per configured server, shared by
// every session of the profile.
//
// Servers are started when the Host is configured (at myco's start and
// when settings change), not at their first use: a session fixes its
// tools when its first request is built, and a server that starts lazily
// would put its start (often seconds: npx, a container) in front of that
// request, and show a broken server only then. The panel shows each
// server's state from the start instead.
//
// A server that drops its connection keeps the tools it listed (sessions
// offer them for their whole life, for the prompt cache); a call then
// says the server is not connected and why, while the Host reconnects
// with a growing backoff. No call waits longer than the server's
// timeout_s, a result is cut at MaxResultBytes, and the caller's context
// (a stop of the turn) cancels a call.
package mcphost

import (
	"cmp"
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"myco/profiles"
)

// State is where a server's connection stands.
type State string

const (
	Connecting State = "connecting"
	Connected  State = "connected"
	Failed     State = "failed"
	Disabled   State = "disabled"
	// NeedsSignIn: the server answered 401 and the person has not signed
	// in (or its grant was refused); it waits for Login, not a backoff.
	NeedsSignIn State = "needs_sign_in"
)

// Status is one configured server as the panel shows it.
type Status struct {
	Name      string
	Transport string // "stdio" or "http"
	State     State
	// Reason says why a server failed (or, connected again, why it last
	// failed to answer a call: LastError).
	Reason    string
	LastError string
	Tools     []string // the server's own tool names, as it listed them
	// OAuth: the server may sign in (an HTTP server without its own
	// Authorization header); SignedIn: a grant is saved for it.
	OAuth    bool
	SignedIn bool
}

// Tool is one tool of a server, as the model is offered it.
type Tool struct {
	Name        string // mcp__SERVER__TOOL
	Server      string
	Tool        string // the server's own name for it
	Description string
	Schema      map[string]any
	// ReadOnly: the server says the tool changes nothing (its
	// readOnlyHint), so plan mode may call it.
	ReadOnly bool
}

// Options configure a Host.
type Options struct {
	Logger *slog.Logger
	// OnChange is told (in its own goroutine, never holding the Host's
	// lock) when a server's state or tools change, for the panel.
	OnChange func()
	// Environ is the environment a stdio server starts with, before its
	// own env; nil: none but its own (the server passes the same filtered
	// environment the agent's shell gets).
	Environ func() []string
	// Getenv expands ${NAME} in env and headers values; nil: nothing
	// expands.
	Getenv func(string) string
	// Backoff is the wait before a reconnection after attempt failures
	// in a row (1, 2, …); nil: 1 s doubling up to a minute.
	Backoff func(attempt int) time.Duration
	// ConnectWait bounds how long Tools waits for servers still making
	// their first connection (5 s).
	ConnectWait time.Duration
	// Version is myco's, sent to servers with the client's name.
	Version string
	// GrantsPath is the file OAuth sign-ins are kept in (0600); "" keeps
	// them for the process only.
	GrantsPath string
}

// Host holds the connections to the profile's MCP servers.
type Host struct {
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	servers map[string]*server
	closed  bool

	grants  *grants
	flowsMu sync.Mutex
	flows   map[string]*flow // sign-ins waiting for their callback, by state
}

// New returns a Host with no servers; Configure starts them.
func New(opts Options) *Host {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Backoff == nil {
		opts.Backoff = defaultBackoff
	}
	if opts.ConnectWait == 0 {
		opts.ConnectWait = 5 * time.Second
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	return &Host{opts: opts, log: opts.Logger, servers: map[string]*server{}, grants: loadGrants(opts.GrantsPath), flows: map[string]*flow{}}
}

func defaultBackoff(attempt int) time.Duration {
	d := time.Second << min(attempt-1, 6)
	return min(d, time.Minute)
}

// Configure makes the Host's servers those of cfg: a new server starts,
// one whose settings changed restarts, one no longer named stops.
func (h *Host) Configure(cfg map[string]profiles.MCPServer) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	var stop []*server
	for name, s := range h.servers {
		c, ok := cfg[name]
		if !ok || !sameConnection(c, s.config()) {
			stop = append(stop, s)
			delete(h.servers, name)
			continue
		}
		s.mu.Lock()
		s.cfg = c // allow and timeout_s take effect without a restart
		s.mu.Unlock()
	}
	for _, name := range slices.Sorted(maps.Keys(cfg)) {
		if _, ok := h.servers[name]; ok {
			continue
		}
		s := newServer(h, name, cfg[name])
		h.servers[name] = s
		s.start()
	}
	h.mu.Unlock()
	for _, s := range stop {
		s.stop()
	}
	if len(stop) > 0 {
		h.changed()
	}
}

// Reconnect makes a failed server try again now rather than after its
// backoff; false: no such server.
func (h *Host) Reconnect(name string) bool {
	s := h.get(name)
	if s == nil {
		return false
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return true
}

// Close stops every server and waits for their processes to end.
func (h *Host) Close() {
	h.mu.Lock()
	h.closed = true
	all := slices.Collect(maps.Values(h.servers))
	h.servers = map[string]*server{}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(s.stop)
	}
	wg.Wait()
}

// Statuses are the configured servers, by name.
func (h *Host) Statuses() []Status {
	var out []Status
	for _, s := range h.list() {
		out = append(out, s.status())
	}
	return out
}

// Tools are the tools of every enabled server, in a fixed order (by
// server, then as the server listed them). It waits, up to ConnectWait
// and while ctx lasts, for servers still making their first connection,
// so a session that starts with myco sees their tools.
func (h *Host) Tools(ctx context.Context) []Tool {
	ctx, cancel := context.WithTimeout(ctx, h.opts.ConnectWait)
	defer cancel()
	var out []Tool
	for _, s := range h.list() {
		select {
		case <-s.firstDone:
		case <-ctx.Done():
		}
		out = append(out, s.toolList()...)
	}
	return out
}

// Allows reports whether settings let the agent call tool of server
// without asking.
func (h *Host) Allows(server, tool string) bool {
	s := h.get(server)
	return s != nil && s.config().Allows(tool)
}

// Call calls tool of server with args (a JSON object). A failure of any
// kind comes back as an error Result, saying what went wrong, never as a
// hang: it is the tool's outcome for the agent.
func (h *Host) Call(ctx context.Context, server, tool string, args []byte) Result {
	s := h.get(server)
	if s == nil {
		return errorResult("MCP server %q is no longer configured (settings mcp_servers).", server)
	}
	return s.call(ctx, tool, args)
}

func (h *Host) get(name string) *server {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.servers[name]
}

func (h *Host) list() []*server {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := slices.Collect(maps.Values(h.servers))
	slices.SortFunc(out, func(a, b *server) int { return cmp.Compare(a.name, b.name) })
	return out
}

func (h *Host) changed() {
	if h.opts.OnChange != nil {
		go h.opts.OnChange()
	}
}

// sameConnection reports whether a and b start the same server the
// same way.
func sameConnection(a, b profiles.MCPServer) bool {
	return a.Command == b.Command && slices.Equal(a.Args, b.Args) && maps.Equal(a.Env, b.Env) &&
		a.URL == b.URL && maps.Equal(a.Headers, b.Headers) && a.Disabled == b.Disabled
}
