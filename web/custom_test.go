package web_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"myco/session"
	"myco/web"
)

// The usable custom commands join /help (marked data-custom, which the
// script runs on the server) and the palette; /commands lists them all,
// with where each came from and why one does not run.
func TestComposerCustomCommands(t *testing.T) {
	custom := []web.CustomCommandView{
		{Name: "review", Args: "[file]", Help: "Review a file", Origin: ".myco/commands", Scope: "project", Path: "/p/.myco/commands/review.md"},
		{Name: "project:help", Help: "Own help", Origin: ".claude/commands", Scope: "project", Builtin: "help"},
		{Name: "broken", Origin: ".myco/commands", Scope: "project", Problem: "frontmatter: no closing ---"},
		{Name: "review", Origin: "~/.claude/commands", Scope: "user", ShadowedBy: "/p/.myco/commands/review.md"},
	}
	d := parseHTML(t, render(t, web.Composer(web.ComposerView{SessionID: sessionID, Custom: custom})))
	var help []string
	byTestID(d, "command-help").Find("[data-custom]").Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("data-command")
		help = append(help, name+"="+s.Find("dd").Text())
	})
	if want := "review=Review a file (.myco/commands) project:help=Own help (.claude/commands)"; strings.Join(help, " ") != want {
		t.Errorf("/help's custom commands %q, want %q", strings.Join(help, " "), want)
	}
	if n := byTestID(d, "palette").Find("[data-custom]").Length(); n != 2 {
		t.Errorf("the palette has %d custom commands, want 2", n)
	}
	var listed []string
	byTestID(d, "custom-commands").Find(`[data-testid="custom-command"]`).Each(func(_ int, s *goquery.Selection) {
		usable, _ := s.Attr("data-usable")
		listed = append(listed, s.Find("code").First().Text()+":"+usable)
	})
	if want := "/review [file]:true /project:help:true /broken:false /review:false"; strings.Join(listed, " ") != want {
		t.Errorf("/commands lists %q, want %q", strings.Join(listed, " "), want)
	}
	text := byTestID(d, "custom-commands").Text()
	for _, want := range []string{"cannot run: frontmatter: no closing ---", "/help is built in, so this one is /project:help", "has the same name"} {
		if !strings.Contains(text, want) {
			t.Errorf("/commands does not say %q", want)
		}
	}
}

// A message that was a custom command shows what was typed, the text it
// sent under a fold.
func TestCommandMessage(t *testing.T) {
	doc := &session.Document{ID: sessionID, Threads: []session.Thread{{Messages: []session.Message{{
		ID: "m1", Role: "user", Human: true,
		Content: []session.Block{{Type: session.BlockText, Text: "Review main.go carefully"}},
		Command: &session.CommandUse{Name: "review", Args: "main.go"},
	}}}}}
	d := parseHTML(t, render(t, web.SessionPage(web.NewSessionView(doc, web.SessionViewOptions{}))))
	if got := byTestID(d, "command-typed").Text(); got != "/review main.go" {
		t.Errorf("typed %q", got)
	}
	exp := byTestID(d, "command-expansion")
	if _, open := exp.Attr("open"); open || !strings.Contains(exp.Text(), "Review main.go carefully") {
		t.Errorf("the expansion is not folded under the command: %q", exp.Text())
	}
}

// The side panel lists the skills offered, and those not offered with the
// reason, as the page and the panel event render it.
func TestPanelSkills(t *testing.T) {
	doc := &session.Document{ID: sessionID, Cwd: "/p", Skills: []session.SkillRecord{
		{Name: "deploy", Path: "/p/.myco/skills/deploy/SKILL.md", Scope: "project"},
		{Name: "old", Path: "/home/a/.claude/skills/old/SKILL.md", Scope: "user", Problem: "it has no description"},
	}}
	html, err := web.RenderPanel(doc, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	byTestID(parseHTML(t, html), "skills-panel").Find(`[data-testid="skill"]`).Each(func(_ int, s *goquery.Selection) {
		offered, _ := s.Attr("data-offered")
		rows = append(rows, s.Find("strong").Text()+" "+s.Find("code").Text()+" "+offered+" "+s.Find(".instruction-note").Text())
	})
	want := []string{"deploy .myco/skills/deploy/SKILL.md true ", "old /home/a/.claude/skills/old/SKILL.md false not offered: it has no description"}
	if strings.Join(rows, "|") != strings.Join(want, "|") {
		t.Errorf("rows %q, want %q", rows, want)
	}
}
