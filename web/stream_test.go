package web_test

import (
	"encoding/json"
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

// codeBar is the bar that leads a code block (web/markdown.go).
func codeBar(lang string) string {
	return `<div class="code-bar"><span class="code-lang">` + lang + `</span><button type="button" class="code-copy" data-testid="copy-code" aria-label="Copy the ` + lang + ` code">Copy</button></div>`
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
		{"a code block before a long line", "```go\nx := 1\n```\nThe rest of a long line", "<div class=\"code-block\" data-lang=\"go\">" + codeBar("go") + "<pre class=\"hl-chroma\"><code><span class=\"hl-line\"><span class=\"hl-cl\"><span class=\"hl-nx\">x</span><span class=\"hl-w\"> </span><span class=\"hl-o\">:=</span><span class=\"hl-w\"> </span><span class=\"hl-mi\">1</span><span class=\"hl-w\">\n</span></span></span></code></pre></div>\n", "The rest of a long line"},
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
		{"closed fence then text", "```\nx := 1\n```\nAfter\n", "<div class=\"code-block\">" + codeBar("text") + "<pre><code>x := 1\n</code></pre></div>\n", "After\n"},
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

// TestStreamGolden pins the block events (and their live tail) of a long answer sent as a model
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
			if live := r.TailHTML(); live != "" {
				fmt.Fprintf(&out, "--- live tail\n%s", live)
			}
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

// The benchmarks below cost one ~2,000-token answer (testdata/stream/
// answer.md: headings, lists, a table, two code blocks, paragraphs, 7.4 KB)
// sent as models send it, in deltas of 4 bytes, four ways: raw deltas and
// no rendering at all; raw deltas and one rendering at the end
// (message.end, what the tab had before); blocks rendered while streaming
// plus the final rendering (what it has now); and, to show what the
// incremental design saves, re-rendering the whole text at every newline.
// Each reports the bytes a tab receives (SSE frames: id, event, data) per
// answer. docs/PERFORMANCE.md has the figures.

const benchMessage = "01a22eac-965c-72f1-8203-8d7c47978358" // a message id's length

func benchAnswer(b *testing.B) string {
	b.Helper()
	src, err := os.ReadFile("testdata/stream/answer.md")
	if err != nil {
		b.Fatal(err)
	}
	return string(src)
}

// frameSize is the size of one SSE event as the hub writes it.
func frameSize(name string, data any) int {
	j, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	return len("id: 1764543223000000\nevent: "+name+"\ndata: \n\n") + len(j)
}

type deltaData struct {
	Message string `json:"message"`
	Text    string `json:"text"`
}

type blocksData struct {
	Message string `json:"message"`
	HTML    string `json:"html"`
	Upto    int    `json:"upto"`
	Tail    string `json:"tail,omitempty"`
}

// benchStream streams one answer per iteration. newRender, when not nil,
// makes what each delta also goes through for that answer, which returns
// the bytes of the events it adds beside the delta; end adds the final
// rendering (message.end).
func benchStream(b *testing.B, newRender func() func(delta string) int, end bool) {
	benchStreamOf(b, benchAnswer(b), newRender, end)
}

// benchStreamOf is benchStream of the answer src.
func benchStreamOf(b *testing.B, src string, newRender func() func(delta string) int, end bool) {
	var wire int
	for b.Loop() {
		wire = 0
		var render func(string) int
		if newRender != nil {
			render = newRender()
		}
		for s := src; len(s) > 0; {
			n := min(4, len(s))
			wire += frameSize("text.delta", deltaData{benchMessage, s[:n]})
			if render != nil {
				wire += render(s[:n])
			}
			s = s[n:]
		}
		if end {
			wire += frameSize("message.end", blocksData{Message: benchMessage, HTML: web.RenderMarkdown(src)})
		}
	}
	b.ReportMetric(float64(wire), "wire-B/answer")
}

func BenchmarkStreamAnswer(b *testing.B) {
	b.Run("raw-deltas-only", func(b *testing.B) { benchStream(b, nil, false) })
	b.Run("render-once-at-end", func(b *testing.B) { benchStream(b, nil, true) })
	b.Run("blocks-while-streaming", func(b *testing.B) {
		benchStream(b, func() func(string) int {
			r := web.NewStreamRenderer()
			return func(delta string) int {
				if html, ok := r.Write(delta); ok {
					return frameSize("message.blocks", blocksData{Message: benchMessage, HTML: html, Upto: r.Upto()})
				}
				return 0
			}
		}, true)
	})
	b.Run("rerender-whole-per-newline", func(b *testing.B) {
		benchStream(b, func() func(string) int {
			var text strings.Builder
			return func(delta string) int {
				text.WriteString(delta)
				if !strings.Contains(delta, "\n") {
					return 0
				}
				html := web.RenderMarkdown(text.String())
				return frameSize("message.blocks", blocksData{Message: benchMessage, HTML: html})
			}
		}, true)
	})
}

// streamBlocks is the renderer of the live session (server/live/turn.go):
// each delta goes through Write, and a true result is a message.blocks
// event, its html, upto and tail.
func streamBlocks() func(string) int {
	r := web.NewStreamRenderer()
	return func(delta string) int {
		if html, ok := r.Write(delta); ok {
			return frameSize("message.blocks", blocksData{benchMessage, html, r.Upto(), r.TailHTML()})
		}
		return 0
	}
}

// BenchmarkStreamShapes streams answers of one shape each, 4 bytes a
// delta, through the live renderer: what a shape costs that the mixed
// answer of BenchmarkStreamAnswer hides. "paragraph" is 2,000 words on one
// line (the fake model's [[text:2000]], the burst of issue 21's table);
// "code" is one fenced Go block of 400 lines, shown while open as a code
// box that grows a line at a time (TailHTML).
func BenchmarkStreamShapes(b *testing.B) {
	words := strings.Fields(strings.Repeat("alpha bravo charlie delta echo foxtrot golf hotel ", 250))
	var code strings.Builder
	code.WriteString("Here it is:\n\n```go\n")
	for i := range 400 {
		fmt.Fprintf(&code, "\tif err := step%d(ctx, \"name %d\"); err != nil { // step %d\n", i, i, i)
	}
	code.WriteString("```\n\nDone.")
	for _, tt := range []struct{ name, src string }{
		{"paragraph-2000-words", strings.Join(words, " ")},
		{"code-400-lines", code.String()},
	} {
		b.Run(tt.name, func(b *testing.B) { benchStreamOf(b, tt.src, streamBlocks, true) })
	}
}

// TestStreamTailHTML checks what the tab shows of the last block while it
// is written: an open code fence as a closed code box of its lines so far,
// a table as its complete rows, anything else as plain text ("").
func TestStreamTailHTML(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"a paragraph stays plain", "Some words\nand more", ""},
		{"a list stays plain", "- a\n- b", ""},
		{"an open fence is a code box", "```\nx := 1\ny", "<div class=\"code-block\">" + codeBar("text") + "<pre><code>x := 1\n</code></pre></div>\n"},
		{"an opened fence is an empty box", "~~~~\n", "<div class=\"code-block\">" + codeBar("text") + "<pre><code></code></pre></div>\n"},
		{"a closed fence stays as it is", "```\nx\n```\n", "<div class=\"code-block\">" + codeBar("text") + "<pre><code>x\n</code></pre></div>\n"},
		{"a longer fence is closed by its own length", "````\n```\n", "<div class=\"code-block\">" + codeBar("text") + "<pre><code>```\n</code></pre></div>\n"},
		{"a table without the row being written", "| a |\n| --- |\n| 1 |\n| 2", "<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n</tr>\n</tbody>\n</table>\n"},
		{"a header alone is not a table yet", "| a |\n| --", ""},
		{"plain again once the block completes", "```\nx\n```\n\nAfter", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, r := stream(tt.src, 1)
			if got := r.TailHTML(); got != tt.want {
				t.Errorf("TailHTML = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestStreamTailBecomesBlock checks that a code box shown while its fence
// was open is, once closed and complete, the block that replaces it: the
// box does not change as message.blocks takes it over.
func TestStreamTailBecomesBlock(t *testing.T) {
	r := web.NewStreamRenderer()
	r.Write("```go\nfunc f() {}\n")
	live := r.TailHTML()
	r.Write("```\n")
	html, _ := r.Write("\nNext")
	if live == "" || html != live {
		t.Errorf("live box %q, block %q: want the same", live, html)
	}
}

// TestStreamOpenFenceGrows checks the live code box of a long open fence,
// which grows by splicing each new line's rendering into it: at every
// delta it is the box the whole fence so far renders to, closed (for code
// whose lines highlight alone as they do in context), and once the fence
// closes the block is the final rendering.
func TestStreamOpenFenceGrows(t *testing.T) {
	var gocode, plain strings.Builder
	for i := range 40 {
		fmt.Fprintf(&gocode, "\tif err := step%d(ctx, \"name %d\"); err != nil { // step %d\n", i, i, i)
		fmt.Fprintf(&plain, "line %d <b>&amp;</b>\n", i)
	}
	for _, tt := range []struct{ name, open, body string }{
		{"go", "```go\n", gocode.String()},
		{"plain", "~~~~\n", plain.String()},
		{"indented", "  ```\n", plain.String()},
	} {
		for _, size := range []int{1, 3, 7, 64} {
			t.Run(fmt.Sprintf("%s/%d", tt.name, size), func(t *testing.T) {
				fence := strings.TrimRight(strings.TrimSpace(tt.open), "go")
				src := "Intro.\n\n" + tt.open + tt.body + fence + "\n\nDone."
				r := web.NewStreamRenderer()
				var blocks strings.Builder
				checked := 0
				for at := 0; at < len(src); at += size {
					delta := src[at:min(at+size, len(src))]
					html, _ := r.Write(delta)
					blocks.WriteString(html)
					sofar := src[:at+len(delta)]
					open := strings.Index(sofar, tt.open)
					nl := strings.LastIndexByte(sofar, '\n') + 1
					if open < 0 || nl <= open+len(tt.open) || nl == checked || strings.Contains(sofar[open:nl], "\n"+fence+"\n") {
						continue // before the fence's first line, no new line, or closed
					}
					checked = nl
					want := web.RenderMarkdown(sofar[open:nl] + fence + "\n")
					if got := r.TailHTML(); got != want {
						t.Fatalf("after %q, live box:\n%s\nwant:\n%s", sofar[max(0, len(sofar)-20):], got, want)
					}
				}
				r.Write("") // nothing new
				if got, want := blocks.String(), web.RenderMarkdown(src[:strings.Index(src, "Done.")]); got != want {
					t.Errorf("blocks:\n%s\nwant:\n%s", got, want)
				}
			})
		}
	}
}
