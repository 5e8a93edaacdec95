package live

import (
	"encoding/json"
	"fmt"
	"strings"

	"myco/session"
)

// maxResultInTranscript bounds one tool outcome in a summary request: the
// summary needs what happened, not every line of a log.
const maxResultInTranscript = 2000

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
		if bl.SHA256 != "" {
			fmt.Fprintf(b, "[image sha256:%s %s]\n", bl.SHA256, bl.MediaType)
		} else {
			fmt.Fprintf(b, "[image inline %s]\n", bl.MediaType)
		}
	case session.BlockToolUse:
		fmt.Fprintf(b, "→ %s %s\n", bl.Name, string(bl.Input))
	case session.BlockToolResult:
		status := "ok"
		if bl.IsError {
			status = "error"
		}
		fmt.Fprintf(b, "← %s: %s\n", status, capText(resultText(bl.Content), maxResultInTranscript))
	}
}

// resultText is a tool result's text: a string, or the text blocks of a
// list (images in it named, not read).
func resultText(raw []byte) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type      string `json:"type"`
		Text      string `json:"text"`
		SHA256    string `json:"sha256"`
		MediaType string `json:"media_type"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	var parts []string
	for _, bl := range blocks {
		switch bl.Type {
		case session.BlockText:
			parts = append(parts, bl.Text)
		case session.BlockImage:
			parts = append(parts, fmt.Sprintf("[image sha256:%s %s]", bl.SHA256, bl.MediaType))
		}
	}
	return strings.Join(parts, "\n")
}
