package web_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"myco/web"
)

// stream feeds src to a new renderer in deltas of size bytes (the last
// one shorter) and returns the HTML of every block event, and the renderer.
func stream(src string, size int) ([]string, *web.StreamRenderer) {
	r := web.NewStreamRenderer()
	var events []string
	for len(src) > 0 {
		n := min(size, len(src))
		if html, ok := r.Write(src[:n]); ok {
			events = append(events, html)
		}
		src = src[n:]
	}
	return events, r
}

// TestStreamBlocks checks which blocks count as complete while an answer
// streams, one character at a time: a complete block is rendered, the
// rest stays in the tail.
func TestStreamBlocks(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		wantHTML string
		wantTail string
	}{
		{"nothing ended yet", "Hello, wor", "", "Hello, wor"},
		{"one paragraph stays", "A paragraph\nthat goes on\n", "", "A paragraph\nthat goes on\n"},
		{"paragraph then another", "One.\n\nTwo\n", "<p>One.</p>\n", "Two\n"},
		{"a paragraph begun with a letter ends the block before", "One.\n\nTw", "<p>One.</p>\n", "Tw"},
		{"a code block before a long line", "```go\nx := 1\n```\nThe rest of a long line", "<div class=\"code-block\" data-lang=\"go\"><pre class=\"hl-chroma\"><code><span class=\"hl-line\"><span class=\"hl-cl\"><span class=\"hl-nx\">x</span><span class=\"hl-w\"> </span><span class=\"hl-o\">:=</span><span class=\"hl-w\"> </span><span class=\"hl-mi\">1</span><span class=\"hl-w\">\n</span></span></span></code></pre></div>\n", "The rest of a long line"},
		{"a line begun otherwise must end", "One.\n\n- Tw", "", "One.\n\n- Tw"},
		{"a line begun with a letter may continue a list", "- a\nlazy", "", "- a\nlazy"},
		{"a line begun with a letter may be a table row", "| a |\n| --- |\n| 1 |\nmore", "", "| a |\n| --- |\n| 1 |\nmore"},
		{"heading ends with its line", "# Title\n", "<h1>Title</h1>\n", ""},
		{"heading then text", "## Part\nSome text\n", "<h2>Part</h2>\n", "Some text\n"},
		{"rule ends with its line", "Text\n\n***\n", "<p>Text</p>\n<hr>\n", ""},
		{"list stays while items come", "- a\n- b\n- c\n", "", "- a\n- b\n- c\n"},
		{"list with a blank line stays", "- a\n\n- b\n", "", "- a\n\n- b\n"},
		{"list item continued after a blank", "1. a\n\n   more\n", "", "1. a\n\n   more\n"},
		{"list ends at a paragraph", "- a\n- b\n\nAfter.\n", "<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n", "After.\n"},
		{"open fence stays", "```go\nfunc f() {}\n\n# not a heading\n", "", "```go\nfunc f() {}\n\n# not a heading\n"},
		{"closed fence then text", "```\nx := 1\n```\nAfter\n", "<div class=\"code-block\"><pre><code>x := 1\n</code></pre></div>\n", "After\n"},
		{"table rows keep coming", "| a | b |\n| --- | --- |\n| 1 | 2 |\n| 3 | 4 |\n", "", "| a | b |\n| --- | --- |\n| 1 | 2 |\n| 3 | 4 |\n"},
		{"text after a table is a row", "| a |\n| --- |\n| 1 |\nmore\n", "", "| a |\n| --- |\n| 1 |\nmore\n"},
		{
			"table ends at a blank line", "| a |\n| --- |\n| 1 |\n\nAfter\n",
			"<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n</tr>\n</tbody>\n</table>\n", "After\n",
		},
		{"paragraph may become a setext heading", "Title\n", "", "Title\n"},
		{"setext heading", "Title\n=====\n", "<h1>Title</h1>\n", ""},
		{"a dash under a paragraph is not yet a list", "Para\n-", "", "Para\n-"},
		{"lazy continuation of a quote", "> quoted\nlazy line\n", "", "> quoted\nlazy line\n"},
		{"quote ends at a blank line", "> quoted\n\nAfter\n", "<blockquote>\n<p>quoted</p>\n</blockquote>\n", "After\n"},
		{"hash without space continues the paragraph", "Para\n#tag\n", "", "Para\n#tag\n"},
		{"raw HTML shown as text", "<div>\nx\n</div>\n\nAfter\n", "<pre><code>&lt;div&gt;\nx\n&lt;/div&gt;\n</code></pre>\n", "After\n"},
		{"link defined before", "[x]: https://go.dev\n\nSee [x].\n\nEnd\n", "<p>See <a href=\"https://go.dev\" target=\"_blank\" rel=\"nofollow noreferrer noopener\">x</a>.</p>\n", "End\n"},
		// Known limit: a definition after its use; message.end fixes it.
		{"link defined later", "See [x].\n\n[x]: https://go.dev\n\nEnd\n", "<p>See [x].</p>\n", "End\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events, r := stream(tt.src, 1)
			if got := strings.Join(events, ""); got != tt.wantHTML {
				t.Errorf("html = %q, want %q", got, tt.wantHTML)
			}
			if got := r.Tail(); got != tt.wantTail {
				t.Errorf("tail = %q, want %q", got, tt.wantTail)
			}
			if r.Rendered()+len(r.Tail()) != len(tt.src) {
				t.Errorf("rendered %d + tail %d != %d", r.Rendered(), len(r.Tail()), len(tt.src))
			}
		})
	}
}

// TestStreamUptoUTF16 checks that Upto counts as the tab's strings do.
func TestStreamUptoUTF16(t *testing.T) {
	src := "Café 🍄 naïve\n\nnext\n"
	r := web.NewStreamRenderer()
	if _, ok := r.Write(src); !ok {
		t.Fatal("no block completed")
	}
	rendered := src[:r.Rendered()]
	if want := len(utf16.Encode([]rune(rendered))); r.Upto() != want {
		t.Errorf("Upto = %d, want %d (UTF-16 units of %q)", r.Upto(), want, rendered)
	}
	if r.Upto() == r.Rendered() {
		t.Errorf("Upto equals the byte count %d: not UTF-16", r.Upto())
	}
}

// TestStreamMatchesFinal checks, for whole answers, that what the tab
// shows as it streams becomes what the final rendering shows: the blocks
// sent while streaming followed by the tail rendered equal the whole
// answer rendered at once, whatever the size of the deltas. So when
// message.end swaps in the final HTML, the rendered blocks do not move.
func TestStreamMatchesFinal(t *testing.T) {
	files, err := filepath.Glob("testdata/stream/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no answers in testdata/stream: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		want := web.RenderMarkdown(src)
		for _, size := range []int{1, 4, 7, 64, len(src)} {
			t.Run(fmt.Sprintf("%s/%d", filepath.Base(f), size), func(t *testing.T) {
				events, r := stream(src, size)
				got := strings.Join(events, "") + web.RenderMarkdown(r.Tail())
				if got != want {
					t.Errorf("streamed blocks + tail differ from the final rendering\n got: %s\nwant: %s", got, want)
				}
				if size < len(src) && len(events) < 5 {
					t.Errorf("%d block events: blocks were not rendered while streaming", len(events))
				}
			})
		}
	}
}

// TestStreamGolden pins the block events of a long answer sent as a model
// sends it (4 bytes at a time): go test ./web -run StreamGolden -update.
func TestStreamGolden(t *testing.T) {
	src, err := os.ReadFile("testdata/stream/answer.md")
	if err != nil {
		t.Fatal(err)
	}
	r := web.NewStreamRenderer()
	var out strings.Builder
	for s := string(src); len(s) > 0; {
		n := min(4, len(s))
		if html, ok := r.Write(s[:n]); ok {
			fmt.Fprintf(&out, "--- upto %d\n%s", r.Upto(), html)
		}
		s = s[n:]
	}
	fmt.Fprintf(&out, "--- tail\n%s", r.Tail())
	golden := "testdata/stream/answer.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if out.String() != string(want) {
		t.Errorf("block events differ from %s (run with -update and review the diff)", golden)
	}
}
