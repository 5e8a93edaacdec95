package web

import (
	"fmt"
	"path/filepath"
	"strings"

	"myco/session"
)

// InstructionView is one instruction file the session read for its
// system prompt, as the side panel lists it.
type InstructionView struct {
	// Path is the file as people read it: relative to the session's
	// folder when inside it or above it, else absolute.
	Path string
	// Full is the absolute path (the row's title).
	Full string
	// Size is its size ("2.1 KB"); Note what else is to say: cut, the same
	// text as another, or why it was not read.
	Size string
	Note string
	// Loaded: its text went into the prompt (cut or not).
	Loaded bool
	Cut    bool
}

// instructionViews are doc's instruction files as the panel lists them.
func instructionViews(doc *session.Document) []InstructionView {
	out := make([]InstructionView, 0, len(doc.Instructions))
	for _, in := range doc.Instructions {
		v := InstructionView{Path: shortPath(doc.Cwd, in.Path), Full: in.Path, Loaded: in.Loaded(), Cut: in.Cut && in.Loaded()}
		if in.Skipped == "" {
			v.Size = kbText(in.Bytes)
		}
		switch {
		case in.Skipped != "":
			v.Note = "not read: " + in.Skipped
		case in.SameAs != "":
			v.Note = "same text as " + shortPath(doc.Cwd, in.SameAs) + ", read once"
		case in.Cut:
			v.Note = "cut to its first " + kbText(in.Kept)
		}
		out = append(out, v)
	}
	return out
}

// shortPath is p relative to folder when p is in folder or in a folder
// above it ("AGENTS.md", "../../AGENTS.md"), else p.
func shortPath(folder, p string) string {
	if folder == "" {
		return p
	}
	rel, err := filepath.Rel(folder, p)
	if err != nil {
		return p
	}
	// Inside folder, or in a folder above it (only steps up: "../..").
	if !strings.HasPrefix(rel, "..") || strings.Trim(filepath.Dir(rel), "./") == "" {
		return rel
	}
	return p
}

// kbText is a size in bytes as people read it.
func kbText(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d bytes", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
