package live

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"

	"myco/server/llm"
	"myco/server/mcphost"
	"myco/session"
)

// MCP tools. The profile's MCP servers (Options.MCP, one connection per
// server for the whole process) add their tools as mcp__SERVER__TOOL.
// The rules:
//
//   - A session fixes the tools it offers when its first request is built
//     (fixMCPTools), so the tools block at the head of the cached prefix
//     stays the same bytes for the session's life: a server that comes,
//     goes or changes its list later does not change it. A server that
//     fails keeps its tools listed; a call says it is not connected.
//   - The side panel's switch turns a server off for one session
//     (Document.MCPOff): its tools leave that session's block. It is the
//     person's act, so the block may change then; the list is fixed
//     anew at that moment too (a server added in settings since comes in).
//   - Each tool asks the person first, as bash does, unless settings
//     allow it (mcp_servers.NAME.allow) or the person allowed it for the
//     session. Plan mode refuses a tool its server does not mark
//     read-only.
//   - A result's text and images are kept as other tools' are: text as
//     the outcome, images in the image store (as read_file's).

// mcpTools are the MCP tools fixed for this session, fixing them on the
// first call.
func (s *Session) mcpTools() []mcphost.Tool {
	if p := s.mcpFixed.Load(); p != nil {
		return *p
	}
	return s.fixMCPTools()
}

// fixMCPTools takes the servers' tools as they are now.
func (s *Session) fixMCPTools() []mcphost.Tool {
	var tools []mcphost.Tool
	if h := s.m.opts.MCP; h != nil {
		tools = h.Tools(context.Background())
	}
	s.mcpFixed.Store(&tools)
	return tools
}

// mcpToolDefs are the fixed MCP tools of the servers the session has not
// turned off.
func (s *Session) mcpToolDefs() []llm.Tool {
	tools := s.mcpTools()
	if len(tools) == 0 {
		return nil
	}
	off := s.MCPOff()
	var defs []llm.Tool
	for _, t := range tools {
		if !slices.Contains(off, t.Server) {
			defs = append(defs, llm.Tool{Name: t.Name, Description: mcpDescription(t), InputSchema: t.Schema})
		}
	}
	return defs
}

// mcpDescription is the server's description of a tool, said to be an
// MCP server's, so the agent knows whose tool it calls.
func mcpDescription(t mcphost.Tool) string {
	d := strings.TrimSpace(t.Description)
	if d == "" {
		d = "(no description)"
	}
	return fmt.Sprintf("[MCP server %s, tool %s] %s", t.Server, t.Tool, d)
}

// MCPOff are the MCP servers the person turned off for this session.
func (s *Session) MCPOff() []string {
	var off []string
	s.w.View(func(d *session.Document) { off = slices.Clone(d.MCPOff) })
	return off
}

func isMCPTool(name string) bool { return strings.HasPrefix(name, mcphost.Prefix) }

// RefreshMCPTools fixes the session's MCP tools anew, after the person
// turned a server on or off for it (Document.MCPOff): the next request
// offers the tools of the servers on, as they are now.
func (s *Session) RefreshMCPTools() { s.fixMCPTools() }

// runMCP calls an MCP tool for the agent.
func (s *Session) runMCP(ctx context.Context, use session.Block) toolOutcome {
	var tool *mcphost.Tool
	for _, t := range s.mcpTools() {
		if t.Name == use.Name {
			tool = &t
			break
		}
	}
	h := s.m.opts.MCP
	switch {
	case tool == nil || h == nil:
		return toolOutcome{output: fmt.Sprintf("Unknown tool %q: no MCP server offers it to this session.", use.Name), isError: true}
	case slices.Contains(s.MCPOff(), tool.Server):
		return toolOutcome{output: fmt.Sprintf("The person turned MCP server %s off for this session; do not call its tools.", tool.Server), isError: true}
	case s.planMode() && !tool.ReadOnly:
		return toolOutcome{output: fmt.Sprintf("Refused: plan mode is on, and %s (MCP server %s) may change things; its server does not mark it read-only. "+
			"Put the call in your plan instead.", tool.Tool, tool.Server), isError: true}
	}
	if !json.Valid(use.Input) {
		return toolOutcome{output: use.Name + " needs a JSON object as its input.", isError: true}
	}
	if ok, out := s.approve(ctx, use, "MCP tool", h.Allows(tool.Server, tool.Tool)); !ok {
		return out
	}
	s.enter(StatusTool, use.Name)
	res := h.Call(ctx, tool.Server, tool.Tool, use.Input)
	out := toolOutcome{output: res.Text, isError: res.IsError}
	if len(res.Images) > 0 {
		content := []session.Block{{Type: session.BlockText, Text: res.Text}}
		for _, im := range res.Images {
			ref, err := s.m.opts.Images.Put(im.Data)
			if err != nil {
				content[0].Text += fmt.Sprintf("\n[an image of the result could not be kept: %v]", err)
				continue
			}
			content = append(content, session.Block{Type: session.BlockImage, SHA256: ref.SHA256, MediaType: ref.MediaType})
		}
		out.output = content[0].Text
		out.record = func(b *session.Block) { b.Content, _ = jsonv2.Marshal(content) }
	}
	return out
}
