package web

import (
	"net/url"
	"path"
	"strings"

	"myco/session"
)

// KindFile is a document attached to a person's message, shown as a chip
// that opens it (a PDF or text in a tab of its own, anything else as a
// download: the server decides, GET /files/{sha256}).
const KindFile = "file"

// FileChipView is one attached file as its chip shows it.
type FileChipView struct {
	SHA256 string
	Name   string
	Size   string // as a person reads it: 12.4 KB
	Icon   string // pdf, code or text: the chip's type icon
	URL    string
}

// NewFileChip is the chip of a file block.
func NewFileChip(b session.Block) *FileChipView {
	return &FileChipView{
		SHA256: b.SHA256,
		Name:   b.Name,
		Size:   session.HumanSize(b.Size),
		Icon:   FileIcon(b.Name, b.MediaType),
		URL:    "/files/" + url.PathEscape(b.SHA256) + "?name=" + url.QueryEscape(b.Name),
	}
}

// codeExtensions are the source files whose chip shows the code icon.
var codeExtensions = map[string]bool{
	"go": true, "py": true, "js": true, "ts": true, "tsx": true, "jsx": true, "mjs": true, "rs": true,
	"c": true, "h": true, "cc": true, "cpp": true, "hpp": true, "java": true, "kt": true, "rb": true,
	"php": true, "cs": true, "swift": true, "sh": true, "bash": true, "zsh": true, "sql": true,
	"html": true, "css": true, "scss": true, "json": true, "yaml": true, "yml": true, "toml": true,
	"xml": true, "lua": true, "pl": true, "r": true, "scala": true, "zig": true, "templ": true,
}

// FileIcon is the kind of icon a file's chip shows: pdf, code or text.
func FileIcon(name, mediaType string) string {
	if mediaType == session.MediaPDF {
		return "pdf"
	}
	if codeExtensions[strings.ToLower(strings.TrimPrefix(path.Ext(name), "."))] {
		return "code"
	}
	return "text"
}

// fileIconGlyph is the icon's glyph: plain characters, no image to load.
func fileIconGlyph(icon string) string {
	switch icon {
	case "pdf":
		return "PDF"
	case "code":
		return "</>"
	}
	return "TXT"
}
