package web

import (
	"bytes"
	"strings"
)

// openFence is the live code box of a fence still open at the end of the
// answer (TailHTML), kept so that each new line costs its own highlighting
// rather than the whole block's: rendering the whole open block again at
// every line cost the square of its length (a 400-line block took longer
// to stream through the renderer than the model takes to write it).
//
// New lines are highlighted on their own and spliced into the box; the
// whole box is highlighted again once its lines have doubled since it last
// was, which keeps the total work linear. A line highlighted on its own may
// be coloured differently from the same line in context (inside a comment
// or a string that spans lines) until the next whole rendering, or until
// the fence closes and message.blocks brings the block as the final
// message renders it; its height is the same either way, one line a line.
type openFence struct {
	start, end int    // the bytes of the answer the box covers: the fence's lines
	opening    string // the fence's first line, with its info string
	fence      []byte // its run of backticks or tildes
	html       string // the box
	lines      int    // lines of code in the box
	fullLines  int    // lines when the box was last rendered whole
}

// newOpenFence keeps the box html that renders src (whole lines from the
// opening fence, which is still open) at answer offset start.
func newOpenFence(src []byte, start int, html string) *openFence {
	opening, _, _ := bytes.Cut(src, []byte("\n"))
	lines := bytes.Count(src, []byte("\n")) - 1
	return &openFence{start: start, end: start + len(src), opening: string(opening) + "\n",
		fence: fenceOf(src), html: html, lines: lines, fullLines: lines}
}

// grow extends the box with answer[f.end:end] (whole lines that came
// after it) and returns false, changing nothing, when one of them may
// close the fence or the box cannot be spliced: the caller then parses the
// tail as a whole. render renders a closed fence's Markdown.
func (f *openFence) grow(answer []byte, end int, render func([]byte) string) bool {
	lines := answer[f.end:end]
	for line := range bytes.Lines(lines) {
		if mayCloseFence(line, f.fence) {
			return false
		}
	}
	n := bytes.Count(lines, []byte("\n"))
	if n == 0 {
		return true
	}
	if f.lines+n >= 2*f.fullLines {
		f.html = render(f.closed(answer[f.start:end]))
		f.fullLines = f.lines + n
	} else {
		html, ok := splice(f.html, render(f.closed(append([]byte(f.opening), lines...))))
		if !ok {
			return false
		}
		f.html = html
	}
	f.lines += n
	f.end = end
	return true
}

// closed is src, a fence's lines from its opening line, closed.
func (f *openFence) closed(src []byte) []byte {
	out := make([]byte, 0, len(src)+len(f.fence)+1)
	out = append(append(out, src...), f.fence...)
	return append(out, '\n')
}

// splice puts the code of part (a box of the new lines alone) at the end
// of box's code: both are sanitized renderings of one fenced block, so
// their code is a run of whole lines, each a balanced run of spans.
func splice(box, part string) (string, bool) {
	at := strings.LastIndex(box, "</code>")
	open := strings.Index(part, "<code")
	if at < 0 || open < 0 {
		return "", false
	}
	from := strings.IndexByte(part[open:], '>')
	to := strings.LastIndex(part, "</code>")
	if from < 0 || open+from+1 > to {
		return "", false
	}
	return box[:at] + part[open+from+1:to] + box[at:], true
}

// mayCloseFence reports whether line could be the fence's closing line:
// up to 3 spaces, then a run of the fence's character at least as long.
// It may say yes to a line that is not (the tail is then parsed as a
// whole, which decides), never no to one that is.
func mayCloseFence(line, fence []byte) bool {
	trimmed := bytes.TrimLeft(line, " ")
	if len(line)-len(trimmed) > 3 || len(fence) == 0 {
		return false
	}
	return bytes.HasPrefix(trimmed, bytes.Repeat(fence[:1], len(fence)))
}
