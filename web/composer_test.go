package web_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"myco/session"
	"myco/web"
)

func TestComposerGolden(t *testing.T) {
	html := render(t, web.Composer(web.ComposerView{SessionID: sessionID}))
	golden(t, "composer", html)
	d := parseHTML(t, html)
	assertCSPClean(t, d)

	root := d.Find("[data-composer]")
	for attr, want := range map[string]string{
		"data-messages-url":  "/api/sessions/" + sessionID + "/messages",
		"data-stop-url":      "/api/sessions/" + sessionID + "/stop",
		"data-retry-url":     "/api/sessions/" + sessionID + "/retry",
		"data-approvals-url": "/api/sessions/" + sessionID + "/approvals/",
		"data-session-url":   "/api/sessions/" + sessionID,
	} {
		if got, _ := root.Attr(attr); got != want {
			t.Errorf("composer %s=%q, want %q", attr, got, want)
		}
	}

	input := byTestID(d, "composer-input")
	if len(input.Nodes) != 1 || input.Nodes[0].Data != "textarea" {
		t.Fatalf("composer-input: want one textarea, got %d", input.Length())
	}
	if id, _ := input.Attr("id"); d.Find(`label[for="`+id+`"]`).Length() != 1 {
		t.Error("composer input has no label")
	}
	if hint, _ := input.Attr("aria-describedby"); d.Find("#"+hint).Length() != 1 {
		t.Errorf("composer input describedby %q points at nothing", hint)
	}

	send := byTestID(d, "send-button")
	if typ, _ := send.Attr("type"); typ != "submit" || send.Closest("form").Length() != 1 {
		t.Errorf("send button type %q, want a submit button inside the form", typ)
	}
	if typ, _ := byTestID(d, "image-button").Attr("type"); typ != "button" {
		t.Errorf("image button type %q, want button (it must not submit)", typ)
	}
	if byTestID(d, "image-button").Find(".visually-hidden").Text() == "" {
		t.Error("image button has no text for screen readers")
	}
	// The browser tests treat any <svg> in the conversation as injected.
	if n := d.Find("svg, script, iframe").Length(); n != 0 {
		t.Errorf("composer holds %d svg/script/iframe elements", n)
	}

	file := byTestID(d, "image-input")
	if typ, _ := file.Attr("type"); typ != "file" {
		t.Errorf("image input type %q", typ)
	}
	if accept, _ := file.Attr("accept"); accept != "image/png,image/jpeg,image/gif,image/webp" {
		t.Errorf("image input accept %q", accept)
	}
	for _, attr := range []string{"multiple", "hidden"} {
		if _, ok := file.Attr(attr); !ok {
			t.Errorf("image input without %s", attr)
		}
	}

	status := byTestID(d, "turn-status")
	if s, _ := status.Attr("data-status"); s != "idle" || status.Text() != "Idle" {
		t.Errorf("turn status %q %q, want idle", s, status.Text())
	}
	if role, _ := status.Attr("role"); role != "status" {
		t.Errorf("turn status role %q, want status", role)
	}

	// What the stream fills starts hidden or empty.
	for _, id := range []string{"provider-help", "command-help", "model-list"} {
		if _, ok := byTestID(d, id).Attr("hidden"); !ok {
			t.Errorf("%s is not hidden until needed", id)
		}
	}
	if n := d.Find("[data-approvals]").Children().Length(); n != 0 {
		t.Errorf("%d approvals before any event", n)
	}
}

func TestComposerCommandHelp(t *testing.T) {
	d := parseHTML(t, render(t, web.Composer(web.ComposerView{SessionID: sessionID})))
	help := byTestID(d, "command-help")
	var got []string
	help.Find("[data-command]").Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("data-command")
		got = append(got, name)
		if s.Find("dd").Text() == "" {
			t.Errorf("/%s has no description", name)
		}
	})
	want := []string{"stop", "retry", "new", "resume", "title", "model", "compact", "fork", "rewind", "steer", "queue", "btw", "usage", "subagents", "think", "personality", "goal", "plan", "build", "undo", "redo", "diff", "init", "export", "session", "theme", "lsp", "commands", "help"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("commands %v, want %v", got, want)
	}
	if args, _ := help.Find(`[data-command="resume"]`).Attr("data-args"); args != "ID" {
		t.Errorf("/resume data-args %q, want ID", args)
	}
	if usage := help.Find(`[data-command="model"] dt`).Text(); usage != "/model [NAME]" {
		t.Errorf("/model usage %q", usage)
	}
}

func TestCommandUsage(t *testing.T) {
	tests := []struct {
		name string
		cmd  web.Command
		want string
	}{
		{name: "no argument", cmd: web.Command{Name: "stop"}, want: "/stop"},
		{name: "argument", cmd: web.Command{Name: "resume", Args: "ID"}, want: "/resume ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cmd.Usage(); got != tt.want {
				t.Errorf("Usage() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSessionPageComposerPlacement(t *testing.T) {
	d := parseHTML(t, render(t, web.SessionPage(sessionView(t))))
	section := d.Find("section#composer")
	if section.Find("[data-composer]").Length() != 1 || section.Find(`[data-testid="composer-input"]`).Length() != 1 {
		t.Error("the composer is not rendered inside its section")
	}
	// The conversation comes first, the composer after it.
	if d.Find(".threads ~ section#composer").Length() != 1 {
		t.Error("composer is not after the threads")
	}
	if url, _ := section.Find("[data-composer]").Attr("data-messages-url"); url != "/api/sessions/"+sessionID+"/messages" {
		t.Errorf("messages URL %q", url)
	}
}

func TestSessionPageUsageAndModel(t *testing.T) {
	d0 := doc(session.Thread{Messages: []session.Message{func() session.Message {
		m := agent("a1", "x")
		m.Usage = &session.Usage{InputTokens: 2000, OutputTokens: 10}
		return m
	}()}})
	d := parseHTML(t, render(t, web.SessionPage(web.NewSessionView(d0, web.SessionViewOptions{}))))
	usage := byTestID(d, "session-usage")
	if got := textOf(usage); got != "in 2,000 · out 10" {
		t.Errorf("session usage %q", got)
	}
	for attr, want := range map[string]string{"data-input": "2000", "data-output": "10", "data-cache-read": "0", "data-cache-write": "0"} {
		if got, _ := usage.Attr(attr); got != want {
			t.Errorf("session usage %s=%q, want %q", attr, got, want)
		}
	}
	model := byTestID(d, "session-model")
	if m, _ := model.Attr("data-model"); m != "" || model.Text() != "default" {
		t.Errorf("model without one set: data-model %q text %q, want \"\" and default", m, model.Text())
	}
}
