package live

import (
	"context"
	"errors"
	"fmt"
	"os"

	"myco/server/llm"
	"myco/server/lsp"
	"myco/session"
)

// lsp_diagnostics: the agent reads a file's diagnostics from a language
// server (server/lsp). The rules:
//
//   - The servers are the ones found when the live session opens (PATH,
//     and ~/go/bin for gopls); the tool is offered only when one is, and
//     that choice is fixed for the live session, as the tools block is.
//   - A server starts on first use, in the file's project root (nearest
//     go.mod, package.json, … within the session's folder), with the
//     shell's environment (secrets dropped). Starting a process is an
//     action: the person is asked before a server starts (allow once,
//     allow this server for the session, deny); a running server is used
//     without asking.
//   - Plan mode allows it: a language server reads the project and
//     changes no file of it (its caches are its own). It still asks.
//   - Servers stop when idle (10 min), when the session closes and when
//     myco stops. A server that does not answer is given up on (30 s),
//     and a stop ends the wait at once.

const lspTool = "lsp_diagnostics"

var lspToolDef = llm.Tool{
	Name: lspTool,
	Description: `Get a source file's diagnostics (compile errors, type errors, warnings) from the language server for its ` +
		`language: gopls for Go, typescript-language-server for TypeScript/JavaScript, pyright for Python, rust-analyzer ` +
		`for Rust, when installed. Use it after editing a file to check it. The file is read from disk as it is now. ` +
		`The first call for a language asks the person to start its server, which can take a few seconds. ` +
		`Returns one line per diagnostic: line:column severity: message.`,
	InputSchema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"path": map[string]any{"type": "string", "description": "The file to check, relative to the shell's folder or absolute."},
		},
		"required": []string{"path"},
	},
}

// lspKey is the key in s.allowed of a server allowed for the session.
func lspKey(server string) string { return lspTool + ":" + server }

// openLSP finds the language servers for the live session; the tool is
// offered when one is. Nothing starts here.
func (s *Session) openLSP() {
	find := s.m.opts.LanguageServers
	if find == nil {
		find = lsp.Finder{Home: s.m.opts.UserHome}.Find
	}
	found := find()
	if len(found) == 0 {
		return
	}
	s.lsp.Store(lsp.NewPool(lsp.PoolOptions{
		Folder: s.folder(), Found: found,
		// Language servers run the project's build tools: the shell's
		// environment, so never the keys myco talks to providers with.
		Env: s.m.shellEnv().Apply(os.Environ()),
	}))
}

// closeLSP stops the session's language servers.
func (s *Session) closeLSP() {
	if p := s.lsp.Load(); p != nil {
		p.Close()
	}
}

func (s *Session) lspToolDef() (llm.Tool, bool) {
	return lspToolDef, s.lsp.Load() != nil
}

// LanguageServers is the /lsp listing: the installed servers with their
// states, and the known ones not installed.
func (s *Session) LanguageServers() (servers []lsp.Status, missing []lsp.Known) {
	if p := s.lsp.Load(); p != nil {
		return p.Statuses()
	}
	return []lsp.Status{}, allKnown()
}

// LSPFolder is the folder the session's language servers start under.
func (s *Session) LSPFolder() string {
	if p := s.lsp.Load(); p != nil {
		return p.Folder()
	}
	return s.folder()
}

func allKnown() []lsp.Known {
	return lsp.NewPool(lsp.PoolOptions{}).Known()
}

func (s *Session) runLSPDiagnostics(ctx context.Context, use session.Block) toolOutcome {
	var in struct {
		Path string `json:"path"`
	}
	if err := decodeInput(use.Input, &in); err != nil || in.Path == "" {
		return toolOutcome{output: `lsp_diagnostics needs {"path": "…"}, the file to check.`, isError: true}
	}
	pool := s.lsp.Load()
	if pool == nil {
		return toolOutcome{output: "lsp_diagnostics: no language server was found when the session opened.", isError: true}
	}
	t, err := s.fileTarget(in.Path) // denied paths are refused as read_file refuses them
	if err != nil {
		return fileFailed(lspTool, err)
	}
	if info, err := os.Stat(t.Path); err != nil {
		return fileFailed(lspTool, err)
	} else if info.IsDir() {
		return fileFailed(lspTool, fmt.Errorf("%s is a folder; give a file", in.Path))
	}
	target, err := pool.Target(t.Path)
	if err != nil {
		return fileFailed(lspTool, err)
	}
	if !target.Running && !s.lspAllowed(target.Found.Name) {
		a := &approval{ToolUseID: use.ID, Name: use.Name, Input: rawJSON(use.Input), allowAs: lspKey(target.Found.Name)}
		if ok, out := s.askApproval(ctx, a,
			"The person denied starting "+target.Found.Name+". Do not retry it; check the file another way (a build or test command) or ask them.",
			"Not run: the person stopped the turn."); !ok {
			return out
		}
	}
	s.enter(StatusTool, lspTool)
	diags, err := pool.Diagnostics(ctx, target, t.Path)
	switch {
	case ctx.Err() != nil:
		return toolOutcome{output: "Not checked: the person stopped the turn.", isError: true}
	case errors.Is(err, lsp.ErrClosed):
		return toolOutcome{output: "Not checked: " + err.Error() + ".", isError: true}
	case err != nil:
		return toolOutcome{output: fmt.Sprintf("lsp_diagnostics: %s (root %s): %s", target.Found.Name, target.Root, err), isError: true}
	}
	return toolOutcome{output: lsp.Format(target.Found.Name, in.Path, diags)}
}

// lspAllowed reports whether the person allowed server to start for
// this session.
func (s *Session) lspAllowed(server string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.allowed[lspKey(server)]
}
