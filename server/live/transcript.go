package live

import (
	"fmt"
	"strings"

	"myco/session"
)

// maxResultInTranscript bounds one tool outcome in a summary request, and
// maxInputInTranscript one call's input (a write_file's whole content):
// the summary needs what happened, not every line of a log or a file. Each
// is cut to its head and tail with a note of what was left out; the
// document keeps them whole. (BenchmarkSummaryTranscript measures it.)
const (
	maxResultInTranscript = 2000
	maxInputInTranscript  = 1000
)

// transcript renders a thread as text for the summary request. Images are
// named by hash and type only (no bytes are read); legacy inline images
// by type.
func transcript(t session.Thread) string {
	var b strings.Builder
	if t.Summary != "" {
		fmt.Fprintf(&b, "Summary of the conversation before this part:\n\n%s\n\n---\n\n", t.Summary)
	}
	b.WriteString("The conversation to summarise:\n")
	for _, m := range t.Messages {
		who := m.Role
		if m.Human {
			who = "person"
		} else if m.Role == "assistant" {
			who = "agent"
		} else if hasToolResults(m) {
			who = "tool results"
		}
		fmt.Fprintf(&b, "\n[%s]\n", who)
		for _, bl := range m.Content {
			writeBlock(&b, bl)
		}
	}
	return b.String()
}

func writeBlock(b *strings.Builder, bl session.Block) {
	switch bl.Type {
	case session.BlockText:
		b.WriteString(bl.Text + "\n")
	case session.BlockImage:
		b.WriteString(bl.ImageMarker() + "\n")
	case session.BlockFile:
		b.WriteString(bl.FileMarker() + "\n")
	case session.BlockToolUse:
		fmt.Fprintf(b, "→ %s %s\n", bl.Name, capText(string(bl.Input), maxInputInTranscript))
	case session.BlockToolResult:
		status := "ok"
		if bl.IsError {
			status = "error"
		}
		fmt.Fprintf(b, "← %s: %s\n", status, capText(bl.ResultText(), maxResultInTranscript))
	}
}
