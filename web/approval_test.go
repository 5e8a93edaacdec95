package web_test

import (
	"fmt"
	"strings"
	"testing"

	"myco/web"
)

func TestApprovalHTML(t *testing.T) {
	tests := []struct {
		name, tool, input, diff string
		// what the card shows
		command, path, session string
		diffLines              int
	}{
		{name: "bash shows its command", tool: "bash", input: `{"command":"rm -rf build\necho <done>"}`,
			command: "rm -rf build\necho <done>", session: "Allow for this session"},
		{name: "an edit shows its path and diff", tool: "edit_file", input: `{"path":"/w/a.txt","edits":[]}`,
			diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-red\n+blue\n",
			path: "/w/a.txt", diffLines: 5, session: "Allow file changes for this session"},
		{name: "another tool shows its input as JSON", tool: "mystery", input: `{"x":1}`,
			command: "{\n  \"x\": 1\n}", session: "Allow for this session"},
		{name: "a command that is not a string shows the JSON", tool: "bash", input: `{"command":42}`,
			command: "{\n  \"command\": 42\n}", session: "Allow for this session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			html, err := web.ApprovalHTML("toolu_1", tt.tool, []byte(tt.input), tt.diff)
			if err != nil {
				t.Fatal(err)
			}
			d := parseHTML(t, html)
			assertCSPClean(t, d)
			card := byTestID(d, "approval")
			if id, _ := card.Attr("data-tool-use-id"); card.Length() != 1 || id != "toolu_1" {
				t.Fatalf("card %q, tool_use_id %q: want one card for toolu_1", html, id)
			}
			if got := card.Find(".tool-name").Text(); got != tt.tool {
				t.Errorf("tool name %q, want %q", got, tt.tool)
			}
			if got := byTestID(d, "approval-command").Text(); got != tt.command {
				t.Errorf("command %q, want %q", got, tt.command)
			}
			if got := byTestID(d, "approval-path").Text(); got != tt.path {
				t.Errorf("path %q, want %q", got, tt.path)
			}
			if got := byTestID(d, "diff").Find(".line").Length(); got != tt.diffLines {
				t.Errorf("%d diff lines, want %d", got, tt.diffLines)
			}
			var decisions []string
			for _, b := range card.Find(".approval-actions button[data-decision]").EachIter() {
				v, _ := b.Attr("data-decision")
				typ, _ := b.Attr("type")
				if typ != "button" {
					t.Errorf("button %s has type %q: a button in the composer's form must not submit it", v, typ)
				}
				decisions = append(decisions, v+"="+b.Text())
			}
			want := "once=Allow once,session=" + tt.session + ",deny=Deny"
			if got := strings.Join(decisions, ","); got != want {
				t.Errorf("decisions %s, want %s", got, want)
			}
		})
	}
}

// TestApprovalLongDiffGolden pins the card of a long edit: the diff folded
// after web.DiffFold lines, its toggle, the buttons after it.
func TestApprovalLongDiffGolden(t *testing.T) {
	var b strings.Builder
	b.WriteString("--- a/long.txt\n+++ b/long.txt\n@@ -0,0 +1,45 @@\n")
	for i := range 45 {
		fmt.Fprintf(&b, "+row %d\n", i+1)
	}
	html, err := web.ApprovalHTML("toolu_9", "write_file", []byte(`{"path":"long.txt","content":"…"}`), b.String())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "approval-long-diff", html)
	d := parseHTML(t, html)
	if n := d.Find("[data-diff-rest] .line").Length(); n != 48-web.DiffFold {
		t.Errorf("%d folded lines, want %d", n, 48-web.DiffFold)
	}
	if got := byTestID(d, "diff-toggle").Text(); got != "Show all 48 lines (8 more)" {
		t.Errorf("toggle %q", got)
	}
}

// The card says what an approval is worth (issue 18): a command has the
// person's own powers, and with bash allowed an edit's approval is a
// courtesy.
func TestApprovalNote(t *testing.T) {
	tests := []struct {
		name, tool, diff, want string
	}{
		{"bash", "bash", "", "your own powers"},
		{"edit", "edit_file", "--- a\n+++ b\n", "a courtesy"},
		{"write", "write_file", "", "a courtesy"},
		{"other", "session_meta", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			html, err := web.ApprovalHTML("t1", tt.tool, []byte(`{}`), tt.diff)
			if err != nil {
				t.Fatal(err)
			}
			has := strings.Contains(html, `data-testid="approval-note"`)
			if has != (tt.want != "") || !strings.Contains(html, tt.want) {
				t.Errorf("card for %s:\n%s\nwant a note with %q", tt.tool, html, tt.want)
			}
		})
	}
}
