// Package mdtext turns Markdown into the plain text a reader sees: what a
// search excerpt shows of an answer the page renders as Markdown.
package mdtext

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// gfm parses as the page's renderer does (web/markdown.go: goldmark with
// GitHub's extensions), so what is markup there is markup here.
var gfm = goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()

// Plain is the text of Markdown src without its markup: the text of every
// paragraph, heading, list item, table cell, link and image (its alt
// text), code as written, raw HTML as the page shows it (as text). Blocks
// are separated by a line break, a soft line break is a space. Emphasis
// markers, heading and list markers, fences, link targets and table rules
// are left out; backslash escapes and character references are resolved
// outside code, as the page shows them.
//
// The parser's AST is walked rather than the markup cut with regular
// expressions: only the parser knows that `**` in code is text, or that a
// `#` mid-line is not a heading.
func Plain(src string) string {
	source := []byte(src)
	doc := gfm.Parse(text.NewReader(source), parser.WithContext(parser.NewContext()))
	var b strings.Builder
	b.Grow(len(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			if n.Type() == ast.TypeBlock { // table cells are blocks too
				breakLine(&b)
			}
			return ast.WalkContinue, nil
		}
		return writeNode(&b, n, source), nil
	})
	return strings.TrimSpace(b.String())
}

// writeNode writes the text n holds itself and says whether its children
// are still to be walked.
func writeNode(b *strings.Builder, n ast.Node, source []byte) ast.WalkStatus {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Segment.Value(source)
		if !n.IsRaw() {
			v = util.UnescapePunctuations(util.ResolveEntityNames(util.ResolveNumericReferences(v)))
		}
		b.Write(v)
		switch {
		case n.HardLineBreak():
			b.WriteByte('\n')
		case n.SoftLineBreak():
			b.WriteByte(' ')
		}
	case *ast.String:
		b.Write(n.Value)
	case *ast.CodeSpan:
		// Code is text as written: no escapes are resolved in it.
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				b.Write(t.Segment.Value(source))
			}
		}
		return ast.WalkSkipChildren
	case *ast.AutoLink:
		b.Write(n.Label(source))
	case *ast.RawHTML:
		b.Write(n.Segments.Value(source))
	case *ast.CodeBlock, *ast.FencedCodeBlock, *ast.HTMLBlock:
		writeLines(b, n.Lines(), source)
		if h, ok := n.(*ast.HTMLBlock); ok && h.HasClosure() {
			b.Write(h.ClosureLine.Value(source))
		}
	}
	return ast.WalkContinue
}

func writeLines(b *strings.Builder, lines *text.Segments, source []byte) {
	for i := range lines.Len() {
		line := lines.At(i)
		b.Write(line.Value(source))
	}
}

// breakLine ends a block with one line break, unless the text already
// ends with white space (an empty block, or lines that kept theirs).
func breakLine(b *strings.Builder) {
	s := b.String()
	if s != "" && !strings.HasSuffix(s, "\n") && !strings.HasSuffix(s, " ") {
		b.WriteByte('\n')
	}
}
