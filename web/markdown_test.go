package web_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"myco/web"
)

func parseHTML(t *testing.T, s string) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(strings.NewReader(s))
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return d
}

// assertInert fails if rendered HTML could run script or load something
// from elsewhere: no script, frames, event handlers, or dangerous URLs.
func assertInert(t *testing.T, out string) {
	t.Helper()
	d := parseHTML(t, out)
	if n := d.Find("script, iframe, object, embed, style, link, meta, form, svg").Length(); n > 0 {
		t.Errorf("%d active elements in %q", n, out)
	}
	d.Find("*").Each(func(_ int, s *goquery.Selection) {
		for _, a := range s.Nodes[0].Attr {
			v := strings.ToLower(strings.TrimSpace(a.Val))
			switch {
			case strings.HasPrefix(a.Key, "on"):
				t.Errorf("event handler %s=%q in %q", a.Key, a.Val, out)
			case a.Key == "style":
				t.Errorf("style attribute in %q", out)
			case (a.Key == "href" || a.Key == "src") && (strings.HasPrefix(v, "javascript:") || strings.HasPrefix(v, "data:") || strings.HasPrefix(v, "vbscript:")):
				t.Errorf("%s=%q in %q", a.Key, a.Val, out)
			case a.Key == "src" && !strings.HasPrefix(v, "/images/"):
				t.Errorf("foreign src=%q in %q", a.Val, out)
			}
		}
	})
}

func TestRenderMarkdownInert(t *testing.T) {
	tests := []struct {
		name, src string
		keep      string // text that must still be visible
	}{
		{name: "script tag", src: "hi <script>alert(1)</script>", keep: "hi"},
		{name: "script block", src: "<script>\nalert(1)\n</script>\n\nafter", keep: "after"},
		{name: "img onerror", src: `<img src=x onerror=alert(1)> text`, keep: "text"},
		{name: "markdown javascript link", src: "[x](javascript:alert(1))", keep: "x"},
		{name: "markdown javascript link, odd case", src: "[x](JaVaScRiPt:alert(1))", keep: "x"},
		{name: "html javascript link", src: `<a href="javascript:alert(1)">y</a>`, keep: "y"},
		{name: "data link", src: "[d](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)", keep: "d"},
		{name: "data image", src: "![pic](data:image/png;base64,iVBORw0KGgo=)", keep: "pic"},
		{name: "remote image becomes a link", src: "![tracker](https://evil.example/p.png?secret=1)", keep: "tracker"},
		{name: "iframe", src: `<iframe src="https://evil.example"></iframe> ok`, keep: "ok"},
		{name: "style", src: "<style>body{display:none}</style> ok", keep: "ok"},
		{name: "svg", src: `<svg onload=alert(1)></svg> ok`, keep: "ok"},
		{name: "autolink to javascript", src: "<javascript:alert(1)>", keep: ""},
		{name: "fence info injection", src: "```go\" onmouseover=\"alert(1)\nx\n```", keep: "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := web.RenderMarkdown(tt.src)
			assertInert(t, out)
			if text := parseHTML(t, out).Text(); !strings.Contains(text, tt.keep) {
				t.Errorf("text %q lost %q", text, tt.keep)
			}
		})
	}
}

func TestRenderMarkdownRawHTMLNotPassed(t *testing.T) {
	out := web.RenderMarkdown("<b>bold?</b> <div class=\"hl-k\">x</div>")
	if d := parseHTML(t, out); d.Find("b, div").Length() > 0 {
		t.Errorf("raw HTML passed: %q", out)
	}
}

func TestRenderMarkdownLinks(t *testing.T) {
	out := web.RenderMarkdown("[docs](https://go.dev/doc) and https://pkg.go.dev and [here](/s/abc)")
	links := parseHTML(t, out).Find("a")
	if links.Length() != 3 {
		t.Fatalf("%d links in %q, want 3", links.Length(), out)
	}
	links.Each(func(_ int, a *goquery.Selection) {
		if target, _ := a.Attr("target"); target != "_blank" {
			t.Errorf("%s: target %q, want _blank", a.Text(), target)
		}
		rel, _ := a.Attr("rel")
		for _, want := range []string{"nofollow", "noopener", "noreferrer"} {
			if !strings.Contains(rel, want) {
				t.Errorf("%s: rel %q lacks %s", a.Text(), rel, want)
			}
		}
	})
}

func TestRenderMarkdownImages(t *testing.T) {
	sha := strings.Repeat("ab", 32)
	out := web.RenderMarkdown("![own](/images/" + sha + ") ![remote](https://example.com/a.png)")
	d := parseHTML(t, out)
	if src, _ := d.Find("img").Attr("src"); src != "/images/"+sha || d.Find("img").Length() != 1 {
		t.Errorf("images in %q: want only the profile's own", out)
	}
	if href, _ := d.Find("a").Attr("href"); href != "https://example.com/a.png" {
		t.Errorf("remote image: want a link to it, got %q", out)
	}
}

func TestRenderMarkdownCodeHighlighted(t *testing.T) {
	out := web.RenderMarkdown("```go\nfunc main() {}\n```")
	d := parseHTML(t, out)
	if !d.Find("pre").HasClass("hl-chroma") {
		t.Errorf("no chroma class on <pre>: %q", out)
	}
	if kw := d.Find("span.hl-kd").Text(); kw != "func" {
		t.Errorf("keyword span = %q, want func, in %q", kw, out)
	}
	if strings.Contains(out, "style=") {
		t.Errorf("inline style in %q", out)
	}
}

func TestRenderMarkdownGFM(t *testing.T) {
	out := web.RenderMarkdown("| a | b |\n|---|---|\n| 1 | ~~2~~ |\n\n- [x] done\n- [ ] todo\n\n```\nplain\n```\n\n```nosuchlang\nx\n```")
	d := parseHTML(t, out)
	checks := map[string]int{
		"table td":                       2,
		"del":                            1,
		`input[type=checkbox][disabled]`: 2,
		`input[checked]`:                 1,
		"pre > code":                     2,
		`code.language-nosuchlang`:       1,
	}
	for sel, want := range checks {
		if got := d.Find(sel).Length(); got != want {
			t.Errorf("%s: %d, want %d, in %q", sel, got, want, out)
		}
	}
}
