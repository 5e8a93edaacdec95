package live

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"myco/e2e/fakellm"
	"myco/profiles"
	"myco/server/tools"
	"myco/session"
)

// put writes files under root: name → content ("" makes a folder).
func put(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// What goes into the prompt from which files, in which order, and what
// the side panel is told of each.
func TestReadInstructions(t *testing.T) {
	big := strings.Repeat("x", maxInstructionFile+100)
	type file struct {
		Path    string // relative to the test's root
		Cut     bool
		SameAs  string
		Skipped bool
	}
	tests := []struct {
		name     string
		files    map[string]string
		folder   string // the session's folder, under the root
		personal string // the person's own file, under the root
		denied   []string
		want     []file
		inText   []string // in the prompt's text, in this order
		notText  []string
	}{
		{
			name:   "none",
			files:  map[string]string{"repo/.git/": "", "repo/README.md": "hi"},
			folder: "repo",
		},
		{
			name: "root down to the folder, and in a folder AGENTS, CLAUDE, MYCO",
			files: map[string]string{
				"AGENTS.md":              "above the repository",
				"repo/.git/":             "",
				"repo/MYCO.md":           "root myco",
				"repo/AGENTS.md":         "root agents",
				"repo/CLAUDE.md":         "root claude",
				"repo/svc/api/AGENTS.md": "api agents",
				"repo/svc/CLAUDE.md":     "svc claude",
			},
			folder: "repo/svc/api",
			want: []file{
				{Path: "repo/AGENTS.md"}, {Path: "repo/CLAUDE.md"}, {Path: "repo/MYCO.md"},
				{Path: "repo/svc/CLAUDE.md"}, {Path: "repo/svc/api/AGENTS.md"},
			},
			inText:  []string{"the later one wins", "root agents", "root claude", "root myco", "svc claude", "api agents"},
			notText: []string{"above the repository"},
		},
		{
			name:   "a worktree's .git file marks the root",
			files:  map[string]string{"wt/.git": "gitdir: /elsewhere", "wt/AGENTS.md": "wt agents", "wt/sub/AGENTS.md": "sub agents", "AGENTS.md": "outside"},
			folder: "wt/sub",
			want:   []file{{Path: "wt/AGENTS.md"}, {Path: "wt/sub/AGENTS.md"}},
		},
		{
			name:   "no repository: the session's folder alone",
			files:  map[string]string{"AGENTS.md": "above", "plain/AGENTS.md": "here"},
			folder: "plain",
			want:   []file{{Path: "plain/AGENTS.md"}},
		},
		{
			name:     "the person's own first",
			files:    map[string]string{"config/myco/AGENTS.md": "mine", "p/AGENTS.md": "project"},
			folder:   "p",
			personal: "config/myco/AGENTS.md",
			want:     []file{{Path: "config/myco/AGENTS.md"}, {Path: "p/AGENTS.md"}},
			inText:   []string{"mine", "project"},
		},
		{
			name:     "the person's own missing",
			files:    map[string]string{"p/AGENTS.md": "project"},
			folder:   "p",
			personal: "config/myco/AGENTS.md",
			want:     []file{{Path: "p/AGENTS.md"}},
		},
		{
			name:    "the same text goes in once",
			files:   map[string]string{"p/AGENTS.md": "same words", "p/CLAUDE.md": "same words", "p/MYCO.md": "other words"},
			folder:  "p",
			want:    []file{{Path: "p/AGENTS.md"}, {Path: "p/CLAUDE.md", SameAs: "p/AGENTS.md"}, {Path: "p/MYCO.md"}},
			inText:  []string{"same words", "other words"},
			notText: []string{"/p/CLAUDE.md\""},
		},
		{
			name:   "a file over the limit is cut, with a note",
			files:  map[string]string{"p/AGENTS.md": big},
			folder: "p",
			want:   []file{{Path: "p/AGENTS.md", Cut: true}},
			inText: []string{"myco cut this file here"},
		},
		{
			name: "over the total, the broadest files are cut first",
			files: map[string]string{
				"r/.git/": "", "r/AGENTS.md": big, "r/a/AGENTS.md": big[1:], "r/a/b/AGENTS.md": "nearest",
			},
			folder: "r/a/b",
			want:   []file{{Path: "r/AGENTS.md", Cut: true}, {Path: "r/a/AGENTS.md", Cut: true}, {Path: "r/a/b/AGENTS.md"}},
			inText: []string{"nearest"},
		},
		{
			name:    "a denied file is never read",
			files:   map[string]string{"p/.git/": "", "p/AGENTS.md": "project", "p/secret/AGENTS.md": "secret words"},
			folder:  "p/secret",
			denied:  []string{"p/secret"},
			want:    []file{{Path: "p/AGENTS.md"}, {Path: "p/secret/AGENTS.md", Skipped: true}},
			notText: []string{"secret words"},
		},
		{
			name:    "empty and binary files",
			files:   map[string]string{"p/AGENTS.md": "  \n", "p/CLAUDE.md": "a\x00b", "p/MYCO.md/": ""},
			folder:  "p",
			want:    []file{{Path: "p/CLAUDE.md", Skipped: true}, {Path: "p/MYCO.md", Skipped: true}},
			notText: []string{"a\x00b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			put(t, root, tt.files)
			var denied []string
			for _, d := range tt.denied {
				denied = append(denied, filepath.Join(root, d))
			}
			personal := ""
			if tt.personal != "" {
				personal = filepath.Join(root, tt.personal)
			}
			in := readInstructions(filepath.Join(root, tt.folder), personal, tools.NewDenied(denied, root, ""))
			var got []file
			for _, f := range in.files {
				rel, _ := filepath.Rel(root, f.Path)
				same := ""
				if f.SameAs != "" {
					same, _ = filepath.Rel(root, f.SameAs)
				}
				got = append(got, file{Path: rel, Cut: f.Cut, SameAs: same, Skipped: f.Skipped != ""})
				if f.Loaded() && (f.SHA256 == "" || f.Bytes == 0) {
					t.Errorf("%s read without its size and hash: %+v", rel, f)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if len(in.text) > maxInstructionTotal+4096 {
				t.Errorf("the text is %d bytes, over the total", len(in.text))
			}
			at := 0
			for _, w := range tt.inText {
				i := strings.Index(in.text[at:], w)
				if i < 0 {
					t.Fatalf("%q not in the text after byte %d:\n%s", w, at, in.text)
				}
				at += i
			}
			for _, w := range tt.notText {
				if strings.Contains(in.text, w) {
					t.Errorf("%q is in the text", w)
				}
			}
			if len(tt.want) == 0 && in.text != "" {
				t.Errorf("no file, yet the text is %q", in.text)
			}
		})
	}
}

// systemOf is the system prompt of a recorded Anthropic request, as sent.
func systemOf(t *testing.T, r fakellm.Recorded) string {
	t.Helper()
	var top struct {
		System []struct {
			Text string `json:"text"`
		} `json:"system"`
	}
	if err := json.Unmarshal(r.Body, &top); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, s := range top.System {
		b.WriteString(s.Text)
	}
	return b.String()
}

// agentSystems are the system prompts of the agent's calls so far.
func agentSystems(t *testing.T, fake *fakellm.Server) []string {
	t.Helper()
	var out []string
	for _, r := range fake.Requests() {
		if r.JSON != nil && r.JSON["tools"] != nil {
			out = append(out, systemOf(t, r))
		}
	}
	return out
}

func runTurn(t *testing.T, s *Session, text string) {
	t.Helper()
	r, err := s.Run(context.Background(), text)
	if err != nil || r.Failed() {
		t.Fatalf("turn %q: %+v, %v", text, r, err)
	}
}

// The instructions are read once: two requests of a session send the
// same system bytes, a changed AGENTS.md among them; /init reload (and a
// reopen) picks the change up, and records it for the side panel.
func TestInstructionsStayUntilReload(t *testing.T) {
	e, fake := newGoalEnv(t)
	personal := filepath.Join(t.TempDir(), "myco", "AGENTS.md")
	put(t, filepath.Dir(personal), map[string]string{"AGENTS.md": "Call me Ana."})
	e.opts.PersonalInstructions = personal
	e.write(t, "AGENTS.md", "Run the tests with go test ./...")
	e.write(t, "CLAUDE.md", "Run the tests with go test ./...")
	s := e.newSession(t)

	runTurn(t, s, "first")
	runTurn(t, s, "second [[tool:read_file {\"path\":\"AGENTS.md\"}]]")
	e.write(t, "AGENTS.md", "Run the tests with task test.")
	runTurn(t, s, "third")
	sys := agentSystems(t, fake)
	if len(sys) < 4 {
		t.Fatalf("%d agent calls, want 4", len(sys))
	}
	for i := 1; i < len(sys); i++ {
		if sys[i] != sys[0] {
			t.Fatalf("call %d's system prompt differs from the first's:\n%s\n---\n%s", i+1, sys[0], sys[i])
		}
	}
	first := sys[0]
	if strings.Index(first, "Call me Ana.") > strings.Index(first, "go test ./...") || strings.Count(first, "go test ./...") != 1 {
		t.Fatalf("system prompt: want the person's file, then AGENTS.md once:\n%s", first)
	}

	files, err := s.ReloadInstructions()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 || files[1].SHA256 == files[2].SHA256 || files[2].SameAs != "" {
		t.Fatalf("reloaded %+v: want the person's file, AGENTS.md and CLAUDE.md, now different", files)
	}
	runTurn(t, s, "fourth")
	sys = agentSystems(t, fake)
	last := sys[len(sys)-1]
	if !strings.Contains(last, "task test") || !strings.Contains(last, "go test ./...") {
		t.Fatalf("after /init reload the system prompt is:\n%s", last)
	}
	var recorded []session.Instruction
	s.w.View(func(d *session.Document) { recorded = d.Instructions })
	if diff := cmp.Diff(files, recorded); diff != "" {
		t.Errorf("the document's instructions (-reloaded +recorded):\n%s", diff)
	}

	// A reopened session reads the files again.
	e.write(t, "MYCO.md", "Answer in French.")
	s.m.Release(s.ID())
	again := e.open(t, s.ID())
	runTurn(t, again, "fifth")
	sys = agentSystems(t, fake)
	if last := sys[len(sys)-1]; !strings.Contains(last, "Answer in French.") {
		t.Fatalf("the reopened session's system prompt does not carry MYCO.md:\n%s", last)
	}
}

// A sub-agent started with fork takes its parent's instructions as they
// were read, though the file changed since: its first request starts with
// the parent's bytes.
func TestSubagentKeepsParentInstructions(t *testing.T) {
	e, fake := newSubagentEnv(t, profiles.Subagents{MaxDepth: 2, MaxRunning: 2})
	e.write(t, "AGENTS.md", "Keep answers short.")
	s := e.newSession(t)
	runTurn(t, s, "hello")
	e.write(t, "AGENTS.md", "Changed on disk.")
	runTurn(t, s, taskCall(t, "look", "⟦say:found it⟧", true)+" "+taskCall(t, "look again", "⟦say:found it too⟧", false))
	sys := agentSystems(t, fake)
	for i, x := range sys {
		if !strings.Contains(x, "Keep answers short.") || strings.Contains(x, "Changed on disk.") {
			t.Errorf("call %d of %d: want the parent's instructions as first read:\n%s", i+1, len(sys), x)
		}
	}
	if len(sys) < 5 {
		t.Errorf("%d agent calls, want the parent's 3 and one per sub-agent", len(sys))
	}
}
