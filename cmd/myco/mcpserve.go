package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"myco/export"
	"myco/internal/textcut"
	"myco/session"
)

// mcpCommand serves the profile's sessions to another agent (Claude Code,
// opencode) as an MCP server over stdio: `myco mcp [--profile P]`. It
// lists, searches and reads sessions from the store, and leaves notes
// through the running server when there is one (so open tabs show them at
// once), else in the session's document, as `myco send` does.
func mcpCommand(ctx context.Context, e env, profile string, args []string) error {
	fs := newFlagSet("myco mcp", e.stderr)
	fs.StringVar(&profile, "profile", profile, "profile name")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		fmt.Fprintf(e.stderr, "myco mcp: expected no arguments\n\n%s", usage)
		return errUsage
	}
	st, err := openStores(e, profile, false)
	if err != nil {
		return err
	}
	srv := newMycoMCP(st)
	t := &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}}
	if err := srv.Run(ctx, t); err != nil && !errors.Is(err, io.EOF) && ctx.Err() == nil {
		return fmt.Errorf("myco mcp: %w", err)
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// Bounds of what one tool answers.
const (
	mcpListDefault  = 20
	mcpListMax      = 200
	mcpReadDefault  = 64 << 10
	mcpReadMax      = 1 << 20
	mcpSearchMax    = 100
	mcpNoteMaxBytes = maxNoteInput
)

type mcpListInput struct {
	Limit    int  `json:"limit,omitempty" jsonschema:"how many sessions, newest first (default 20, at most 200)"`
	Archived bool `json:"archived,omitempty" jsonschema:"list archived sessions instead"`
}

type mcpSearchInput struct {
	Query string `json:"query" jsonschema:"the words to find in messages, scratchpads and titles"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many hits (default 20, at most 100)"`
}

type mcpReadInput struct {
	Session  string `json:"session" jsonschema:"the session's ID, a unique ID prefix, its name, or @last"`
	MaxBytes int    `json:"max_bytes,omitempty" jsonschema:"keep the last this many bytes of the transcript (default 65536, at most 1048576)"`
}

type mcpSendInput struct {
	Session string `json:"session" jsonschema:"the session's ID, a unique ID prefix, its name, or @last"`
	Text    string `json:"text" jsonschema:"the note: what the session's agent and person should know"`
	From    string `json:"from,omitempty" jsonschema:"who the note is from (default: this MCP client's name)"`
}

// mycoMCP is myco's MCP server over one profile's stores.
type mycoMCP struct {
	st *stores
}

func newMycoMCP(st *stores) *mcp.Server {
	m := &mycoMCP{st: st}
	s := mcp.NewServer(&mcp.Implementation{Name: "myco", Title: "myco sessions", Version: "1"}, &mcp.ServerOptions{
		Instructions: "myco keeps a person's agent sessions. List or search them, read one as Markdown, and leave a note for one with myco_send: " +
			"the note waits in the session and reaches its agent with the person's next message.",
	})
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(s, &mcp.Tool{Name: "myco_list", Description: "List myco sessions, newest first: ID, name, title, model, folder, messages, last activity.", Annotations: readOnly}, m.list)
	mcp.AddTool(s, &mcp.Tool{Name: "myco_search", Description: "Search myco sessions' messages, scratchpads and titles; each hit has its session ID and an excerpt.", Annotations: readOnly}, m.search)
	mcp.AddTool(s, &mcp.Tool{Name: "myco_read", Description: "Read one myco session as Markdown (its end, when long).", Annotations: readOnly}, m.read)
	mcp.AddTool(s, &mcp.Tool{Name: "myco_send", Description: "Leave a note for a myco session, e.g. the result of work done here. " +
		"It shows in the session's tab at once when myco runs, and reaches the session's agent with the person's next message."}, m.send)
	return s
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func jsonResult(v any) (*mcp.CallToolResult, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return textResult(string(b)), nil
}

type listedSession struct {
	ID        string `json:"id"`
	Name      string `json:"name,omitempty"`
	Title     string `json:"title"`
	Model     string `json:"model,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
	Messages  int    `json:"messages"`
	UpdatedAt string `json:"updated_at"`
	Damaged   string `json:"damaged,omitempty"`
}

func (m *mycoMCP) list(_ context.Context, _ *mcp.CallToolRequest, in mcpListInput) (*mcp.CallToolResult, any, error) {
	// A page of the listing: the rest of it is not decoded.
	limit := bounded(in.Limit, mcpListDefault, mcpListMax)
	sums, _, err := m.st.sessions.ListPage(session.ListOptions{Archived: in.Archived}, 0, limit)
	if err != nil {
		return nil, nil, err
	}
	out := []listedSession{}
	for _, s := range sums {
		out = append(out, listedSession{
			ID: s.ID, Name: s.Name, Title: s.Title, Model: s.Model, Cwd: s.Cwd, Messages: s.Messages,
			UpdatedAt: s.UpdatedAt.UTC().Format("2006-01-02T15:04:05Z"), Damaged: s.Damaged,
		})
	}
	res, err := jsonResult(out)
	return res, nil, err
}

func (m *mycoMCP) search(_ context.Context, _ *mcp.CallToolRequest, in mcpSearchInput) (*mcp.CallToolResult, any, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, nil, errors.New("query is empty")
	}
	hits, err := m.st.sessions.Search(in.Query, bounded(in.Limit, mcpListDefault, mcpSearchMax))
	if err != nil {
		return nil, nil, err
	}
	if hits == nil {
		hits = []session.Hit{}
	}
	res, err := jsonResult(hits)
	return res, nil, err
}

func (m *mycoMCP) read(_ context.Context, _ *mcp.CallToolRequest, in mcpReadInput) (*mcp.CallToolResult, any, error) {
	id, err := m.st.sessions.Resolve(strings.TrimSpace(in.Session))
	if err != nil {
		return nil, nil, err
	}
	doc, err := m.st.sessions.Load(id)
	if err != nil {
		return nil, nil, err
	}
	md, err := export.Render(doc, export.Markdown, nil)
	if err != nil {
		return nil, nil, err
	}
	limit := bounded(in.MaxBytes, mcpReadDefault, mcpReadMax)
	text := string(md)
	if len(text) > limit {
		kept := textcut.TailBytes(text, limit)
		text = fmt.Sprintf("[the first %d bytes of session %s are left out; ask with a larger max_bytes for more]\n\n%s", len(text)-len(kept), id, kept)
	}
	return textResult(text), nil, nil
}

func (m *mycoMCP) send(ctx context.Context, req *mcp.CallToolRequest, in mcpSendInput) (*mcp.CallToolResult, any, error) {
	text := strings.TrimSpace(in.Text)
	switch {
	case text == "":
		return nil, nil, errors.New("text is empty")
	case len(text) > mcpNoteMaxBytes:
		return nil, nil, fmt.Errorf("the note is longer than %d bytes", mcpNoteMaxBytes)
	}
	id, err := m.st.sessions.Resolve(strings.TrimSpace(in.Session))
	if err != nil {
		return nil, nil, err
	}
	from := strings.TrimSpace(in.From)
	if from == "" {
		from = clientName(req)
	}
	if info, ok := liveServer(m.st.profile); ok && answers(info) {
		err = postNote(ctx, info, id, from, text)
	} else {
		err = retryLocked(ctx, lockWait, func() error { return storeNote(m.st.sessions, id, from, text) })
	}
	if err != nil {
		return nil, nil, err
	}
	return textResult("Note left for session " + id + "."), nil, nil
}

// clientName names the agent that sends a note: its MCP client's name.
func clientName(req *mcp.CallToolRequest) string {
	if req != nil && req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			return textcut.Runes(p.ClientInfo.Name, 60) + " (MCP)"
		}
	}
	return "an MCP client"
}

func bounded(n, def, most int) int {
	if n <= 0 {
		return def
	}
	return min(n, most)
}
