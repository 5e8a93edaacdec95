package mdtext_test

import (
	"testing"

	"myco/internal/mdtext"
)

func TestPlain(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"plain text stays", "just words", "just words"},
		{"emphasis markers go", "a **bold** and _slanted_ ~~gone~~ word", "a bold and slanted gone word"},
		{"heading marker goes", "# Title\n\nBody text", "Title\nBody text"},
		{"a hash mid-line is text", "issue #12 is open", "issue #12 is open"},
		{"list markers go", "- one\n- two\n\n1. three", "one\ntwo\nthree"},
		{"link keeps its text, not its target", "see [the docs](https://example.com/x) now", "see the docs now"},
		{"autolink keeps its address", "at <https://example.com>", "at https://example.com"},
		{"image keeps its alt text", "![a chart](c.png)", "a chart"},
		{"code span is text as written", "run `a **b** \\*c`", "run a **b** \\*c"},
		{"fenced code is text, fences go", "```go\nx := **y\n```", "x := **y"},
		{"indented code is text", "    # not a heading\n", "# not a heading"},
		{"escapes and references resolve", "\\*not emphasis\\* &amp; &#65;", "*not emphasis* & A"},
		{"soft break is a space", "one\ntwo", "one two"},
		{"table cells, rule gone", "| a | b |\n|---|---|\n| 1 | **2** |", "a\nb\n1\n2"},
		{"raw html shows as text", "a <b>tag</b> here", "a <b>tag</b> here"},
		{"quote marker goes", "> quoted **words**", "quoted words"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mdtext.Plain(tt.src); got != tt.want {
				t.Errorf("Plain(%q) = %q, want %q", tt.src, got, tt.want)
			}
		})
	}
}
