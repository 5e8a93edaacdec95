package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"myco/session"
)

// renderMarkdown writes doc as Markdown: a title, a line of facts, then
// every thread, earlier ones under a "Compacted thread N" heading. Text is
// the Markdown the person and the model wrote, as it is; tool inputs and
// outputs are whole, in fences no line inside can close; images are named
// by their SHA-256 (a Markdown file has nowhere to keep their bytes).
func renderMarkdown(doc *session.Document) []byte {
	w := &mdWriter{names: toolNames(doc)}
	w.header(doc)
	for i, t := range doc.Threads {
		w.thread(i, len(doc.Threads), t)
	}
	return append(bytes.TrimRight(w.buf.Bytes(), "\n"), '\n')
}

type mdWriter struct {
	buf   bytes.Buffer
	names map[string]string
}

// para writes one paragraph (or block) followed by a blank line.
func (w *mdWriter) para(format string, args ...any) {
	fmt.Fprintf(&w.buf, format, args...)
	w.buf.WriteString("\n\n")
}

func (w *mdWriter) header(doc *session.Document) {
	w.para("# %s", oneLine(titleOr(doc.Title)))
	facts := []string{}
	if doc.Model != "" {
		facts = append(facts, "Model `"+doc.Model+"`")
	}
	if doc.Cwd != "" {
		facts = append(facts, "folder `"+doc.Cwd+"`")
	}
	facts = append(facts, "created "+dayText(doc.CreatedAt), "last activity "+dayText(doc.UpdatedAt), "session `"+doc.ID+"`")
	w.para("%s", strings.Join(facts, " · "))
	if p := doc.Parent; p != nil {
		w.para("Forked from session `%s` (thread %d, message `%s`).", p.Session, p.Thread+1, p.Message)
	}
	if len(doc.Links) > 0 {
		var b strings.Builder
		b.WriteString("Links:\n")
		for _, l := range doc.Links {
			if l.Title != "" {
				fmt.Fprintf(&b, "\n- [%s](<%s>)", oneLine(l.Title), l.URL)
			} else {
				fmt.Fprintf(&b, "\n- <%s>", l.URL)
			}
		}
		w.para("%s", b.String())
	}
	if doc.Scratchpad != "" {
		w.para("Scratchpad:")
		w.fenced("text", doc.Scratchpad)
	}
}

func (w *mdWriter) thread(i, n int, t session.Thread) {
	w.para("## %s", threadHeading(i, n))
	if i < n-1 {
		w.para("> %s", compactedNote(i))
	}
	if note := successorNote(t); note != "" {
		w.para("> %s", note)
	}
	if t.Summary != "" {
		w.para("**Summary of the earlier thread**")
		w.para("%s", strings.TrimSpace(t.Summary))
	}
	if len(t.Messages) == 0 {
		w.para("*No messages.*")
	}
	for _, m := range t.Messages {
		w.message(m)
	}
}

func (w *mdWriter) message(m session.Message) {
	head := "### " + label(m)
	if !m.At.IsZero() {
		head += " · " + timeText(m.At)
	}
	if m.Role == "assistant" && m.Model != "" {
		head += " · `" + m.Model + "`"
	}
	w.para("%s", head)
	for _, b := range m.Content {
		w.block(b)
	}
	if note := stopNote(m); note != "" {
		w.para("> *%s*", oneLine(note))
	}
}

func (w *mdWriter) block(b session.Block) {
	switch b.Type {
	case session.BlockText:
		if strings.TrimSpace(b.Text) != "" {
			w.para("%s", closeFences(strings.TrimRight(b.Text, "\n")))
		}
	case session.BlockImage:
		w.para("*%s*", b.ImageMarker())
	case session.BlockFile:
		w.para("*%s*", b.FileMarker())
	case session.BlockToolUse:
		w.para("**Tool call** `%s` (`%s`)", b.Name, b.ID)
		w.fenced("json", indentJSON(b.Input))
	case session.BlockToolResult:
		head := "**Result**"
		if name := w.names[b.ToolUseID]; name != "" {
			head += " of `" + name + "`"
		}
		head += " (`" + b.ToolUseID + "`): " + resultStatus(b)
		if d := durationText(b.DurationMS); d != "" {
			head += ", " + d
		}
		w.para("%s", head)
		if out := b.ResultText(); out != "" {
			w.fenced("text", out)
		} else {
			w.para("*No output.*")
		}
	default:
		w.para("*[%s block]*", b.Type)
	}
}

// fenced writes s in a code fence longer than any run of backticks in it,
// so nothing inside can end the block early.
func (w *mdWriter) fenced(lang, s string) {
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	w.para("%s%s\n%s\n%s", fence, lang, strings.TrimRight(s, "\n"), fence)
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// indentJSON is a tool's input indented for reading; input that is not
// valid JSON is shown as it is.
func indentJSON(v []byte) string {
	if len(v) == 0 {
		return "{}"
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, v, "", "  "); err != nil {
		return string(v)
	}
	return buf.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func titleOr(title string) string {
	if strings.TrimSpace(title) == "" {
		return "Untitled session"
	}
	return title
}

// closeFences closes a code fence text leaves open (an answer interrupted
// inside a code block), so it does not swallow the rest of the file.
func closeFences(text string) string {
	open := ""
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if len(line)-len(trimmed) > 3 {
			continue
		}
		fence := fenceOf(trimmed)
		switch {
		case open == "" && fence != "":
			open = fence
		case open != "" && strings.HasPrefix(trimmed, open) && strings.TrimSpace(strings.TrimLeft(trimmed, open[:1])) == "":
			open = ""
		}
	}
	if open != "" {
		return text + "\n" + open
	}
	return text
}

// fenceOf is the fence a line opens with (three or more backticks or
// tildes), "" when it opens none.
func fenceOf(line string) string {
	if line == "" || (line[0] != '`' && line[0] != '~') {
		return ""
	}
	n := 0
	for n < len(line) && line[n] == line[0] {
		n++
	}
	if n < 3 || (line[0] == '`' && strings.Contains(line[n:], "`")) {
		return ""
	}
	return line[:n]
}
