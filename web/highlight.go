package web

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"myco/internal/lexers"
)

// fencedCode renders fenced code blocks, highlighted by chroma when the
// fence names a language of internal/lexers, in a codeBlockWrapper.
//
// It does what goldmark-highlighting (v2, 37449ab, MIT) did for us, in its
// words and with its info-string attributes (hl_lines, linenos,
// linenostart, nohl), minus what myco never used: guessing a language and
// inline styles. goldmark-highlighting imports chroma's lexers and styles
// packages, whose initialisation parses every lexer and style chroma has
// (30-55 ms of each start of myco, before the first page); this imports
// neither. The HTML is the same: the classes are chroma's, so the style a
// formatter is given changes nothing of it.
type fencedCode struct {
	lexers *lexers.Registry
}

func (r fencedCode) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, r.render)
}

// noStyle is the style chroma's formatter wants: with classes it writes
// none of it.
var noStyle = chroma.MustNewStyle("none", chroma.StyleEntries{})

// Info-string attributes: ```go {linenos=table,hl_lines=[2,"4-5"]}.
var (
	attrHighlightLines = []byte("hl_lines")
	attrNoHighlight    = []byte("nohl")
	attrLineNumbers    = []byte("linenos")
	attrLineStart      = []byte("linenostart")
)

func (r fencedCode) render(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.FencedCodeBlock)
	lang := n.Language(source)
	opts, nohl := chromaOptions, false
	if attrs := infoAttributes(n, source); attrs != nil {
		opts, nohl = withAttributes(attrs)
	}
	var lexer chroma.Lexer
	if lang != nil && !nohl {
		lexer = r.lexers.Get(string(lang))
	}
	if lexer != nil {
		var code bytes.Buffer
		for i := range n.Lines().Len() {
			line := n.Lines().At(i)
			code.Write(line.Value(source))
		}
		if it, err := chroma.Coalesce(lexer).Tokenise(nil, code.String()); err == nil {
			codeBlockWrapper(w, lang, true, true)
			_ = chromahtml.New(opts...).Format(w, noStyle, it)
			codeBlockWrapper(w, lang, true, false)
			return ast.WalkContinue, nil
		}
	}
	codeBlockWrapper(w, lang, false, true)
	for i := range n.Lines().Len() {
		line := n.Lines().At(i)
		gmhtml.DefaultWriter.RawWrite(w, line.Value(source))
	}
	codeBlockWrapper(w, lang, false, false)
	return ast.WalkContinue, nil
}

// infoAttributes reads the {…} after a fence's language, or nil.
func infoAttributes(n *ast.FencedCodeBlock, source []byte) []parser.Attribute {
	if n.Info == nil {
		return nil
	}
	info := n.Info.Segment.Value(source)
	at := bytes.IndexByte(info, '{')
	if at <= 0 {
		return nil
	}
	attrs, ok := parser.ParseAttributes(text.NewReader(info[at:]))
	if !ok {
		return nil
	}
	return attrs
}

// withAttributes is chromaOptions with what attrs ask for, and whether
// they ask for no highlighting. A later attribute of the same name wins,
// as it did in goldmark-highlighting (which kept them on a node).
func withAttributes(attrs []parser.Attribute) ([]chromahtml.Option, bool) {
	get := func(name []byte) (any, bool) {
		var v any
		found := false
		for _, a := range attrs {
			if bytes.Equal(a.Name, name) {
				v, found = a.Value, true
			}
		}
		return v, found
	}
	opts := append([]chromahtml.Option(nil), chromaOptions...)
	base := 1
	if v, ok := get(attrLineStart); ok {
		if start, ok := v.(float64); ok {
			base = int(start)
			opts = append(opts, chromahtml.BaseLineNumber(base))
		}
	}
	if v, ok := get(attrHighlightLines); ok {
		if lines, ok := v.([]any); ok {
			opts = append(opts, chromahtml.HighlightLines(lineRanges(lines, base)))
		}
	}
	_, nohl := get(attrNoHighlight)
	if v, ok := get(attrLineNumbers); ok {
		switch v := v.(type) {
		case bool:
			opts = append(opts, chromahtml.WithLineNumbers(v))
		case []byte:
			opts = append(opts, chromahtml.WithLineNumbers(true))
			switch string(v) {
			case "table":
				opts = append(opts, chromahtml.LineNumbersInTable(true))
			case "inline":
				opts = append(opts, chromahtml.LineNumbersInTable(false))
			}
		}
	}
	return opts, nohl
}

// lineRanges reads hl_lines: numbers and "from-to" strings, counted from
// the block's first line number.
func lineRanges(lines []any, base int) [][2]int {
	var out [][2]int
	for _, l := range lines {
		switch l := l.(type) {
		case float64:
			out = append(out, [2]int{int(l) + base - 1, int(l) + base - 1})
		case []byte:
			parts := strings.Split(string(l), "-")
			lhs, err := strconv.Atoi(parts[0])
			if err != nil {
				continue
			}
			rhs := lhs
			if len(parts) > 1 {
				if rhs, err = strconv.Atoi(parts[1]); err != nil {
					continue
				}
			}
			out = append(out, [2]int{lhs + base - 1, rhs + base - 1})
		}
	}
	return out
}
