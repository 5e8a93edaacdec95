package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"myco/session"
	"myco/web"
)

func TestNewDiffView(t *testing.T) {
	d := web.NewDiffView("--- /p/a\n+++ /p/a\n@@ -1,3 +1,3 @@\n a\n--- b\n+B\n c\n\\ No newline at end of file\n")
	want := []web.DiffLine{
		{Kind: "file", Text: "--- /p/a"}, {Kind: "file", Text: "+++ /p/a"},
		{Kind: "hunk", Text: "@@ -1,3 +1,3 @@"}, {Kind: "context", Text: " a"},
		{Kind: "del", Text: "--- b"}, {Kind: "add", Text: "+B"}, {Kind: "context", Text: " c"},
		{Kind: "note", Text: `\ No newline at end of file`},
	}
	if diff := cmp.Diff(want, d.Lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if d.Stat() != "+1 −1" || d.Folded() {
		t.Errorf("stat %s, folded %v", d.Stat(), d.Folded())
	}
	if web.NewDiffView("") != nil {
		t.Error("a view of no diff")
	}
}

// fileChange is an edit_file call and its result with the diff recorded
// beside it, as the live session stores them.
func fileChange(diff string) session.Thread {
	extra, _ := jsontext.AppendQuote([]byte(`{"diff":`), diff)
	result := toolResult("r", "toolu_e", `"Edited /p/a.txt: 1 edit applied (+1 −1 lines)."`, false, 12)
	result.Content[0].Unknown = append(extra, '}')
	return session.Thread{Messages: []session.Message{
		human("h", "change it"),
		toolUse("a", "toolu_e", "edit_file", `{"path":"/p/a.txt","edits":[{"old_text":"two","new_text":"TWO"}]}`),
		result,
	}}
}

func TestToolResultShowsItsDiff(t *testing.T) {
	f, err := web.MessagesFragment(doc(fileChange("--- /p/a.txt\n+++ /p/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n")), 0, -1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := parseHTML(t, render(t, web.Messages(f)))
	result := d.Find(`[data-testid="tool-call"][data-tool="edit_file"] [data-testid="tool-result"]`)
	if _, open := result.Attr("open"); !open {
		t.Error("a result with a diff is collapsed")
	}
	diff := result.Find(`[data-testid="diff"]`)
	if got := diff.Find(".line.add").Text(); got != "+TWO\n" {
		t.Errorf("added lines %q", got)
	}
	if got := diff.Find(".line.del").Text(); got != "-two\n" {
		t.Errorf("removed lines %q", got)
	}
	if diff.Find(".line.hunk").Length() != 1 || diff.Find(".line.file").Length() != 2 {
		t.Error("headers not marked")
	}
	if diff.Find(`[data-testid="diff-toggle"]`).Length() != 0 {
		t.Error("a short diff is folded")
	}
}

func TestLongDiffIsFolded(t *testing.T) {
	var b strings.Builder
	b.WriteString("--- /dev/null\n+++ /p/a.txt\n@@ -0,0 +1,100 @@\n")
	for i := range 100 {
		fmt.Fprintf(&b, "+line %d\n", i)
	}
	f, err := web.MessagesFragment(doc(fileChange(b.String())), 0, -1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := parseHTML(t, render(t, web.Messages(f)))
	diff := d.Find(`[data-testid="diff"]`)
	if n := diff.Find("pre > .line").Length(); n != web.DiffFold {
		t.Errorf("%d lines shown before the fold, want %d", n, web.DiffFold)
	}
	rest := diff.Find("[data-diff-rest]")
	if _, hidden := rest.Attr("hidden"); !hidden || rest.Find(".line").Length() != 103-web.DiffFold {
		t.Errorf("the rest is not folded: %d lines", rest.Find(".line").Length())
	}
	if got := diff.Find(`[data-testid="diff-toggle"]`).Text(); got != "Show all 103 lines (63 more)" {
		t.Errorf("toggle %q", got)
	}
}
