package live

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"myco/server/event"
	"myco/server/lsp"
	"myco/server/lsp/lsptest"
	"myco/session"
)

func withServers(found ...lsp.Found) func() []lsp.Found {
	return func() []lsp.Found { return found }
}

func toolNames(s *Session) []string {
	var names []string
	for _, d := range s.toolDefs() {
		names = append(names, d.Name)
	}
	return names
}

// A real turn against gopls: the model calls lsp_diagnostics on a file
// with a type error; the person is asked once to start gopls and allows
// it for the session; the error reaches the model with its line. After
// the fix, a second turn asks nothing and gets no diagnostics.
func TestLSPDiagnosticsTurn(t *testing.T) {
	gopls := lsptest.Gopls(t)
	e, _ := newGoalEnv(t)
	e.opts.LanguageServers = withServers(lsp.Found{Kind: lsp.Kinds[0], Path: gopls})
	e.write(t, "go.mod", "module example.com/demo\n\ngo 1.22\n")
	e.write(t, "main.go", "package main\n\nfunc main() {\n\tvar n int = \"five\"\n\t_ = n\n}\n")
	s := e.newSession(t)
	if !slices.Contains(toolNames(s), lspTool) {
		t.Fatalf("tools %v lack %s though gopls was found", toolNames(s), lspTool)
	}
	run := func(text string) (TurnResult, []event.ToolApproval) {
		var res TurnResult
		done := make(chan struct{})
		go func() {
			defer close(done)
			var err error
			if res, err = s.Run(context.Background(), text); err != nil {
				t.Error(err)
			}
		}()
		return res, approveAll(t, e, s, DecisionSession, done)
	}
	call := `tool:lsp_diagnostics {"path":"main.go"}`
	res, asked := run("[[steps: " + call + " ;; say:checked]]")
	if res.Failed() || len(asked) != 1 || asked[0].Tool != lspTool {
		t.Fatalf("turn %+v, asked %+v: want one approval of %s", res, asked, lspTool)
	}
	out := lastToolResult(t, s)
	if out.IsError || !strings.Contains(out.ResultText(), "main.go: 1 error") || !strings.Contains(out.ResultText(), "\n4:") {
		t.Fatalf("result %q, want the type error on line 4", out.ResultText())
	}
	servers, _ := s.LanguageServers()
	if len(servers) != 1 || servers[0].State != lsp.StateRunning || !servers[0].HasFiles {
		t.Fatalf("/lsp lists %+v, want gopls running, the folder having Go files", servers)
	}

	e.write(t, "main.go", "package main\n\nfunc main() {\n\tvar n int = 5\n\t_ = n\n}\n")
	res, asked = run("[[steps: " + call + " ;; say:clean]]")
	if res.Failed() || len(asked) != 0 {
		t.Fatalf("turn %+v, asked %+v: want no approval the second time", res, asked)
	}
	if out := lastToolResult(t, s); out.IsError || !strings.Contains(out.ResultText(), "no diagnostics") {
		t.Fatalf("result after the fix %q, want none", out.ResultText())
	}
	s.close()
	if servers, _ := s.LanguageServers(); servers[0].State != lsp.StateNotStarted {
		t.Fatalf("after close %+v, want gopls stopped", servers[0])
	}
}

func lastToolResult(t *testing.T, s *Session) session.Block {
	t.Helper()
	var last session.Block
	s.w.View(func(d *session.Document) {
		for _, m := range d.Threads[0].Messages {
			for _, b := range m.Content {
				if b.Type == session.BlockToolResult {
					last = b
				}
			}
		}
	})
	return last
}

// Without a server found, the tool is not offered and /lsp lists the
// known ones as not installed; with one, a denial starts nothing.
func TestLSPOfferedOnlyWhenFound(t *testing.T) {
	e, _ := newGoalEnv(t)
	e.opts.LanguageServers = withServers()
	s := e.newSession(t)
	if slices.Contains(toolNames(s), lspTool) {
		t.Fatalf("tools %v offer %s with no server found", toolNames(s), lspTool)
	}
	servers, missing := s.LanguageServers()
	if len(servers) != 0 || len(missing) != len(lsp.Kinds) {
		t.Fatalf("/lsp: %+v, missing %+v", servers, missing)
	}

	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	e2, _ := newGoalEnv(t)
	// A "gopls" that would only sleep: it must never start.
	e2.opts.LanguageServers = withServers(lsp.Found{Kind: lsp.Kinds[0], Path: sh})
	e2.write(t, "main.go", "package main\n")
	s2 := e2.newSession(t)
	var res TurnResult
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, _ = s2.Run(context.Background(), `[[steps: tool:lsp_diagnostics {"path":"main.go"} ;; say:ok]]`)
	}()
	asked := approveAll(t, e2, s2, DecisionDeny, done)
	if res.Failed() || len(asked) != 1 {
		t.Fatalf("turn %+v, asked %d times", res, len(asked))
	}
	out := lastToolResult(t, s2)
	if !out.IsError || !strings.Contains(out.ResultText(), "denied starting gopls") {
		t.Fatalf("result %q, want the denial", out.ResultText())
	}
	if servers, _ := s2.LanguageServers(); servers[0].State != lsp.StateNotStarted {
		t.Fatalf("after a denial %+v, want not started", servers[0])
	}
	// Bad input gets a clear error, and nothing is asked or started.
	e2.write(t, "notes.txt", "hi")
	for in, want := range map[string]string{
		`{}`:                    `needs {"path"`,
		`{"path":"nope.go"}`:    "no such file",
		`{"path":"notes.txt"}`:  "no language server myco knows checks .txt files",
		`{"path":"."}`:          "is a folder",
		`{"path":"x.py","a":1}`: `needs {"path"`,
		`{"path":"` + filepath.Join(e2.work, "..", "secrets", "k.go") + `"}`: "denied",
	} {
		out := s2.runLSPDiagnostics(context.Background(), session.Block{ID: "bad", Name: lspTool, Input: []byte(in)})
		if !out.isError || !strings.Contains(out.output, want) {
			t.Errorf("%s: %q, want an error saying %q", in, out.output, want)
		}
	}
}
