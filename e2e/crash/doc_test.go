package crash

import (
	"encoding/json"
	"strings"
)

// document is the part of a session document (docs/FORMAT.md) the rules
// read.
type document struct {
	ID         string   `json:"id"`
	Title      string   `json:"title"`
	Scratchpad string   `json:"scratchpad"`
	Archived   bool     `json:"archived"`
	Queued     []queued `json:"queued"`
	Threads    []struct {
		Messages []message `json:"messages"`
	} `json:"threads"`
}

type queued struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

type message struct {
	ID         string  `json:"id"`
	Role       string  `json:"role"`
	Human      bool    `json:"human"`
	StopReason string  `json:"stop_reason"`
	Content    []block `json:"content"`
}

type block struct {
	Type        string          `json:"type"`
	Text        string          `json:"text"`
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Input       json.RawMessage `json:"input"`
	ToolUseID   string          `json:"tool_use_id"`
	IsError     bool            `json:"is_error"`
	Interrupted bool            `json:"interrupted"`
	Content     json.RawMessage `json:"content"`
}

// text is a message's text blocks joined.
func (m message) text() string {
	var b strings.Builder
	for _, bl := range m.Content {
		if bl.Type == "text" {
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}

// resultText is a tool_result's content: a string, or the text blocks of
// a list joined by newlines.
func (b block) resultText() string {
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		return s
	}
	var list []block
	if json.Unmarshal(b.Content, &list) != nil {
		return ""
	}
	var parts []string
	for _, bl := range list {
		if bl.Type == "text" {
			parts = append(parts, bl.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// find returns the message with id and the one after it, in any thread.
func (d *document) find(id string) (m, next *message, ok bool) {
	for ti := range d.Threads {
		msgs := d.Threads[ti].Messages
		for i := range msgs {
			if msgs[i].ID != id {
				continue
			}
			if i+1 < len(msgs) {
				next = &msgs[i+1]
			}
			return &msgs[i], next, true
		}
	}
	return nil, nil, false
}
