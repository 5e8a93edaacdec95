package web

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"myco/session"
)

// The panel names each instruction file as the person finds it from the
// session's folder, with its size and what became of it.
func TestInstructionViews(t *testing.T) {
	doc := &session.Document{Cwd: "/src/repo/svc", Instructions: []session.Instruction{
		{Path: "/home/ana/.config/myco/AGENTS.md", Bytes: 120, SHA256: "a"},
		{Path: "/src/repo/AGENTS.md", Bytes: 40_000, SHA256: "b", Cut: true, Kept: 32_768},
		{Path: "/src/repo/CLAUDE.md", Bytes: 40_000, SHA256: "b", SameAs: "/src/repo/AGENTS.md"},
		{Path: "/src/repo/svc/AGENTS.md", Bytes: 2_100, SHA256: "c"},
		{Path: "/src/repo/svc/MYCO.md", Skipped: "denied: it is inside ~/secret (settings denied_paths)"},
	}}
	want := []InstructionView{
		{Path: "/home/ana/.config/myco/AGENTS.md", Full: "/home/ana/.config/myco/AGENTS.md", Size: "120 bytes", Loaded: true},
		{Path: "../AGENTS.md", Full: "/src/repo/AGENTS.md", Size: "40.0 KB", Note: "cut to its first 32.8 KB", Loaded: true, Cut: true},
		{Path: "../CLAUDE.md", Full: "/src/repo/CLAUDE.md", Size: "40.0 KB", Note: "same text as ../AGENTS.md, read once"},
		{Path: "AGENTS.md", Full: "/src/repo/svc/AGENTS.md", Size: "2.1 KB", Loaded: true},
		{Path: "MYCO.md", Full: "/src/repo/svc/MYCO.md", Note: "not read: denied: it is inside ~/secret (settings denied_paths)"},
	}
	if diff := cmp.Diff(want, instructionViews(doc)); diff != "" {
		t.Errorf("views (-want +got):\n%s", diff)
	}
}
