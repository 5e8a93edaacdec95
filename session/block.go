package session

import (
	"fmt"
	"strings"

	"github.com/go-json-experiment/json"
)

// ImageMarker names an image block without its bytes, as compaction,
// history and transcripts show images: [image sha256:<hex> <type>], or
// [image inline <type>] for a legacy inline image.
func (b Block) ImageMarker() string {
	if b.SHA256 != "" {
		return fmt.Sprintf("[image sha256:%s %s]", b.SHA256, b.MediaType)
	}
	return fmt.Sprintf("[image inline %s]", b.MediaType)
}

// resultPart is what ResultText reads of a block inside a tool result:
// never an inline image's data.
type resultPart struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	SHA256    string `json:"sha256"`
	MediaType string `json:"media_type"`
}

// ResultText is the text of a tool_result block's content, which the API
// allows to be a string or a list of blocks: text blocks as they are,
// images named by ImageMarker. Content of any other shape is returned raw.
func (b Block) ResultText() string {
	switch b.Content.Kind() {
	case 0, 'n':
		return ""
	case '"':
		var s string
		if json.Unmarshal(b.Content, &s) == nil {
			return s
		}
	case '[':
		var parts []resultPart
		if json.Unmarshal(b.Content, &parts) == nil {
			return joinParts(parts)
		}
	}
	return string(b.Content)
}

func joinParts(parts []resultPart) string {
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case BlockText:
			out = append(out, p.Text)
		case BlockImage:
			out = append(out, Block{SHA256: p.SHA256, MediaType: p.MediaType}.ImageMarker())
		default:
			out = append(out, "["+p.Type+"]")
		}
	}
	return strings.Join(out, "\n")
}
