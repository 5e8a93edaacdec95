package web

import (
	"bytes"
	"html"
	"net/url"
	"regexp"
	"sync"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"myco/internal/lexers"
)

// HighlightClassPrefix starts every class chroma writes, so the sanitizer
// can let exactly those through and the generated CSS (web/chromacss)
// cannot collide with ours.
const HighlightClassPrefix = "hl-"

const classPrefix = HighlightClassPrefix

// chromaOptions make chroma write classes, never style attributes: the CSP
// (style-src 'self') would drop inline styles anyway.
var chromaOptions = []chromahtml.Option{
	chromahtml.WithClasses(true),
	chromahtml.ClassPrefix(classPrefix),
}

// markdown is goldmark with GitHub's extensions and chroma highlighting.
// Raw HTML is left out (no html.WithUnsafe): the sanitizer is the second
// guard, not the only one. It is built at the first message rendered, not
// in the package's initialisation: a start serves its first page (the
// home page renders no Markdown) without paying for it.
var markdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(
			extension.GFM,
		),
		goldmark.WithParserOptions(
			parser.WithASTTransformers(util.Prioritized(linkRules{}, 100)),
		),
		goldmark.WithRendererOptions(
			// Ahead of goldmark's own renderer (priority 1000), which would
			// drop raw HTML and the text around it.
			renderer.WithNodeRenderers(
				util.Prioritized(rawHTMLAsText{}, 100),
				util.Prioritized(fencedCode{lexers: new(lexers.Registry)}, 200),
			),
		),
	)
})

// codeBlockWrapper puts every fenced code block in a <div
// class="code-block" data-lang="…"> led by its bar: the language and a
// Copy button (static/copy.js copies). The bar is in the HTML rather than
// added by the tab, so a page, or a block streaming in, is drawn once at
// its final height. A block chroma did not highlight gets the <pre><code
// class="language-x"> goldmark would have written.
func codeBlockWrapper(w util.BufWriter, lang []byte, highlighted, entering bool) {
	if !codeLang().Match(lang) {
		lang = nil
	}
	if entering {
		_, _ = w.WriteString(`<div class="code-block"`)
		if lang != nil {
			_, _ = w.WriteString(` data-lang="` + html.EscapeString(string(lang)) + `"`)
		}
		_, _ = w.WriteString(">")
		writeCodeBar(w, lang)
		if !highlighted {
			_, _ = w.WriteString("<pre><code")
			if lang != nil {
				_, _ = w.WriteString(` class="language-` + html.EscapeString(string(lang)) + `"`)
			}
			_, _ = w.WriteString(">")
		}
		return
	}
	if !highlighted {
		_, _ = w.WriteString("</code></pre>")
	}
	_, _ = w.WriteString("</div>\n")
}

// writeCodeBar writes a code block's bar: its language ("text" when it
// has none) and the Copy button.
func writeCodeBar(w util.BufWriter, lang []byte) {
	name := "text"
	if lang != nil {
		name = html.EscapeString(string(lang))
	}
	_, _ = w.WriteString(`<div class="code-bar"><span class="code-lang">` + name + `</span>` +
		`<button type="button" class="code-copy" data-testid="copy-code" aria-label="Copy the ` + name + ` code">Copy</button></div>`)
}

// rawHTMLAsText shows HTML written in markdown as the text it is, rather
// than dropping it: an agent writing "<div>" means the characters more
// often than the element, and a block of HTML is all lost otherwise.
type rawHTMLAsText struct{}

func (rawHTMLAsText) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
	reg.Register(ast.KindRawHTML, renderRawHTML)
}

func renderHTMLBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.HTMLBlock)
	if !entering {
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString("<pre><code>")
	for i := range n.Lines().Len() {
		seg := n.Lines().At(i)
		_, _ = w.WriteString(html.EscapeString(string(seg.Value(source))))
	}
	if n.HasClosure() {
		_, _ = w.WriteString(html.EscapeString(string(n.ClosureLine.Value(source))))
	}
	_, _ = w.WriteString("</code></pre>\n")
	return ast.WalkContinue, nil
}

func renderRawHTML(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	n := node.(*ast.RawHTML)
	for i := range n.Segments.Len() {
		seg := n.Segments.At(i)
		_, _ = w.WriteString(html.EscapeString(string(seg.Value(source))))
	}
	return ast.WalkSkipChildren, nil
}

// linkRules open every link in a new tab, so following one never navigates
// away from a conversation (the sanitizer adds rel=noopener), and turn
// images that are not the profile's own into links: loading a remote image
// would report to a stranger's server whenever the page is opened.
type linkRules struct{}

func (linkRules) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	var foreign []*ast.Image
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link, *ast.AutoLink:
			n.SetAttributeString("target", "_blank")
		case *ast.Image:
			if !ownImage().Match(n.Destination) {
				foreign = append(foreign, n)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, img := range foreign {
		imageToLink(img)
	}
}

// imageToLink replaces img by a link to its destination, labelled with its
// alt text.
func imageToLink(img *ast.Image) {
	link := ast.NewLink()
	link.Destination, link.Title = img.Destination, img.Title
	link.SetAttributeString("target", "_blank")
	for c := img.FirstChild(); c != nil; {
		next := c.NextSibling()
		link.AppendChild(link, c)
		c = next
	}
	if !link.HasChildren() {
		link.AppendChild(link, ast.NewString(img.Destination))
	}
	img.Parent().ReplaceChild(img.Parent(), img, link)
}

// Patterns of the few attributes allowed beyond bluemonday's UGC policy,
// compiled at the first message rendered, like markdown and policy.
var (
	// codeClass: chroma's own classes, or the language of a fence chroma
	// does not know (goldmark writes class="language-x" then).
	codeClass = lazyRegexp(`^(?:` + classPrefix + `[a-z0-9]+(?: ` + classPrefix + `[a-z0-9]+)*|language-[A-Za-z0-9_+#.-]+|code-block|code-bar|code-lang)$`)
	// codeLang: a fence's language, as data-lang on the code block's div.
	codeLang = lazyRegexp(`^[A-Za-z0-9_+#.-]{1,32}$`)
	// ownImage: the only images markdown may show are the profile's own.
	ownImage = lazyRegexp(`^/images/[0-9a-f]{64}$`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// policy is the sanitizer, built at its first use.
var policy = sync.OnceValue(newPolicy)

func newPolicy() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowAttrs("class").Matching(codeClass()).OnElements("code", "span", "pre", "div", "table", "td")
	// UGCPolicy allows any http(s) image and allow-lists cannot narrow it;
	// linkRules already turned foreign images into links, and this blanks
	// any that should get past it.
	p.RewriteSrc(func(u *url.URL) {
		if !ownImage().MatchString(u.String()) {
			*u = url.URL{}
		}
	})
	p.AllowAttrs("data-lang").Matching(codeLang()).OnElements("div")
	// A code block's Copy button (writeCodeBar): inert without the tab's
	// script, which the CSP alone may run.
	p.AllowElements("button")
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^button$`)).OnElements("button")
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^code-copy$`)).OnElements("button")
	p.AllowAttrs("data-testid").Matching(regexp.MustCompile(`^copy-code$`)).OnElements("button")
	p.AllowAttrs("aria-label").Matching(regexp.MustCompile(`^Copy the [A-Za-z0-9_+#.-]{1,32} code$`)).OnElements("button")
	p.AllowAttrs("target").Matching(regexp.MustCompile(`^_blank$`)).OnElements("a")
	p.RequireNoFollowOnLinks(true)
	p.RequireNoReferrerOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	// GFM task lists: read-only checkboxes.
	p.AllowElements("input")
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("checked", "disabled").Matching(regexp.MustCompile(`^$`)).OnElements("input")
	return p
}

// RenderMarkdown renders markdown (GFM, highlighted code) to sanitized HTML,
// the only HTML a component may pass through templ.Raw.
func RenderMarkdown(src string) string {
	return renderMarkdown(src)
}

// renderMarkdown is RenderMarkdown with parse options: a StreamRenderer
// passes the link definitions of the blocks it rendered before.
func renderMarkdown(src string, opts ...parser.ParseOption) string {
	var buf bytes.Buffer
	if err := markdown().Convert([]byte(src), &buf, opts...); err != nil {
		// Goldmark fails only when writing fails, which a buffer does not;
		// should it ever, the text is still shown, escaped.
		return "<pre>" + html.EscapeString(src) + "</pre>"
	}
	return policy().Sanitize(buf.String())
}
