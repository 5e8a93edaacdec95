package web_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"myco/web"
)

// FuzzRenderMarkdown: rendering never panics, always returns valid UTF-8,
// and what it returns never carries a script, an event handler or a
// javascript: link, whatever the model writes (the output goes through
// templ.Raw). The sanitizer is what holds this; the target checks it
// holds for input nobody thought of.
func FuzzRenderMarkdown(f *testing.F) {
	for _, s := range []string{
		"", "# title\n\nsome *text* and `code`",
		"```go\nfunc main() {}\n```",
		"<script>alert(1)</script>",
		"[x](javascript:alert(1))",
		"<img src=x onerror=alert(1)>",
		"| a | b |\n|---|---|\n| 1 | 2 |",
		"- [x] done\n- [ ] todo",
		"[a]: javascript:alert(1)\n\n[a]",
		"<a href=\"jav&#x61;script:alert(1)\">x</a>",
		"<svg><script>alert(1)</script></svg>",
		"> " + strings.Repeat(">", 1000) + " deep",
		strings.Repeat("*", 5000),
		"\x00\xff\xfe",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 64<<10 {
			return // quadratic inputs in the parser are not what this looks for
		}
		out := web.RenderMarkdown(src)
		// Bytes that are not UTF-8 pass through as they came (JSON and
		// templ replace them on the way out); valid input stays valid.
		if utf8.ValidString(src) && !utf8.ValidString(out) {
			t.Fatalf("output is not UTF-8: %q", out)
		}
		low := strings.ToLower(out)
		for _, bad := range []string{"<script", "javascript:", " onerror=", " onload=", " onclick=", "<iframe", "<object", "<embed"} {
			if strings.Contains(low, bad) {
				t.Fatalf("output carries %q:\n%s\nfrom:\n%q", bad, out, src)
			}
		}
	})
}
