package llm

import (
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"myco/session"
)

// octetStream is what session.Images reports for bytes it cannot sniff.
const octetStream = "application/octet-stream"

// imageLoader reads the blobs one request names, each once. Requests are
// built whole before anything is sent, so a blob that cannot be read fails
// the call with nothing sent.
type imageLoader struct {
	images ImageReader
	cache  map[string]loadedImage
	// reads counts the image blocks loaded, so that a caller can tell
	// whether a message holds one (anthropicBody keeps no bytes of those).
	reads int
	// pdfTexts keeps extracted PDF text (files.go); nil extracts each time.
	pdfTexts *pdfTexts
	// pdfParts: the provider reads PDFs as parts of their own (files.go).
	pdfParts bool
}

type loadedImage struct {
	mediaType string
	data      string // base64
}

func newImageLoader(images ImageReader) *imageLoader {
	return &imageLoader{images: images, cache: map[string]loadedImage{}}
}

// load returns the media type and base64 bytes of an image block: from the
// image store when it names a blob, else the legacy inline data as it is.
func (l *imageLoader) load(b session.Block) (mediaType, data string, err error) {
	l.reads++
	if b.SHA256 == "" {
		if b.Data == "" {
			return "", "", errors.New("image block has neither sha256 nor data")
		}
		return b.MediaType, b.Data, nil
	}
	if img, ok := l.cache[b.SHA256]; ok {
		return img.mediaType, img.data, nil
	}
	if l.images == nil {
		return "", "", fmt.Errorf("image sha256:%s: no image store to read it from", b.SHA256)
	}
	raw, ref, err := l.images.Read(b.SHA256)
	if err != nil {
		return "", "", fmt.Errorf("read image for the model: %w", err)
	}
	img := loadedImage{mediaType: ref.MediaType, data: base64.StdEncoding.EncodeToString(raw)}
	// The sniffed type is the truth about the bytes; the block's own type
	// only helps when the store cannot tell.
	if img.mediaType == "" || img.mediaType == octetStream {
		img.mediaType = b.MediaType
	}
	l.cache[b.SHA256] = img
	return img.mediaType, img.data, nil
}

// resultBlocks reads a tool_result's content, which the document keeps as
// the API allows it: a string, or a list of text and image blocks.
func resultBlocks(content jsontext.Value) ([]session.Block, error) {
	switch content.Kind() {
	case 0, 'n':
		return nil, nil
	case '"':
		var s string
		if err := json.Unmarshal(content, &s); err != nil {
			return nil, fmt.Errorf("tool result content: %w", err)
		}
		if s == "" {
			return nil, nil
		}
		return []session.Block{{Type: session.BlockText, Text: s}}, nil
	}
	var blocks []session.Block
	if err := json.Unmarshal(content, &blocks); err != nil {
		return nil, fmt.Errorf("tool result content: %w", err)
	}
	return blocks, nil
}
