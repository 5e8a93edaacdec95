package mcphost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"myco/internal/textcut"
	"myco/profiles"
)

// server is one configured server: its connection loop and what it last
// listed.
type server struct {
	h    *Host
	name string

	ctx    context.Context // ends when the server is stopped
	cancel context.CancelFunc
	done   chan struct{} // closed when run has returned
	// firstDone is closed when the first connection attempt ended (or
	// the server is disabled), for Tools.
	firstDone chan struct{}
	firstOnce sync.Once
	wake      chan struct{} // cuts a backoff short (Reconnect)

	mu        sync.Mutex
	cfg       profiles.MCPServer
	state     State
	reason    string
	lastError string
	session   *mcp.ClientSession
	tools     []*mcp.Tool
	stderr    *tail  // the latest connection's stderr (stdio)
	dropped   string // why a call ended the connection (drop)
	signIn    bool   // the latest connection was refused for want of a sign-in
}

func newServer(h *Host, name string, cfg profiles.MCPServer) *server {
	ctx, cancel := context.WithCancel(context.Background())
	return &server{
		h: h, name: name, cfg: cfg, ctx: ctx, cancel: cancel,
		done: make(chan struct{}), firstDone: make(chan struct{}), wake: make(chan struct{}, 1), state: Connecting,
	}
}

func (s *server) start() {
	if s.cfg.Disabled {
		s.state = Disabled
		s.firstOnce.Do(func() { close(s.firstDone) })
		close(s.done)
		return
	}
	go s.run()
}

func (s *server) stop() {
	s.cancel()
	<-s.done
}

func (s *server) config() profiles.MCPServer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg
}

// run connects, waits for the connection to end, and connects again
// after a backoff, until the server is stopped.
func (s *server) run() {
	defer close(s.done)
	failures := 0
	for {
		cs, reason := s.connect()
		s.firstOnce.Do(func() { close(s.firstDone) })
		if cs != nil {
			failures = 0
			select { // a Reconnect asked before this connection is spent
			case <-s.wake:
			default:
			}
			reason = s.serve(cs)
		}
		if s.ctx.Err() != nil {
			s.set(Disabled, "stopped", nil)
			return
		}
		s.mu.Lock()
		signIn := s.signIn
		s.mu.Unlock()
		if signIn {
			// Asking again changes nothing until the person signs in.
			s.set(NeedsSignIn, reason, nil)
			select {
			case <-s.ctx.Done():
				return
			case <-s.wake:
			}
			s.set(Connecting, reason, nil)
			continue
		}
		failures++
		s.set(Failed, reason, nil)
		s.h.log.Warn("mcp server failed", "server", s.name, "reason", reason)
		select {
		case <-s.ctx.Done():
			return
		case <-time.After(s.h.opts.Backoff(failures)):
		case <-s.wake:
		}
		s.set(Connecting, reason, nil)
	}
}

// connect starts the server and lists its tools, within its timeout.
func (s *server) connect() (*mcp.ClientSession, string) {
	cfg := s.config()
	ctx, cancel := context.WithTimeout(s.ctx, cfg.Timeout())
	defer cancel()
	tr, stderr, err := s.transport(cfg)
	if err != nil {
		return nil, err.Error()
	}
	s.mu.Lock()
	s.stderr, s.signIn = stderr, false
	s.mu.Unlock()
	client := mcp.NewClient(&mcp.Implementation{Name: "myco", Version: s.h.opts.Version}, nil)
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		return nil, failure(ctx, "could not connect", cfg, err, stderr)
	}
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			closeErr := cs.Close()
			return nil, failure(ctx, "could not list its tools", cfg, errors.Join(err, closeErr), stderr)
		}
		if len(tools) == maxTools {
			break
		}
		tools = append(tools, t)
	}
	// The session first: a caller that sees Connected can call.
	s.mu.Lock()
	s.session = cs
	s.mu.Unlock()
	s.set(Connected, "", tools)
	return cs, ""
}

// maxTools and maxDescription bound what one server adds to every
// request's tools block.
const (
	maxTools       = 128
	maxDescription = 8 << 10
)

// serve waits until the connection ends or the server is stopped, and
// says why it ended.
func (s *server) serve(cs *mcp.ClientSession) string {
	ended := make(chan error, 1)
	go func() { ended <- cs.Wait() }()
	var reason string
	select {
	case err := <-ended:
		reason = "the connection ended"
		if err != nil {
			reason += ": " + err.Error()
		}
	case <-s.ctx.Done():
	}
	s.mu.Lock()
	s.session = nil
	stderr := s.stderr
	if s.dropped != "" {
		reason, s.dropped = "a call found the connection broken: "+s.dropped, ""
	}
	s.mu.Unlock()
	// Close reaps a stdio server's process, and says how it exited.
	if err := cs.Close(); err != nil && s.ctx.Err() == nil {
		reason = "the server exited: " + err.Error()
	}
	if st := stderr.String(); st != "" {
		reason += " (stderr: " + st + ")"
	}
	return reason
}

func (s *server) set(st State, reason string, tools []*mcp.Tool) {
	s.mu.Lock()
	s.state, s.reason = st, reason
	if tools != nil || st == Connected {
		s.tools = tools
	}
	if st == Connected {
		s.lastError = ""
	}
	s.mu.Unlock()
	s.h.changed()
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.name, Transport: s.cfg.Transport(), State: s.state, Reason: s.reason, LastError: s.lastError, OAuth: usesOAuth(s.cfg)}
	if st.OAuth {
		_, st.SignedIn = s.h.grants.get(s.name, s.cfg.URL)
	}
	for _, t := range s.tools {
		st.Tools = append(st.Tools, t.Name)
	}
	return st
}

func (s *server) toolList() []Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == Disabled {
		return nil
	}
	out := make([]Tool, 0, len(s.tools))
	seen := map[string]bool{}
	for _, t := range s.tools {
		name := ToolName(s.name, t.Name)
		if seen[name] {
			continue // two tools whose names differ only in runes a provider refuses
		}
		seen[name] = true
		out = append(out, Tool{
			Name: name, Server: s.name, Tool: t.Name, Description: textcut.Bytes(t.Description, maxDescription), Schema: schemaOf(t.InputSchema),
			ReadOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint,
		})
	}
	return out
}

// call runs one tool call within the server's timeout and the caller's
// context.
func (s *server) call(ctx context.Context, tool string, args []byte) Result {
	s.mu.Lock()
	cs, cfg, state, reason := s.session, s.cfg, s.state, s.reason
	s.mu.Unlock()
	if cs == nil {
		if state == Disabled {
			return errorResult("MCP server %s is disabled in settings.", s.name)
		}
		if reason == "" {
			reason = string(state)
		}
		return errorResult("MCP server %s is not connected (%s).", s.name, reason)
	}
	var arguments any = map[string]any{}
	if len(args) > 0 {
		arguments = json.RawMessage(args)
	}
	cctx, cancel := context.WithTimeout(ctx, cfg.Timeout())
	defer cancel()
	res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: tool, Arguments: arguments})
	switch {
	case err == nil:
		return resultOf(res)
	case ctx.Err() != nil:
		return Result{Text: "Not finished: the person stopped the turn; the call was cancelled.", IsError: true}
	case cctx.Err() != nil:
		msg := fmt.Sprintf("%s timed out after %s; the call was cancelled", tool, cfg.Timeout())
		s.noteError(msg)
		return errorResult("MCP server %s: %s (settings mcp_servers.%s.timeout_s).", s.name, msg, s.name)
	default:
		msg := fmt.Sprintf("%s failed: %v", tool, err)
		s.noteError(msg)
		if wire := (*jsonrpc.Error)(nil); !errors.As(err, &wire) {
			// Not the server's answer but the connection's failure (an
			// HTTP server gone, a pipe broken): connect again rather than
			// fail every later call the same way.
			s.drop(cs, msg)
		}
		return errorResult("MCP server %s: %s", s.name, msg)
	}
}

// drop ends connection cs after a call found it broken; run then
// reconnects after its backoff.
func (s *server) drop(cs *mcp.ClientSession, reason string) {
	s.mu.Lock()
	if s.session != cs {
		s.mu.Unlock()
		return
	}
	s.session, s.dropped = nil, reason
	s.mu.Unlock()
	go cs.Close()
}

// noteError keeps a call's failure for the panel.
func (s *server) noteError(msg string) {
	s.mu.Lock()
	s.lastError = msg
	s.mu.Unlock()
	s.h.changed()
}

// failure says why a connection could not be made.
func failure(ctx context.Context, what string, cfg profiles.MCPServer, err error, stderr *tail) string {
	msg := what + ": " + err.Error()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		msg = fmt.Sprintf("%s: no answer within %s", what, cfg.Timeout())
	}
	if st := stderr.String(); st != "" {
		msg += " (stderr: " + st + ")"
	}
	return msg
}
