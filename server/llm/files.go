package llm

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/ledongthuc/pdf"
	"github.com/openai/openai-go/v3"

	"myco/session"
)

// Documents a person attached (session.BlockFile) as each provider takes
// them. Every conversion here is a pure function of the blob's bytes and
// the block's name, so a file is the same bytes in every later request of
// the session and the prompt cache holds.

// maxExtractedText caps the text taken out of one PDF for a provider that
// cannot read PDFs: as much as a text file may hold.
const maxExtractedText = session.MaxTextFileSize

// loadFile returns the verified bytes of a file block. A PDF counts as a
// read (its base64 is not kept between calls, as an image's is not); a
// text file's text is cheap to keep.
func (l *imageLoader) loadFile(b session.Block) ([]byte, error) {
	if l.images == nil {
		return nil, fmt.Errorf("file %s: no store to read it from", b.Name)
	}
	if b.MediaType == session.MediaPDF {
		l.reads++
	}
	raw, _, err := l.images.Read(b.SHA256)
	if err != nil {
		return nil, fmt.Errorf("read file %s for the model: %w", b.Name, err)
	}
	return raw, nil
}

// fileHeader names an attached file for the model, as the text before its
// content says it.
func fileHeader(b session.Block, what string) string {
	return fmt.Sprintf("Attached file: %s (%s, %s)", b.Name, what, session.HumanSize(b.Size))
}

// fencedFile is a text file as one text block: a header naming the file,
// then its content in a fence longer than any run of backticks inside it,
// tagged with the name's extension so the model reads it as that language.
func fencedFile(b session.Block, header, content string) string {
	fence := strings.Repeat("`", max(3, longestRun(content, '`')+1))
	lang := strings.TrimPrefix(path.Ext(b.Name), ".")
	if !isWord(lang) {
		lang = ""
	}
	var sb strings.Builder
	sb.Grow(len(header) + len(content) + 2*len(fence) + len(lang) + 4)
	sb.WriteString(header)
	sb.WriteString("\n")
	sb.WriteString(fence)
	sb.WriteString(lang)
	sb.WriteString("\n")
	sb.WriteString(content)
	if !strings.HasSuffix(content, "\n") {
		sb.WriteString("\n")
	}
	sb.WriteString(fence)
	return sb.String()
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

func isWord(s string) bool {
	if s == "" || len(s) > 16 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// textFile is a text file block's text for the model.
func (l *imageLoader) textFile(b session.Block) (string, error) {
	raw, err := l.loadFile(b)
	if err != nil {
		return "", err
	}
	content := string(bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf")))
	return fencedFile(b, fileHeader(b, "text"), content), nil
}

// pdfAsText is a PDF for a provider that cannot read PDFs: its text, as
// the pure-Go reader extracts it, fenced like a text file.
func (l *imageLoader) pdfAsText(b session.Block) (string, error) {
	raw, err := l.loadFile(b)
	if err != nil {
		return "", err
	}
	text := l.pdfTexts.text(b.SHA256, raw)
	return fencedFile(b, fileHeader(b, "PDF, its text as extracted by myco"), text), nil
}

// anthropicFile is a file block as Anthropic takes it: a PDF as a document
// block (base64, titled with its name), a text file as a text block.
func anthropicFile(b session.Block, l *imageLoader) (anthropic.ContentBlockParamUnion, error) {
	if b.MediaType == session.MediaPDF {
		raw, err := l.loadFile(b)
		if err != nil {
			return anthropic.ContentBlockParamUnion{}, err
		}
		doc := anthropic.NewDocumentBlock(anthropic.Base64PDFSourceParam{Data: base64.StdEncoding.EncodeToString(raw)})
		doc.OfDocument.Title = anthropic.String(b.Name)
		return doc, nil
	}
	text, err := l.textFile(b)
	if err != nil {
		return anthropic.ContentBlockParamUnion{}, err
	}
	return anthropic.NewTextBlock(text), nil
}

// openaiFile is a file block as a chat completions part: a PDF as a file
// part where the server is api.openai.com (pdfParts), which reads PDFs;
// elsewhere (Ollama, vLLM, llama.cpp, LM Studio have no file parts) as its
// extracted text. A text file is a text part.
func openaiFile(b session.Block, l *imageLoader, pdfParts bool) (openai.ChatCompletionContentPartUnionParam, error) {
	switch {
	case b.MediaType == session.MediaPDF && pdfParts:
		raw, err := l.loadFile(b)
		if err != nil {
			return openai.ChatCompletionContentPartUnionParam{}, err
		}
		return openai.FileContentPart(openai.ChatCompletionContentPartFileFileParam{
			FileData: openai.String("data:application/pdf;base64," + base64.StdEncoding.EncodeToString(raw)),
			Filename: openai.String(b.Name),
		}), nil
	case b.MediaType == session.MediaPDF:
		text, err := l.pdfAsText(b)
		if err != nil {
			return openai.ChatCompletionContentPartUnionParam{}, err
		}
		return openai.TextContentPart(text), nil
	}
	text, err := l.textFile(b)
	if err != nil {
		return openai.ChatCompletionContentPartUnionParam{}, err
	}
	return openai.TextContentPart(text), nil
}

// pdfTexts keeps the text extracted from PDFs by SHA-256, so a PDF is
// parsed once per client rather than on every model call of a session.
// The extraction is deterministic anyway; this only saves the work.
type pdfTexts struct {
	mu    sync.Mutex
	texts map[string]string
}

// maxCachedPDFTexts bounds the cache; past it, it starts over.
const maxCachedPDFTexts = 64

func newPDFTexts() *pdfTexts { return &pdfTexts{texts: map[string]string{}} }

func (p *pdfTexts) text(sha string, raw []byte) string {
	if p == nil {
		return extractPDFText(raw)
	}
	p.mu.Lock()
	t, ok := p.texts[sha]
	p.mu.Unlock()
	if ok {
		return t
	}
	t = extractPDFText(raw)
	p.mu.Lock()
	if len(p.texts) >= maxCachedPDFTexts {
		clear(p.texts)
	}
	p.texts[sha] = t
	p.mu.Unlock()
	return t
}

// extractPDFText is the text of a PDF, cut at maxExtractedText, or a note
// saying why there is none: a PDF the reader cannot parse (or one that
// makes it panic) still lets the message through, with the model told.
func extractPDFText(raw []byte) (text string) {
	defer func() {
		if r := recover(); r != nil {
			text = fmt.Sprintf("[myco could not extract text from this PDF: %v]", r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		return fmt.Sprintf("[myco could not read this PDF: %v]", err)
	}
	tr, err := r.GetPlainText()
	if err != nil {
		return fmt.Sprintf("[myco could not extract text from this PDF: %v]", err)
	}
	out, err := io.ReadAll(io.LimitReader(tr, maxExtractedText+1))
	if err != nil {
		return fmt.Sprintf("[myco could not extract text from this PDF: %v]", err)
	}
	s := strings.ToValidUTF8(string(out), "\uFFFD")
	if len(out) > maxExtractedText {
		s = strings.ToValidUTF8(string(out[:maxExtractedText]), "") + "\n[the rest of the text is cut: over 1 MiB]"
	}
	if strings.TrimSpace(s) == "" {
		return "[this PDF holds no text myco can extract; it may be scanned images]"
	}
	return s
}
