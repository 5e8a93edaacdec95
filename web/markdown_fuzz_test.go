package web_test

import (
	"regexp"
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
var (
	tagPattern = regexp.MustCompile(`<[a-zA-Z/][^>]*>`)
	badTag     = regexp.MustCompile(`^</?(script|iframe|object|embed)\b|\son[a-z]+\s*=|javascript:`)
)

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
		// Only real tags count: text shown as text is escaped (&lt;).
		for _, tag := range tagPattern.FindAllString(out, -1) {
			if bad := badTag.FindString(strings.ToLower(tag)); bad != "" {
				t.Fatalf("output carries %q in %s\n%s\nfrom:\n%q", bad, tag, out, src)
			}
		}
	})
}
