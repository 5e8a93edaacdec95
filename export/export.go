// Package export turns a session's document into a file a person takes
// elsewhere: Markdown, the JSON document itself, or one self-contained HTML
// page (styles inline, images embedded, no script) that reads the same
// offline. It does no redaction itself: callers pass the copy the session
// store redacted (session.Store.Redacted), as the documents are.
package export

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"myco/session"
)

// Format is one kind of export.
type Format string

// The formats, in the order they are offered.
const (
	Markdown Format = "md"
	JSON     Format = "json"
	HTML     Format = "html"
)

// Formats lists every format, in the order they are offered.
var Formats = []Format{Markdown, JSON, HTML}

// ErrFormat means a format name that is not one of Formats.
var ErrFormat = errors.New("unknown export format")

// ParseFormat reads a format name (md, json or html); the error lists the
// valid ones.
func ParseFormat(name string) (Format, error) {
	for _, f := range Formats {
		if string(f) == name {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("%w %q: use one of %s", ErrFormat, name, strings.Join(names, ", "))
}

// ContentType is the media type of the format's files.
func (f Format) ContentType() string {
	switch f {
	case Markdown:
		return "text/markdown; charset=utf-8"
	case JSON:
		return "application/json"
	default:
		return "text/html; charset=utf-8"
	}
}

// ImageSource gives an image's bytes by SHA-256 (*session.Images does);
// the HTML page embeds them.
type ImageSource interface {
	Read(sha string) ([]byte, session.ImageRef, error)
}

// Render writes doc in format f. Images, used by the HTML page only, may be
// nil: every image then shows as missing. A missing or unreadable image is
// shown as such; it never fails the export.
func Render(doc *session.Document, f Format, images ImageSource) ([]byte, error) {
	switch f {
	case Markdown:
		return renderMarkdown(doc), nil
	case JSON:
		data, err := session.Encode(doc)
		if err != nil {
			return nil, fmt.Errorf("export %s: %w", doc.ID, err)
		}
		return data, nil
	case HTML:
		data, err := renderHTML(doc, images)
		if err != nil {
			return nil, fmt.Errorf("export %s: %w", doc.ID, err)
		}
		return data, nil
	}
	_, err := ParseFormat(string(f))
	return nil, err
}

// FileName is the name an export of doc is offered under:
// <title-slug>-<first 8 characters of the ID>.<format>, in ASCII letters,
// digits and dashes only, so it needs no quoting in a header or a shell.
func FileName(doc *session.Document, f Format) string {
	id := doc.ID
	if len(id) > 8 {
		id = id[:8]
	}
	return slug(doc.Title) + "-" + slug(id) + "." + string(f)
}

// maxSlug bounds the title's part of a file name.
const maxSlug = 48

// slug is s in lower-case ASCII letters and digits, every other run of
// characters one dash, at most maxSlug bytes; "session" when nothing is
// left.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
	}
	out := b.String()
	if len(out) > maxSlug {
		// At a word's end when there is one: "flaky-te" reads badly.
		out = out[:maxSlug]
		if i := strings.LastIndexByte(out, '-'); i > 0 {
			out = out[:i]
		}
	}
	if out == "" {
		return "session"
	}
	return out
}

// timeText is how an export writes a time: in UTC, said so, since a file
// read elsewhere has no local zone to assume.
func timeText(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// dayText is a date and minute, for the header.
func dayText(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// label names who a message is from, as the session page does.
func label(m session.Message) string {
	switch {
	case m.Role == "assistant":
		return "Agent"
	case m.Human:
		return "You"
	case onlyResults(m):
		return "Tool results"
	default:
		return "myco"
	}
}

func onlyResults(m session.Message) bool {
	for _, b := range m.Content {
		if b.Type != session.BlockToolResult {
			return false
		}
	}
	return len(m.Content) > 0
}

// threadHeading names thread i of n: earlier threads are compacted ones.
// People count from one.
func threadHeading(i, n int) string {
	if i < n-1 {
		return fmt.Sprintf("Compacted thread %d", i+1)
	}
	if n == 1 {
		return "Conversation"
	}
	return fmt.Sprintf("Thread %d (latest)", i+1)
}

// compactedNote says what an earlier thread is.
func compactedNote(i int) string {
	return fmt.Sprintf("This thread was compacted: the conversation went on in thread %d, which starts from a summary of it. Its messages are kept here as they were.", i+2)
}

// successorNote says where a thread made by compaction came from.
func successorNote(t session.Thread) string {
	if t.CompactedFrom == nil {
		return ""
	}
	s := fmt.Sprintf("Made by compacting thread %d", *t.CompactedFrom+1)
	switch {
	case t.Carried == 1:
		s += "; its first message was carried over from it"
	case t.Carried > 1:
		s += fmt.Sprintf("; its first %d messages were carried over from it", t.Carried)
	}
	return s + "."
}

// stopNote says how an answer ended when it did not end well, or that a
// retry replaced it.
func stopNote(m session.Message) string {
	var parts []string
	if m.ReplacedBy != "" {
		parts = append(parts, "Replaced by a retry.")
	}
	switch {
	case m.Error != nil:
		parts = append(parts, "Failed: "+m.Error.Message)
	case m.StopReason == session.StopError:
		parts = append(parts, "Failed.")
	case m.StopReason == session.StopInterrupted:
		parts = append(parts, "Interrupted.")
	}
	return strings.Join(parts, " ")
}

// toolNames maps each tool call's ID to its tool's name, so a result can
// say which tool it is from.
func toolNames(doc *session.Document) map[string]string {
	names := map[string]string{}
	for _, t := range doc.Threads {
		for _, m := range t.Messages {
			for _, b := range m.Content {
				if b.Type == session.BlockToolUse {
					names[b.ID] = b.Name
				}
			}
		}
	}
	return names
}

// resultStatus is a tool result's outcome in words.
func resultStatus(b session.Block) string {
	switch {
	case b.Interrupted:
		return "interrupted"
	case b.IsError:
		return "error"
	default:
		return "ok"
	}
}

// durationText is a tool's run time, rounded for people; "" when unknown.
func durationText(ms int64) string {
	if ms <= 0 {
		return ""
	}
	d := time.Duration(ms) * time.Millisecond
	if d < time.Second {
		return d.String()
	}
	return d.Round(100 * time.Millisecond).String()
}
