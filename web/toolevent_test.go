package web_test

import (
	"strings"
	"testing"

	"myco/session"
	"myco/web"
)

// TestToolEventHTML: the cards the tool.start and tool.end events carry
// are the page's own: the message of the call and its outcome, rendered
// from the thread, holds exactly the same markup.
func TestToolEventHTML(t *testing.T) {
	use := session.Block{Type: session.BlockToolUse, ID: "toolu_2", Name: "write_file",
		Input: []byte(`{"path":"a.txt","content":"blue\n"}`)}
	result := session.Block{Type: session.BlockToolResult, ToolUseID: "toolu_2", IsError: true,
		Content: []byte(`"denied"`), DurationMS: 1500, Interrupted: true,
		Unknown: []byte(`{"diff":"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-red\n+blue\n"}`)}
	doc := &session.Document{ID: "s1", Threads: []session.Thread{{Messages: []session.Message{
		{ID: "m1", Role: "assistant", Content: []session.Block{use}},
		{ID: "m2", Role: "user", Content: []session.Block{result}},
	}}}}
	frag, err := web.MessagesFragment(doc, 0, -1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	page := render(t, web.Messages(frag))

	call, err := web.ToolCallHTML(use)
	if err != nil {
		t.Fatal(err)
	}
	res, err := web.ToolResultHTML(result)
	if err != nil {
		t.Fatal(err)
	}
	// The live card is the call's card without its outcome; tool.end adds
	// the outcome as its last child.
	live := strings.TrimSuffix(call, "</div>") + res + "</div>"
	if !strings.Contains(page, live) {
		t.Errorf("the page's card\n%s\ndoes not hold the live card and outcome\n%s", page, live)
	}
	d := parseHTML(t, res)
	r := byTestID(d, "tool-result")
	for attr, want := range map[string]string{"data-interrupted": "true", "data-is-error": "true", "data-tool-use-id": "toolu_2"} {
		if got, _ := r.Attr(attr); got != want {
			t.Errorf("%s=%q, want %q", attr, got, want)
		}
	}
	if got := r.Find(".duration").Text(); got != "1.5 s" {
		t.Errorf("duration %q, want 1.5 s", got)
	}
	if byTestID(d, "diff").Length() != 1 {
		t.Errorf("outcome without its diff: %s", res)
	}
}
