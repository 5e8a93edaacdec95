package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myco/profiles"
	"myco/server/event"
	"myco/session"
)

func TestMemoryLine(t *testing.T) {
	tests := []struct{ fact, want string }{
		{"Run the tests with task test.", "- Run the tests with task test.\n"},
		{"  Build:\n\n  go build ./...  \n", "- Build:\n    go build ./...\n"},
		{"one\r\ntwo", "- one\n  two\n"},
	}
	for _, tt := range tests {
		if got := memoryLine(tt.fact); got != tt.want {
			t.Errorf("memoryLine(%q) = %q, want %q", tt.fact, got, tt.want)
		}
	}
}

// remember asks with the memory file's diff, writes the fact in the
// project's root (not the session's subfolder), and a later session
// reads it after the instruction files; the session that saved it keeps
// its prompt until /init reload.
func TestRememberSavesForLaterSessions(t *testing.T) {
	e, fake := newGoalEnv(t)
	put(t, e.work, map[string]string{".git/": "", "AGENTS.md": "Project rules.", "svc/": ""})
	root := e.work
	e.work = filepath.Join(root, "svc") // the session works in a subfolder
	s := e.newSession(t)
	runTurn(t, s, "first")

	done := make(chan error, 1)
	go func() {
		r, err := s.Run(context.Background(), `save it [[tool:remember {"fact":"Tests run with `+"`task test`"+`."}]]`)
		if err == nil && r.Failed() {
			err = fmt.Errorf("turn failed: %+v", r)
		}
		done <- err
	}()
	a := e.events.next(t, "tool.approval").data.(event.ToolApproval)
	mem := filepath.Join(root, ".myco", "memory.md")
	if !strings.Contains(a.Diff, "+- Tests run with `task test`.") || !strings.Contains(a.Diff, mem) || !strings.Contains(string(a.Input), mem) {
		t.Errorf("approval: input %s, diff:\n%s", a.Input, a.Diff)
	}
	if _, err := os.Stat(mem); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("memory written before approval: %v", err)
	}
	if err := s.Approve(a.ToolUseID, DecisionSession); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(mem)
	if err != nil || !strings.HasPrefix(string(got), memoryHead) || !strings.HasSuffix(string(got), "- Tests run with `task test`.\n") {
		t.Fatalf("memory file %q, %v", got, err)
	}
	if r := lastResult(t, s); r.IsError || !strings.Contains(r.ResultText(), "Saved to "+mem) {
		t.Errorf("result %s", r.ResultText())
	}
	// Allowed for the session: the second fact is added at once.
	runTurn(t, s, `second [[tool:remember {"fact":"Lint:\n\ntask lint"}]]`)
	if got, _ := os.ReadFile(mem); !strings.HasSuffix(string(got), "- Tests run with `task test`.\n- Lint:\n  task lint\n") {
		t.Errorf("after the second fact: %q", got)
	}
	sys := agentSystems(t, fake)
	if strings.Contains(sys[len(sys)-1], "task test") || sys[len(sys)-1] != sys[0] {
		t.Errorf("the session that saved the fact changed its system prompt:\n%s", sys[len(sys)-1])
	}

	later := e.newSession(t)
	runTurn(t, later, "third")
	sys = agentSystems(t, fake)
	last := sys[len(sys)-1]
	if i, j := strings.Index(last, "Project rules."), strings.Index(last, "Tests run with `task test`."); i < 0 || j < i {
		t.Fatalf("a later session's prompt: want AGENTS.md then the memory:\n%s", last)
	}
}

func TestRememberRefusals(t *testing.T) {
	e := newFileEnv(t, func(o *Options) {
		withSettings(o, func(st *profiles.Settings) { st.Approvals.Memory = profiles.ApprovalAllow })
	})
	s := e.newSession(t)
	wantOutcome(t, run(t, s, rememberTool, map[string]any{"fact": "  "}), true, `remember needs {"fact"`)
	wantOutcome(t, run(t, s, rememberTool, map[string]any{"fact": "x", "path": "/etc/passwd"}), true, `remember needs`)
	wantOutcome(t, run(t, s, rememberTool, map[string]any{"fact": strings.Repeat("x", maxMemoryFact+1)}), true, "at most 2000")

	// A full memory file is not grown further.
	put(t, e.work, map[string]string{".myco/memory.md": strings.Repeat("- a fact\n", maxMemoryFile/9)})
	wantOutcome(t, run(t, s, rememberTool, map[string]any{"fact": "one more fact"}), true, "would pass 32 KB", "Nothing was saved")

	// A link where the memory file is, to a denied place, is refused.
	if err := os.Remove(filepath.Join(e.work, ".myco", "memory.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(e.profile, filepath.Join(e.work, ".myco", "memory.md")); err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, run(t, s, rememberTool, map[string]any{"fact": "sneaky"}), true, "denied")

	// Allowed by settings, it asks no one; in plan mode it is refused.
	if err := os.Remove(filepath.Join(e.work, ".myco", "memory.md")); err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, run(t, s, rememberTool, map[string]any{"fact": "allowed"}), false, "Saved")
	if _, err := s.SetMode(ModePlan); err != nil {
		t.Fatal(err)
	}
	out := s.runTool(context.Background(), toolUse(rememberTool, map[string]any{"fact": "in plan"}))
	if !out.isError || !strings.Contains(out.output, "plan mode") {
		t.Errorf("plan mode: %+v", out)
	}
	if got := e.read(t, ".myco/memory.md"); strings.Contains(got, "in plan") {
		t.Errorf("saved in plan mode: %q", got)
	}
}

// The side panel's editor: read, write with the sha256 read, and a write
// over a change made meanwhile refused.
func TestMemoryReadWrite(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	m, err := s.ReadMemory()
	if err != nil || m.Exists || m.Text != "" || m.Path != filepath.Join(e.work, ".myco", "memory.md") {
		t.Fatalf("empty memory: %+v, %v", m, err)
	}
	m, err = s.WriteMemory("- a fact\n", m.SHA256)
	if err != nil || !m.Exists {
		t.Fatalf("write: %+v, %v", m, err)
	}
	if got := e.read(t, ".myco/memory.md"); got != "- a fact\n" {
		t.Errorf("file %q", got)
	}
	var files []session.Instruction
	s.w.View(func(d *session.Document) { files = d.Instructions })
	if len(files) == 0 || files[len(files)-1].Path != m.Path {
		t.Errorf("the write did not reload the instructions: %+v", files)
	}
	stale := m.SHA256
	put(t, e.work, map[string]string{".myco/memory.md": "- changed in an editor\n"})
	if _, err := s.WriteMemory("- mine\n", stale); !errors.Is(err, ErrMemoryChanged) {
		t.Errorf("write over a change: %v", err)
	}
	if got := e.read(t, ".myco/memory.md"); got != "- changed in an editor\n" {
		t.Errorf("file %q", got)
	}
	if _, err := s.WriteMemory(strings.Repeat("x", maxMemoryFile+1), ""); !errors.Is(err, ErrMemoryTooLarge) {
		t.Errorf("too large: %v", err)
	}
}
