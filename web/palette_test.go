package web_test

import (
	"testing"

	"github.com/PuerkitoBio/goquery"

	"myco/web"
)

// The palette lists every command with its usage and help, in the order of
// web.Commands, and sits in the composer (every writable session page).
func TestPaletteListsEveryCommand(t *testing.T) {
	d := parseHTML(t, render(t, web.Composer(web.ComposerView{SessionID: sessionID})))
	p := byTestID(d, "palette")
	if p.Length() != 1 || goquery.NodeName(p) != "dialog" {
		t.Fatalf("no palette dialog in the composer")
	}
	items := p.Find("[data-palette-item]")
	if items.Length() != len(web.Commands) {
		t.Fatalf("%d items, want %d", items.Length(), len(web.Commands))
	}
	items.Each(func(i int, s *goquery.Selection) {
		c := web.Commands[i]
		if name, _ := s.Attr("data-command"); name != c.Name {
			t.Errorf("item %d is %q, want %q", i, name, c.Name)
		}
		if args, _ := s.Attr("data-args"); args != c.Args {
			t.Errorf("/%s data-args %q, want %q", c.Name, args, c.Args)
		}
		if got := s.Find("code").Text(); got != c.Usage() {
			t.Errorf("/%s usage %q", c.Name, got)
		}
		if got := s.Find(".palette-help").Text(); got != c.Help {
			t.Errorf("/%s help %q", c.Name, got)
		}
	})
}
