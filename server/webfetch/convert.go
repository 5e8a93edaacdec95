package webfetch

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// toMarkdown turns an HTML page into its title and the Markdown of its
// main content: readability finds the article (navigation, footers and
// sidebars left out); a page it finds none in (an index, a short page)
// is converted whole but for its menus, footers and forms. Links and images are made absolute against the page's URL.
func toMarkdown(body []byte, cs string, pageURL *url.URL) (title, md string, err error) {
	r, err := charset.NewReader(bytes.NewReader(body), "text/html; charset="+cs)
	if err != nil {
		r = bytes.NewReader(body) // an unknown charset: read it as UTF-8
	}
	src, err := io.ReadAll(r)
	if err != nil {
		return "", "", fmt.Errorf("read the page: %w", err)
	}
	doc, err := html.Parse(bytes.NewReader(src))
	if err != nil {
		return "", "", fmt.Errorf("parse the page: %w", err)
	}
	node := doc
	if readability.CheckDocument(doc) {
		// ParseDocument changes the tree it is given: a copy of its own.
		mine, err := html.Parse(bytes.NewReader(src))
		if err == nil {
			if a, err := readability.FromDocument(mine, pageURL); err == nil && a.Node != nil {
				node, title = a.Node, a.Title()
			}
		}
	}
	if title == "" {
		title = pageTitle(doc)
	}
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(), strikethrough.NewStrikethroughPlugin(),
	))
	// A page converted whole keeps its text, not its chrome: menus,
	// footers and forms are not what the agent asked to read.
	for _, tag := range []string{"nav", "footer", "form", "button", "svg", "template"} {
		conv.Register.TagType(tag, converter.TagTypeRemove, converter.PriorityStandard)
	}
	out, err := conv.ConvertNode(node, converter.WithDomain(pageURL.String()))
	if err != nil {
		return "", "", fmt.Errorf("convert the page to Markdown: %w", err)
	}
	return strings.TrimSpace(title), tidy(string(out)), nil
}

// pageTitle is the text of the document's <title>.
func pageTitle(doc *html.Node) string {
	var find func(*html.Node) string
	find = func(n *html.Node) string {
		if n.Type == html.ElementNode && n.Data == "title" && n.FirstChild != nil {
			return strings.Join(strings.Fields(n.FirstChild.Data), " ")
		}
		if n.Type == html.ElementNode && n.Data == "body" {
			return "" // a <title> inside an SVG of the body is not the page's
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if t := find(c); t != "" {
				return t
			}
		}
		return ""
	}
	return find(doc)
}

var blankRuns = regexp.MustCompile(`\n{3,}`)

// tidy trims the Markdown and folds runs of blank lines, which cost the
// model tokens and say nothing.
func tidy(md string) string {
	return strings.TrimSpace(blankRuns.ReplaceAllString(strings.ReplaceAll(md, "\r\n", "\n"), "\n\n"))
}

// decodeText reads a text body in its charset (UTF-8 when none is said);
// bytes that are not text in it are dropped.
func decodeText(body []byte, cs string) string {
	if cs != "" && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
		r, err := charset.NewReaderLabel(cs, bytes.NewReader(body))
		if err == nil {
			if b, err := io.ReadAll(r); err == nil {
				body = b
			}
		}
	}
	text := string(body)
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	return text
}
