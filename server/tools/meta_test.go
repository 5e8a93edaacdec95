package tools_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"myco/server/tools"
	"myco/session"
)

func TestApplyMeta(t *testing.T) {
	base := func() *session.Document {
		return &session.Document{
			Title:      "Old title",
			Links:      []session.Link{{URL: "https://go.dev/doc", Title: "Docs"}},
			Scratchpad: "notes",
		}
	}
	tests := []struct {
		name    string
		in      tools.MetaInput
		out     string
		changed bool
		want    func(d *session.Document) // the document expected after
	}{
		{"set title, trimmed to one line", tools.MetaInput{Action: "set_title", Title: "  Fix\n the   test \t"},
			`title set to "Fix the test"`, true, func(d *session.Document) { d.Title = "Fix the test" }},
		{"set title, cut to the cap", tools.MetaInput{Action: "set_title", Title: strings.Repeat("é", session.TitleMax+50)},
			`title set to "` + strings.Repeat("é", session.TitleMax) + `"`, true, func(d *session.Document) { d.Title = strings.Repeat("é", session.TitleMax) }},
		{"link title on one line, cut to the cap", tools.MetaInput{Action: "add_link", URL: "https://a.example", LinkTitle: " A\n" + strings.Repeat("b", session.TitleMax)},
			"link added: https://a.example", true, func(d *session.Document) {
				d.Links = append(d.Links, session.Link{URL: "https://a.example", Title: "A " + strings.Repeat("b", session.TitleMax-2)})
			}},
		{"set the same title", tools.MetaInput{Action: "set_title", Title: "Old title "},
			`the title is already "Old title"`, false, func(*session.Document) {}},
		{"add a link", tools.MetaInput{Action: "add_link", URL: " http://example.com/a?b=1 ", LinkTitle: "Example"},
			"link added: http://example.com/a?b=1", true, func(d *session.Document) {
				d.Links = append(d.Links, session.Link{URL: "http://example.com/a?b=1", Title: "Example"})
			}},
		{"add a link twice", tools.MetaInput{Action: "add_link", URL: "https://go.dev/doc"},
			"already linked: https://go.dev/doc", false, func(*session.Document) {}},
		{"add a link again with a new title", tools.MetaInput{Action: "add_link", URL: "https://go.dev/doc", LinkTitle: "Go docs"},
			"link title updated: https://go.dev/doc", true, func(d *session.Document) { d.Links[0].Title = "Go docs" }},
		{"remove a link", tools.MetaInput{Action: "remove_link", URL: "https://go.dev/doc"},
			"link removed: https://go.dev/doc", true, func(d *session.Document) { d.Links = []session.Link{} }},
		{"read the scratchpad", tools.MetaInput{Action: "read_scratchpad"},
			"notes", false, func(*session.Document) {}},
		{"write the scratchpad", tools.MetaInput{Action: "write_scratchpad", Text: "new\nnotes"},
			"scratchpad saved (9 bytes)", true, func(d *session.Document) { d.Scratchpad = "new\nnotes" }},
		{"write the same scratchpad", tools.MetaInput{Action: "write_scratchpad", Text: "notes"},
			"the scratchpad already holds this text", false, func(*session.Document) {}},
		{"clear the scratchpad", tools.MetaInput{Action: "write_scratchpad"},
			"scratchpad saved (0 bytes)", true, func(d *session.Document) { d.Scratchpad = "" }},
		{"scratchpad at the limit", tools.MetaInput{Action: "write_scratchpad", Text: strings.Repeat("x", tools.ScratchpadMax)},
			"scratchpad saved (102400 bytes)", true, func(d *session.Document) { d.Scratchpad = strings.Repeat("x", tools.ScratchpadMax) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, want := base(), base()
			tt.want(want)
			out, changed, err := tools.ApplyMeta(doc, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if out != tt.out || changed != tt.changed {
				t.Errorf("ApplyMeta = %q, %v; want %q, %v", out, changed, tt.out, tt.changed)
			}
			if diff := cmp.Diff(want, doc, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("document (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyMetaEmptyScratchpad(t *testing.T) {
	out, changed, err := tools.ApplyMeta(&session.Document{}, tools.MetaInput{Action: "read_scratchpad"})
	if err != nil || changed || out != "the scratchpad is empty" {
		t.Errorf("got %q, %v, %v", out, changed, err)
	}
}

func TestMetaSetTitleArchived(t *testing.T) {
	doc := &session.Document{Title: "t", Archived: true}
	_, changed, err := tools.ApplyMeta(doc, tools.MetaInput{Action: "set_title", Title: "New"})
	if !errors.Is(err, session.ErrArchived) || changed || doc.Title != "t" {
		t.Errorf("set_title on an archived session = %v, changed %v, title %q; want ErrArchived and no change", err, changed, doc.Title)
	}
}

func TestMetaDescriptionStatesTheCap(t *testing.T) {
	want := fmt.Sprintf("at most %d characters", session.TitleMax)
	if !strings.Contains(tools.MetaDescription, want) {
		t.Errorf("MetaDescription does not say %q:\n%s", want, tools.MetaDescription)
	}
}

func TestApplyMetaErrors(t *testing.T) {
	tests := []struct {
		name string
		in   tools.MetaInput
		want error
		says string
	}{
		{"unknown action", tools.MetaInput{Action: "rename"}, tools.ErrMetaInput, `unknown action "rename"`},
		{"empty title", tools.MetaInput{Action: "set_title", Title: " \n "}, tools.ErrMetaInput, "needs a title"},
		{"javascript link", tools.MetaInput{Action: "add_link", URL: "javascript:alert(1)"}, tools.ErrMetaInput, "only http and https"},
		{"file link", tools.MetaInput{Action: "add_link", URL: "file:///etc/passwd"}, tools.ErrMetaInput, "only http and https"},
		{"relative link", tools.MetaInput{Action: "add_link", URL: "/docs"}, tools.ErrMetaInput, "only http and https"},
		{"no host", tools.MetaInput{Action: "add_link", URL: "https:///x"}, tools.ErrMetaInput, "only http and https"},
		{"malformed link", tools.MetaInput{Action: "add_link", URL: "http://[::1"}, tools.ErrMetaInput, "URL"},
		{"remove a missing link", tools.MetaInput{Action: "remove_link", URL: "https://nope.example"}, tools.ErrMetaInput, "no link with URL"},
		{"scratchpad over the limit", tools.MetaInput{Action: "write_scratchpad", Text: strings.Repeat("x", tools.ScratchpadMax+1)}, tools.ErrMetaInput, "limited to 102400 bytes"},
		{"query is the caller's", tools.MetaInput{Action: "query", Query: "x"}, tools.ErrMetaQuery, "session search"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := &session.Document{Title: "t", Scratchpad: "keep"}
			_, changed, err := tools.ApplyMeta(doc, tt.in)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("ApplyMeta(%+v) = %v, want %v saying %q", tt.in, err, tt.want, tt.says)
			}
			if changed || doc.Title != "t" || doc.Scratchpad != "keep" || len(doc.Links) != 0 {
				t.Errorf("the document changed: %+v", doc)
			}
		})
	}
}

func TestFormatHits(t *testing.T) {
	hits := []session.Hit{
		{Session: "s1", Title: "Flaky", Thread: 1, Message: "m4", Kind: session.HitMessage, Excerpt: "the flaky test"},
		{Session: "s2", Title: "Old", Kind: session.SidecarReadline, Excerpt: "$ make flaky"},
	}
	want := "2 matches for \"flaky\", newest session first:\n" +
		"- session s1 \"Flaky\", message (thread 1, message m4): the flaky test\n" +
		"- session s2 \"Old\", readline: $ make flaky\n"
	if diff := cmp.Diff(want, tools.FormatHits("flaky", hits)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := tools.FormatHits("x", nil); got != "no match for \"x\"\n" {
		t.Errorf("no hits: %q", got)
	}
}
