package tools

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"myco/internal/textcut"
	"myco/session"
)

// session_history actions.
const (
	HistoryThreads = "threads"
	HistoryStats   = "stats"
	HistoryExpand  = "expand"
)

// Expand limits: the default and the largest number of messages shown, and
// how much of one block is kept, so an old 100 KB tool output or file write
// cannot flood the context it was compacted out of.
const (
	expandDefault = 20
	expandMax     = 200
	blockMax      = 2000
	textMax       = 8000
)

// ErrHistoryInput is wrapped by every error History returns for input the
// model got wrong, so the caller can tell them from its own failures.
var ErrHistoryInput = errors.New("invalid session_history input")

// HistoryInput is the input of the session_history tool. Thread, From and
// To are pointers because 0 is a valid index.
type HistoryInput struct {
	Action string `json:"action"`
	Thread *int   `json:"thread,omitempty"`
	From   *int   `json:"from,omitempty"`
	To     *int   `json:"to,omitempty"`
}

// HistoryDescription tells the model what session_history does.
const HistoryDescription = "Inspect this session's history. " +
	"threads: list the threads (a compaction starts a new one; older threads keep every message). " +
	"stats: counts of messages, tool calls and tokens (of one thread when thread is given). " +
	"expand: a thread's messages from index from (inclusive) to to (exclusive); " +
	"default the latest thread's last 20, at most 200 at a time. Images show as references, never bytes."

// HistorySchema is the JSON schema of HistoryInput.
var HistorySchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"action": map[string]any{
			"type": "string",
			"enum": []string{HistoryThreads, HistoryStats, HistoryExpand},
		},
		"thread": map[string]any{
			"type": "integer", "minimum": 0,
			"description": "Thread index (see threads); default the latest.",
		},
		"from": map[string]any{
			"type": "integer", "minimum": 0,
			"description": "expand: first message index, inclusive.",
		},
		"to": map[string]any{
			"type": "integer", "minimum": 0,
			"description": "expand: message index to stop before; past the end means the end.",
		},
	},
	"required":             []string{"action"},
	"additionalProperties": false,
}

// History answers a session_history call from the document. It reads no
// image: images show as their reference.
func History(doc *session.Document, in HistoryInput) (string, error) {
	switch in.Action {
	case HistoryThreads:
		return historyThreads(doc), nil
	case HistoryStats:
		return historyStats(doc, in.Thread)
	case HistoryExpand:
		return historyExpand(doc, in)
	default:
		return "", fmt.Errorf("%w: unknown action %q: use threads, stats or expand", ErrHistoryInput, in.Action)
	}
}

func historyThreads(doc *session.Document) string {
	var b strings.Builder
	for i, t := range doc.Threads {
		fmt.Fprintf(&b, "thread %d: created %s, %d messages", i, stamp(t.CreatedAt), len(t.Messages))
		if t.CompactedFrom != nil {
			fmt.Fprintf(&b, ", compacted from thread %d", *t.CompactedFrom)
		}
		if i == len(doc.Threads)-1 {
			b.WriteString(" (current)")
		}
		if line := firstLine(t.Summary); line != "" {
			fmt.Fprintf(&b, "\n  summary: %s", line)
		}
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		return "no threads\n"
	}
	return b.String()
}

// threadIndex resolves an optional thread index, the latest by default.
func threadIndex(doc *session.Document, thread *int) (int, error) {
	n := len(doc.Threads)
	if thread == nil {
		if n == 0 {
			return 0, fmt.Errorf("%w: the session has no threads", ErrHistoryInput)
		}
		return n - 1, nil
	}
	if *thread < 0 || *thread >= n {
		return 0, fmt.Errorf("%w: thread %d does not exist: the session has %d threads (0 to %d)",
			ErrHistoryInput, *thread, n, n-1)
	}
	return *thread, nil
}

// historyRange resolves [from, to) in a thread of n messages: the last 20
// by default, 20 from from, or 20 up to to.
func historyRange(in HistoryInput, n int) (from, to int, err error) {
	switch {
	case in.From == nil && in.To == nil:
		from, to = max(n-expandDefault, 0), n
	case in.To == nil:
		from = *in.From
		to = min(from+expandDefault, n)
	case in.From == nil:
		to = min(*in.To, n)
		from = max(to-expandDefault, 0)
	default:
		from, to = *in.From, min(*in.To, n)
	}
	switch {
	case from < 0 || (in.To != nil && *in.To < 0):
		return 0, 0, fmt.Errorf("%w: from and to must not be negative", ErrHistoryInput)
	case from > n:
		return 0, 0, fmt.Errorf("%w: from %d is past the end: the thread has %d messages", ErrHistoryInput, from, n)
	case to < from:
		return 0, 0, fmt.Errorf("%w: to %d is before from %d", ErrHistoryInput, to, from)
	case to-from > expandMax:
		return 0, 0, fmt.Errorf("%w: %d messages asked for, at most %d at a time", ErrHistoryInput, to-from, expandMax)
	}
	return from, to, nil
}

func historyExpand(doc *session.Document, in HistoryInput) (string, error) {
	ti, err := threadIndex(doc, in.Thread)
	if err != nil {
		return "", err
	}
	msgs := doc.Threads[ti].Messages
	from, to, err := historyRange(in, len(msgs))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "thread %d, messages %d to %d of %d\n", ti, from, to, len(msgs))
	for i := from; i < to; i++ {
		b.WriteByte('\n')
		writeMessage(&b, i, msgs[i])
	}
	return b.String(), nil
}

// writeMessage renders one message compactly: a header line, then each
// block.
func writeMessage(b *strings.Builder, i int, m session.Message) {
	fmt.Fprintf(b, "#%d %s", i, m.Role)
	if m.Human {
		b.WriteString(" (typed by the person)")
	}
	if !m.At.IsZero() {
		fmt.Fprintf(b, " %s", stamp(m.At))
	}
	if m.StopReason != "" {
		fmt.Fprintf(b, " stop=%s", m.StopReason)
	}
	b.WriteByte('\n')
	for _, blk := range m.Content {
		writeBlock(b, blk)
	}
}

func writeBlock(b *strings.Builder, blk session.Block) {
	switch blk.Type {
	case session.BlockText:
		b.WriteString(capText(blk.Text, textMax))
	case session.BlockImage:
		b.WriteString(blk.ImageMarker())
	case session.BlockFile:
		b.WriteString(blk.FileMarker())
	case session.BlockToolUse:
		fmt.Fprintf(b, "[tool_use %s id=%s] %s", blk.Name, blk.ID, capText(compactJSON(blk.Input), blockMax))
	case session.BlockToolResult:
		status := ""
		if blk.IsError {
			status = " error"
		}
		fmt.Fprintf(b, "[tool_result id=%s%s]\n%s", blk.ToolUseID, status, capText(blk.ResultText(), blockMax))
	default:
		fmt.Fprintf(b, "[%s block]", blk.Type)
	}
	if !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
}

// compactJSON puts a tool input on one line: documents are stored
// indented, and the model needs no layout.
func compactJSON(v jsontext.Value) string {
	c := slices.Clone(v)
	if c.Compact() != nil {
		return string(v)
	}
	return string(c)
}

// capText keeps the head of s, up to n bytes, on a rune boundary.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head := textcut.Bytes(s, n)
	return fmt.Sprintf("%s\n[… %d more bytes]", head, len(s)-len(head))
}

func historyStats(doc *session.Document, thread *int) (string, error) {
	threads := doc.Threads
	scope := "session"
	if thread != nil {
		ti, err := threadIndex(doc, thread)
		if err != nil {
			return "", err
		}
		threads, scope = threads[ti:ti+1], fmt.Sprintf("thread %d", ti)
	}
	// A thread made by compaction begins with messages carried from its
	// predecessor: each is counted once, in the thread it was written in,
	// as the page's usage counts it (session.Document.Usage).
	var st stats
	for i := range threads {
		for _, m := range threads[i].Own() {
			st.add(m)
		}
		if from := threads[i].CompactedFrom; from != nil && thread != nil {
			st.carried, st.carriedFrom = len(threads[i].Messages)-len(threads[i].Own()), *from
		}
	}
	return st.render(scope, len(doc.Threads)), nil
}

// stats counts messages, tool calls and tokens.
type stats struct {
	messages, human int
	roles, tools    map[string]int
	usage           session.Usage
	// carried is how many messages of the one thread counted were carried
	// in from thread carriedFrom, and left out.
	carried, carriedFrom int
}

func (st *stats) add(m session.Message) {
	if st.roles == nil {
		st.roles, st.tools = map[string]int{}, map[string]int{}
	}
	st.messages++
	st.roles[m.Role]++
	if m.Human {
		st.human++
	}
	for _, b := range m.Content {
		if b.Type == session.BlockToolUse {
			st.tools[b.Name]++
		}
	}
	if m.Role == "assistant" && m.Usage != nil {
		st.usage.Add(*m.Usage)
	}
}

func (st *stats) render(scope string, threads int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d threads in the session\n", scope, threads)
	fmt.Fprintf(&b, "messages: %d (%s; %d typed by the person)\n", st.messages, counts(st.roles), st.human)
	if st.carried > 0 {
		fmt.Fprintf(&b, "messages carried in from thread %d (counted there): %d\n", st.carriedFrom, st.carried)
	}
	fmt.Fprintf(&b, "tool calls: %s\n", counts(st.tools))
	u := st.usage
	fmt.Fprintf(&b, "tokens: input %d, output %d, cache read %d, cache creation %d\n",
		u.InputTokens, u.OutputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens)
	return b.String()
}

// counts renders "a 3, b 1", most first, then by name.
func counts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "at an unknown time"
	}
	return t.UTC().Format(time.RFC3339)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}
