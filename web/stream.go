package web

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// StreamRenderer renders an answer while it streams, block by block,
// through the same goldmark, bluemonday and chroma path as RenderMarkdown,
// so the sanitizer sees everything the tab shows.
//
// Only complete top-level blocks are rendered: a block is complete once a
// later line has started another top-level block (see settled), since nothing
// written after that can change it (a paragraph can still become a setext
// heading or a table header, a list can still grow, a fence is open until
// it closes — all of those are the last block). The last block, and any
// line not yet ended, is the tail, which the tab shows as plain text. An
// ATX or setext heading and a thematic break are complete as soon as their
// line ends. Link definitions carry over from one rendered stretch to the
// next; the one thing rendered differently from the final message is a
// definition written after the link that uses it: the link shows as text
// until message.end replaces the whole message with its final rendering.
//
// The tail is plain text, but for two blocks that would otherwise stream
// as raw Markdown and then snap into a box of another height: an open
// code fence and a table. While the last block is one of those, TailHTML
// is it rendered as it would be were it to end at the last line break (an
// open fence closed; the row being written left out), so the tab shows a
// code box that grows a line at a time and a table that grows a row at a
// time, and the box message.end puts there has the same height.
//
// Each completed stretch is rendered once, and each check parses only what
// is not rendered yet, so the cost grows with the answer, not with its
// square. Checks run only when a line ends or a new one begins with a
// letter: a top-level block can only begin on a new line, so other deltas
// cannot complete one. That bounds the work by the number of lines rather
// than by a timer, and needs no goroutine to flush a block that completed
// just before a pause.
type StreamRenderer struct {
	refs    []parser.Reference // link definitions in the rendered part
	src     []byte
	lineAt  int        // where src's last line begins: just after its last newline
	done    int        // bytes of src already rendered
	doneU16 int        // the same length in UTF-16 code units, as the tab counts
	checked int        // the key of the last check (see settled)
	tail    string     // the open last block rendered (see TailHTML)
	fence   *openFence // the tail's code box while its fence is open
}

// settled is how much of the answer can be parsed without a character
// still to come changing which blocks come before the last one: up to the
// last newline, since a line being written can look like a block start
// that its next characters undo ("#" before "#tag", "-" before "- item");
// or all of it once the line after that newline has begun with a letter,
// which can only start a paragraph or go on with the block before it,
// whatever follows. A model writes a paragraph as one long line: without
// this, the blocks before it would wait for its end. key names the check,
// so each line is parsed at most twice, not once per delta.
func (r *StreamRenderer) settled() (end, key int) {
	nl := r.lineAt
	if c, _ := utf8.DecodeRune(r.src[nl:]); nl < len(r.src) && unicode.IsLetter(c) {
		return len(r.src), -(nl + 1)
	}
	return nl, nl
}

// NewStreamRenderer returns a renderer for one streaming answer.
func NewStreamRenderer() *StreamRenderer { return &StreamRenderer{} }

// Write appends delta to the answer. When that completes one or more
// top-level blocks it returns their sanitized HTML and true; Upto then
// says where the tail now starts. A block of only link definitions
// renders to "" and still returns true: the tail moved. It also returns
// true, with "" when no block completed, when TailHTML changed.
func (r *StreamRenderer) Write(delta string) (string, bool) {
	// The last newline is found in the delta, not in the whole answer: a
	// model writes a paragraph as one long line, and searching all of it
	// at each delta cost the square of its length (9% of a 2,000-word
	// burst's CPU).
	if i := strings.LastIndexByte(delta, '\n'); i >= 0 {
		r.lineAt = len(r.src) + i + 1
	}
	r.src = append(r.src, delta...)
	end, key := r.settled()
	if key == r.checked {
		return "", false // nothing that could complete a block came
	}
	r.checked = key
	if r.fence != nil {
		// An open fence completes nothing until a line closes it: its
		// new lines only grow the box.
		if r.fence.grow(r.src, r.lineAt, r.renderAlone) {
			changed := r.fence.html != r.tail
			r.tail = r.fence.html
			return "", changed
		}
		r.fence = nil
	}
	html, done := "", false
	if cut := completePrefix(r.src[r.done:end]); cut > 0 {
		chunk := r.src[r.done : r.done+cut]
		r.done += cut
		r.doneU16 += utf16Len(chunk)
		html, done = r.render(chunk), true
	}
	if tail := r.renderTail(); tail != r.tail {
		r.tail, done = tail, true
	}
	return html, done
}

// TailHTML is the last block rendered while it is still being written,
// when it is an open code fence or a table (up to its last complete
// line); "" when the tail is shown as plain text.
func (r *StreamRenderer) TailHTML() string { return r.tail }

// renderTail renders the tail's complete lines when they are one code
// fence or one table, as they would render were the answer to end there:
// an open fence is closed first. Other blocks stay plain: a paragraph or
// a list item is one long line, which would otherwise show only once it
// ended.
func (r *StreamRenderer) renderTail() string {
	end := r.lineAt
	if end <= r.done {
		return ""
	}
	src := r.src[r.done:end]
	switch lastBlockKind(src) {
	case extast.KindTable:
		return r.renderAlone(src)
	case ast.KindFencedCodeBlock:
		// Closing a fence that is still open leaves one block; closing one
		// already closed would open a second.
		closed := append(bytes.Clone(src), fenceOf(src)...)
		closed = append(closed, '\n')
		if lastBlockKind(closed) == ast.KindFencedCodeBlock {
			html := r.renderAlone(closed)
			r.fence = newOpenFence(src, r.done, html)
			return html
		}
		return r.renderAlone(src)
	}
	return ""
}

// renderAlone renders src as render does, without keeping its link
// definitions: it is rendered again once it grows.
func (r *StreamRenderer) renderAlone(src []byte) string {
	pc := parser.NewContext()
	for _, ref := range r.refs {
		pc.AddReference(ref)
	}
	return renderMarkdown(string(src), parser.WithContext(pc))
}

// lastBlockKind is the kind of the one top-level block src holds, or
// ast.KindDocument when it holds none or several.
func lastBlockKind(src []byte) ast.NodeKind {
	doc := markdown().Parser().Parse(text.NewReader(src))
	first := doc.FirstChild()
	if first == nil || first != doc.LastChild() {
		return ast.KindDocument
	}
	return first.Kind()
}

// fenceOf is the fence that opens the code block on src's first line:
// its run of backticks or tildes, which a closing fence must repeat.
func fenceOf(src []byte) []byte {
	line := bytes.TrimLeft(src, " ")
	if len(line) == 0 {
		return nil
	}
	c := line[0]
	n := 0
	for n < len(line) && line[n] == c {
		n++
	}
	return line[:n]
}

// render renders chunk knowing the link definitions of the chunks before
// it, as a rendering of the whole answer would; it adds chunk's own.
func (r *StreamRenderer) render(chunk []byte) string {
	pc := parser.NewContext()
	for _, ref := range r.refs {
		pc.AddReference(ref)
	}
	html := renderMarkdown(string(chunk), parser.WithContext(pc))
	r.refs = pc.References()
	return html
}

// Upto is the length of the rendered part of the answer in UTF-16 code
// units: the tab, whose strings are UTF-16, cuts its raw text there.
func (r *StreamRenderer) Upto() int { return r.doneU16 }

// Rendered is the length of the rendered part of the answer in bytes.
func (r *StreamRenderer) Rendered() int { return r.done }

// Tail is the text not rendered yet.
func (r *StreamRenderer) Tail() string { return string(r.src[r.done:]) }

// completePrefix is the length of the complete top-level blocks at the
// start of src (whole lines): everything before the line where the last
// top-level block begins, or 0 when there is one block or none.
func completePrefix(src []byte) int {
	doc := markdown().Parser().Parse(text.NewReader(src))
	last := doc.LastChild()
	if last == nil {
		return 0
	}
	if oneLine(last) {
		// Nothing after an ended heading or rule line can change it.
		return len(src)
	}
	if last == doc.FirstChild() {
		return 0
	}
	pos := last.Pos()
	if pos <= 0 || pos > len(src) {
		return 0 // no position: keep it all in the tail
	}
	return bytes.LastIndexByte(src[:pos], '\n') + 1
}

// oneLine reports whether n is a block that ends with its line: an ATX
// or setext heading, or a thematic break.
func oneLine(n ast.Node) bool {
	switch n.Kind() {
	case ast.KindHeading, ast.KindThematicBreak:
		return true
	}
	return false
}

// utf16Len is the length of b in UTF-16 code units; an invalid byte
// counts one, as it becomes one U+FFFD in the JSON the tab reads.
func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}
