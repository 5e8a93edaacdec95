package export

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"sync"

	"github.com/a-h/templ"

	"myco/session"
	"myco/static"
	"myco/web"
)

// csp is the page's own Content-Security-Policy: no script, no request of
// any kind; only its inline styles and its data: images.
const csp = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

// pageCSS is the part of static/style.css a transcript needs, with the
// highlighted code's CSS (static/chroma.css) added at render time.
//
//go:embed export.css
var pageCSS string

// foldLines is the length past which a tool's output starts folded: the
// page stays readable, and <details> opens without a script.
const foldLines = 30

type pageView struct {
	Title   string
	Facts   []string
	Parent  string
	Links   []session.Link
	Scratch string
	Threads []threadView
}

type threadView struct {
	Heading     string
	Compacted   bool
	Note        string
	SummaryHTML string
	Messages    []messageView
}

type messageView struct {
	Anchor, Label, Time, Model string
	Human, Assistant           bool
	Note                       string
	Failed                     bool
	Blocks                     []blockView
}

type blockView struct {
	Kind string // text, image, missing, call, result, other
	HTML string // text: sanitized Markdown
	// image: the data: URI, made here from bytes read and sniffed as an
	// image; missing: the words shown instead.
	Src  templ.SafeURL
	Alt  string
	Name string // call, result: the tool; other: the block type
	ID   string
	Body string // call: the input; result: the output
	// result only
	Status, Duration string
	Error, Fold      bool
}

// renderHTML writes doc as one page that needs nothing else: its CSS
// inline, its images as data: URIs, no script, and a CSP that forbids
// any.
func renderHTML(doc *session.Document, images ImageSource) ([]byte, error) {
	var css bytes.Buffer
	css.WriteString(pageCSS)
	highlight, err := fs.ReadFile(static.FS, "chroma.css")
	if err != nil {
		return nil, fmt.Errorf("reading the highlighting CSS: %w", err)
	}
	css.Write(highlight)
	e := &embedder{images: images, srcs: map[string]string{}}
	v := e.page(doc)
	var buf bytes.Buffer
	if err := page(v, css.String()).Render(context.Background(), &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// embedder builds the page's view, reading each image once.
type embedder struct {
	images ImageSource
	srcs   map[string]string // sha → data: URI, "" when it cannot be shown
	names  map[string]string
}

func (e *embedder) page(doc *session.Document) pageView {
	e.names = toolNames(doc)
	v := pageView{Title: titleOr(doc.Title), Links: doc.Links, Scratch: doc.Scratchpad}
	if doc.Model != "" {
		v.Facts = append(v.Facts, "Model "+doc.Model)
	}
	if doc.Cwd != "" {
		v.Facts = append(v.Facts, "Folder "+doc.Cwd)
	}
	v.Facts = append(v.Facts, "Created "+dayText(doc.CreatedAt), "Last activity "+dayText(doc.UpdatedAt), "Session "+doc.ID)
	if p := doc.Parent; p != nil {
		v.Parent = "Forked from session " + p.Session
	}
	for i, t := range doc.Threads {
		v.Threads = append(v.Threads, e.thread(i, len(doc.Threads), t))
	}
	return v
}

func (e *embedder) thread(i, n int, t session.Thread) threadView {
	v := threadView{Heading: threadHeading(i, n), Compacted: i < n-1}
	notes := []string{}
	if v.Compacted {
		notes = append(notes, compactedNote(i))
	}
	if note := successorNote(t); note != "" {
		notes = append(notes, note)
	}
	v.Note = strings.Join(notes, " ")
	if t.Summary != "" {
		v.SummaryHTML = e.markdown(t.Summary)
	}
	for _, m := range t.Messages {
		mv := e.message(m)
		// A carried message is in two threads: its anchor names which.
		mv.Anchor = fmt.Sprintf("t%d-%s", i+1, m.ID)
		v.Messages = append(v.Messages, mv)
	}
	return v
}

func (e *embedder) message(m session.Message) messageView {
	v := messageView{
		Label: label(m), Human: m.Human, Assistant: m.Role == "assistant",
		Note: stopNote(m), Failed: m.Error != nil || m.StopReason == session.StopError,
	}
	if !m.At.IsZero() {
		v.Time = timeText(m.At)
	}
	if v.Assistant {
		v.Model = m.Model
	}
	for _, b := range m.Content {
		v.Blocks = append(v.Blocks, e.block(b))
	}
	return v
}

func (e *embedder) block(b session.Block) blockView {
	switch b.Type {
	case session.BlockText:
		return blockView{Kind: "text", HTML: e.markdown(b.Text)}
	case session.BlockImage:
		return e.image(b)
	case session.BlockFile:
		return blockView{Kind: "file", Name: b.Name, Alt: session.HumanSize(b.Size) + ", " + b.MediaType, ID: b.SHA256}
	case session.BlockToolUse:
		return blockView{Kind: "call", Name: b.Name, ID: b.ID, Body: indentJSON(b.Input)}
	case session.BlockToolResult:
		out := b.ResultText()
		return blockView{
			Kind: "result", Name: e.names[b.ToolUseID], ID: b.ToolUseID, Body: out,
			Status: resultStatus(b), Duration: durationText(b.DurationMS),
			Error: b.IsError, Fold: strings.Count(out, "\n") >= foldLines,
		}
	default:
		return blockView{Kind: "other", Name: b.Type}
	}
}

// image embeds an image block: from the image store, or a legacy inline
// one from the document. One that cannot be shown says so.
func (e *embedder) image(b session.Block) blockView {
	var src string
	switch {
	case b.SHA256 != "":
		src = e.stored(b.SHA256)
	case b.Data != "":
		src = inlineSrc(b.MediaType, b.Data)
	}
	if src == "" {
		what := "image " + b.SHA256 + " missing"
		if b.SHA256 == "" {
			what = "inline image missing"
		}
		return blockView{Kind: "missing", Alt: what}
	}
	return blockView{Kind: "image", Src: templ.SafeURL(src), Alt: imageAlt(b.MediaType)}
}

// stored is the data: URI of blob sha, "" when it is missing, corrupt or
// not an image the page may show.
func (e *embedder) stored(sha string) string {
	if src, ok := e.srcs[sha]; ok {
		return src
	}
	src := ""
	if e.images != nil {
		if data, ref, err := e.images.Read(sha); err == nil && shownType(ref.MediaType) {
			src = "data:" + ref.MediaType + ";base64," + base64.StdEncoding.EncodeToString(data)
		}
	}
	e.srcs[sha] = src
	return src
}

// inlineSrc is the data: URI of a legacy inline image, "" when its type
// is not one the page shows or its data is not base64.
func inlineSrc(mediaType, data string) string {
	if !shownType(mediaType) {
		return ""
	}
	if _, err := base64.StdEncoding.DecodeString(data); err != nil {
		return ""
	}
	return "data:" + mediaType + ";base64," + data
}

// shownType: raster types only. SVG is left out: an image that is a
// document could carry script or fetch.
func shownType(mediaType string) bool {
	switch mediaType {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

func imageAlt(mediaType string) string {
	if mediaType == "" {
		return "Image"
	}
	return "Image (" + mediaType + ")"
}

// ownImageSrc is how sanitized Markdown refers to the profile's images,
// compiled at the first export rather than at every start of myco.
var ownImageSrc = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`src="/images/([0-9a-f]{64})"`) })

// markdown renders text through the page's own sanitized path, then swaps
// the profile's image URLs, which mean nothing in a file, for the images.
func (e *embedder) markdown(text string) string {
	html := web.RenderMarkdown(text)
	return ownImageSrc().ReplaceAllStringFunc(html, func(m string) string {
		return `src="` + e.stored(ownImageSrc().FindStringSubmatch(m)[1]) + `"`
	})
}

// linkText is a link's title, else its URL.
func linkText(title, url string) string {
	if title != "" {
		return title
	}
	return url
}
