package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"myco/internal/textcut"
	"myco/session"
)

// printTranscript writes a session as plain text: its header, the
// historical transcripts kept beside it (where the session page shows them,
// above the threads), then every thread's messages, tool calls and their
// outcomes shortened.
func printTranscript(w io.Writer, doc *session.Document, archived bool, sidecars []sidecar) error {
	p := &printer{w: w}
	p.line("%s", orDash(doc.Title))
	p.line("  id       %s", doc.ID)
	p.line("  model    %s", orDash(doc.Model))
	p.line("  folder   %s", orDash(doc.Cwd))
	p.line("  created  %s", doc.CreatedAt.Local().Format(time.DateTime))
	p.line("  updated  %s", doc.UpdatedAt.Local().Format(time.DateTime))
	if archived || doc.Archived {
		p.line("  archived yes")
	}
	for _, l := range doc.Links {
		p.line("  link     %s %s", l.URL, l.Title)
	}
	if doc.Scratchpad != "" {
		p.line("  scratchpad:\n%s", indent(doc.Scratchpad, "    "))
	}
	for _, s := range sidecars {
		p.line("\n=== %s (from before myco) ===\n%s", strings.ToLower(s.label), strings.TrimRight(s.text, "\n"))
	}
	for i, t := range doc.Threads {
		p.thread(i, t)
	}
	return p.err
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) line(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format+"\n", args...)
	}
}

func (p *printer) thread(i int, t session.Thread) {
	p.line("\n=== thread %d (%d messages) ===", i, len(t.Messages))
	if t.CompactedFrom != nil {
		p.line("compacted from thread %d; summary:\n%s", *t.CompactedFrom, indent(t.Summary, "  "))
	}
	for _, m := range t.Messages {
		p.message(m)
	}
}

func (p *printer) message(m session.Message) {
	head := m.Role
	if m.Human {
		head = "you"
	}
	if !m.At.IsZero() {
		head += " " + m.At.Local().Format(time.DateTime)
	}
	if m.StopReason == session.StopInterrupted || m.StopReason == session.StopError {
		head += " [" + m.StopReason + "]"
	}
	p.line("\n[%s]", head)
	for _, b := range m.Content {
		p.block(b)
	}
}

func (p *printer) block(b session.Block) {
	switch b.Type {
	case session.BlockText:
		p.line("%s", b.Text)
	case session.BlockImage:
		p.line("%s", b.ImageMarker())
	case session.BlockFile:
		p.line("%s", b.FileMarker())
	case session.BlockToolUse:
		p.line("→ %s %s", b.Name, shorten(string(b.Input), 400))
	case session.BlockToolResult:
		status := "ok"
		if b.IsError {
			status = "error"
		}
		p.line("← %s (%d ms)\n%s", status, b.DurationMS, indent(shorten(b.ResultText(), 2000), "  "))
	default:
		p.line("[%s block]", b.Type)
	}
}

func shorten(s string, max int) string {
	if len(s) <= max {
		return s
	}
	head := textcut.Bytes(s, max)
	return head + fmt.Sprintf("… (%d more bytes)", len(s)-len(head))
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}
