package custom

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSplitFrontmatter(t *testing.T) {
	tests := []struct {
		name, text string
		want       frontmatter
		body       string
		err        string
	}{
		{name: "none", text: "Just a body\n", body: "Just a body\n"},
		{name: "yaml", text: "---\ndescription: Review it\nmodel: anthropic/x\nallowed-tools: Bash(git add:*), Read\n---\nBody\n",
			want: frontmatter{Description: "Review it", Model: "anthropic/x", AllowedTools: []string{"Bash(git add:*)", "Read"}}, body: "Body\n"},
		{name: "hint as a YAML list", text: "---\nargument-hint: [pr-number]\n---\nB",
			want: frontmatter{ArgumentHint: "[pr-number]"}, body: "B"},
		{name: "hint that is no YAML", text: "---\nargument-hint: [file] [focus]\ndescription: \"quoted\"\n---\nB",
			want: frontmatter{ArgumentHint: "[file] [focus]", Description: "quoted"}, body: "B"},
		{name: "tools as a list", text: "---\nallowed-tools:\n  - Bash(make test)\n  - Edit\n---\nB",
			want: frontmatter{AllowedTools: []string{"Bash(make test)", "Edit"}}, body: "B"},
		{name: "tools spaced", text: "---\nallowed-tools: Bash(git diff:*) Read\n---\nB",
			want: frontmatter{AllowedTools: []string{"Bash(git diff:*)", "Read"}}, body: "B"},
		{name: "BOM and CRLF", text: "\uFEFF---\r\ndescription: d\r\n---\r\nB", want: frontmatter{Description: "d"}, body: "B"},
		{name: "unclosed", text: "---\ndescription: d\nB", err: "no closing ---"},
		{name: "damaged", text: "---\ndescription: x\n  indented: [\n---\nB", err: "frontmatter: yaml"},
		{name: "unknown keys ignored", text: "---\nlicense: MIT\nmetadata:\n  a: b\n---\nB", body: "B"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm, body, err := splitFrontmatter(tt.text)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fm.Description != tt.want.Description || fm.ArgumentHint != tt.want.ArgumentHint || fm.Model != tt.want.Model || !slices.Equal(fm.AllowedTools, tt.want.AllowedTools) {
				t.Errorf("frontmatter %+v, want %+v", fm, tt.want)
			}
			if body != tt.body {
				t.Errorf("body %q, want %q", body, tt.body)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	tests := []struct{ name, body, args, want string }{
		{"all", "Fix $ARGUMENTS now", "the bug", "Fix the bug now"},
		{"words", "Move $1 to $2", "a.go b.go", "Move a.go to b.go"},
		{"quoted word", "Title: $1; rest $2", `"two words" x`, "Title: two words; rest x"},
		{"missing word", "[$3]", "a", "[]"},
		{"dollar", "costs $$5 and $HOME", "", "costs $5 and $HOME"},
		{"no placeholder keeps args", "Review the code", "main.go", "Review the code\n\nARGUMENTS: main.go"},
		{"no placeholder no args", "Review the code\n", "", "Review the code"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := expand(tt.body, tt.args); got != tt.want {
				t.Errorf("expand(%q, %q) = %q, want %q", tt.body, tt.args, got, tt.want)
			}
		})
	}
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Project files win over the person's; .myco over .claude; a built-in's
// name moves aside; names that cannot be typed, too-large and denied
// files are reported; nothing stops the rest.
func TestCommandsPrecedenceAndProblems(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(t.TempDir(), "p")
	write(t, project, map[string]string{
		".myco/commands/review.md":     "Project review",
		".claude/commands/review.md":   "Claude review",
		".claude/commands/My File.md":  "spaces",
		".myco/commands/big.md":        strings.Repeat("x", maxCommandFile+1),
		".myco/commands/secret.md":     "denied",
		".myco/commands/model.md":      "my model",
		".myco/commands/a/b/c/deep.md": "too deep",
		".myco/commands/notes.txt":     "not a command",
		".myco/commands/2fa.md":        "digit first",
	})
	write(t, home, map[string]string{
		".config/myco/commands/review.md": "Personal review",
		".config/myco/commands/mine.md":   "---\ndescription: Mine\n---\nMine body",
		".claude/commands/theirs.md":      "Theirs body",
	})
	allow := func(p string) error {
		if filepath.Base(p) == "secret.md" {
			return os.ErrPermission
		}
		return nil
	}
	l := NewLoader(allow, []string{"model", "help"})
	cmds := l.Commands(Places{Folder: project, Config: filepath.Join(home, ".config", "myco"), Home: home})
	got := map[string]string{}
	for _, c := range cmds {
		state := "ok"
		switch {
		case c.Problem != "":
			state = "problem"
		case c.ShadowedBy != "":
			state = "shadowed"
		}
		got[c.Name+" "+c.Origin] = state
	}
	rel := func(p string) string { return p }
	want := map[string]string{
		"review " + rel(".myco/commands"):        "ok",
		"review " + rel(".claude/commands"):      "shadowed",
		"review ~/.config/myco/commands":         "shadowed",
		"my file " + rel(".claude/commands"):     "problem",
		"big " + rel(".myco/commands"):           "problem",
		"2fa " + rel(".myco/commands"):           "problem",
		"secret " + rel(".myco/commands"):        "problem",
		"project:model " + rel(".myco/commands"): "ok",
		"mine ~/.config/myco/commands":           "ok",
		"theirs ~/.claude/commands":              "ok",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if c, ok := Find(cmds, "review"); !ok || c.Body() != "Project review" {
		t.Errorf("Find review = %+v, want the project's", c)
	}
	if _, ok := Find(cmds, "model"); ok {
		t.Error("a custom command took a built-in's name")
	}
}

// The Loader rereads a file that changed, and only then.
func TestLoaderRereadsChanged(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{".myco/commands/x.md": "one"})
	l := NewLoader(nil, nil)
	p := Places{Folder: dir}
	if c, _ := Find(l.Commands(p), "x"); c.Body() != "one" {
		t.Fatalf("body %q", c.Body())
	}
	path := filepath.Join(dir, ".myco", "commands", "x.md")
	if err := os.WriteFile(path, []byte("two!"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if c, _ := Find(l.Commands(p), "x"); c.Body() != "two!" {
		t.Errorf("body %q after a change, want two!", c.Body())
	}
}

// A skill's body is cut at maxSkillBody with Cut set; its files are
// listed; a skill without a description is reported.
func TestSkills(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		".myco/skills/big/SKILL.md":       "---\ndescription: Big one\n---\n" + strings.Repeat("word ", maxSkillBody/4),
		".myco/skills/big/scripts/run.sh": "echo",
		".myco/skills/big/.hidden/x":      "no",
		".claude/skills/empty/SKILL.md":   "---\nname: empty\n---\n",
		".claude/skills/notaskill/README": "no SKILL.md",
		".agents/skills/shared/SKILL.md":  "---\nname: shared\ndescription: From the standard folder\n---\nBody",
	})
	l := NewLoader(nil, nil)
	sks := l.Skills(Places{Folder: dir})
	var names []string
	for _, s := range sks {
		names = append(names, s.Name+":"+map[bool]string{true: "ok", false: "no"}[s.Usable()])
	}
	if want := []string{"big:ok", "shared:ok", "empty:no"}; !slices.Equal(names, want) {
		t.Fatalf("skills %v, want %v", names, want)
	}
	loaded, err := l.Load(sks[0])
	if err != nil {
		t.Fatal(err)
	}
	if !loaded.Cut || len(loaded.Body) > maxSkillBody {
		t.Errorf("body of %d bytes, cut %v: want cut to %d", len(loaded.Body), loaded.Cut, maxSkillBody)
	}
	if want := []string{filepath.Join(dir, ".myco/skills/big/scripts/run.sh")}; !slices.Equal(loaded.Files, want) {
		t.Errorf("files %v, want %v", loaded.Files, want)
	}
}

// Past maxSkillList bytes of names and descriptions, the rest of the
// skills are not offered, and say why.
func TestSkillListBounded(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	n := maxSkillList/(maxDescription+10) + 5
	for i := range n {
		files[fmt.Sprintf(".myco/skills/s%03d/SKILL.md", i)] = "---\ndescription: " + strings.Repeat("d", maxDescription) + "\n---\nbody"
	}
	write(t, dir, files)
	sks := NewLoader(nil, nil).Skills(Places{Folder: dir})
	offered, size := 0, 0
	for _, s := range sks {
		if s.Usable() {
			offered++
			size += len(s.Name) + len(s.Description) + 4
		} else if !strings.Contains(s.Problem, "fill the") {
			t.Errorf("%s: %q", s.Name, s.Problem)
		}
	}
	if offered == 0 || offered == n || size > maxSkillList {
		t.Errorf("%d of %d offered, %d bytes: want the list cut at %d bytes", offered, n, size, maxSkillList)
	}
}
