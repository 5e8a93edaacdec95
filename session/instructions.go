package session

import "github.com/go-json-experiment/json/jsontext"

// Instruction is one instruction file a live session read for its system
// prompt: a project's AGENTS.md, CLAUDE.md or MYCO.md, or the person's
// own ~/.config/myco/AGENTS.md. The text is not kept: the file is read
// again when the session is next opened; this says what went in.
type Instruction struct {
	// Path is the file's absolute path, as found (links not followed).
	Path string `json:"path"`
	// Bytes is the file's size when it was read.
	Bytes int64 `json:"bytes"`
	// SHA256 is the hash of the whole file, hex ("" when it was not read).
	SHA256 string `json:"sha256,omitempty"`
	// Cut says only the first Kept bytes went into the prompt (a limit).
	Cut  bool  `json:"cut,omitzero"`
	Kept int64 `json:"kept,omitzero"`
	// SameAs names an earlier file with the same text: it went in once,
	// as that one.
	SameAs string `json:"same_as,omitempty"`
	// Skipped says why the file was not read (denied, not text, not
	// readable); it did not go in.
	Skipped string         `json:"skipped,omitempty"`
	Unknown jsontext.Value `json:",embed"`
}

// Loaded reports whether the file's text went into the prompt.
func (i Instruction) Loaded() bool { return i.SameAs == "" && i.Skipped == "" }

// Same reports whether x and y record the same reading (Unknown aside).
func (x Instruction) Same(y Instruction) bool {
	return x.Path == y.Path && x.Bytes == y.Bytes && x.SHA256 == y.SHA256 && x.Cut == y.Cut &&
		x.Kept == y.Kept && x.SameAs == y.SameAs && x.Skipped == y.Skipped
}
