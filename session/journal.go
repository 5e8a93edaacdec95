package session

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The journal is an append-only file of JSON lines beside a document
// (<id>.journal): every change to a session is written there first, as it
// happens, and folded into the document at settled points. Saving a
// message therefore costs one short append, whatever the size of the
// session, and a crash loses nothing that reached the journal. The format
// is in docs/FORMAT.md.

// Journal record operations.
const (
	// OpMessage appends Message to thread Thread; Header, when set, is
	// applied in the same step (a queued message leaving the queue).
	OpMessage = "message"
	// OpThread appends NewThread (a compaction's successor).
	OpThread = "thread"
	// OpHeader sets the header fields that Header carries.
	OpHeader = "header"
	// OpMark sets ReplacedBy on message ID of thread Thread.
	OpMark = "mark"
	// OpUndone sets Undone to Undone on messages IDs of thread Thread
	// (/undo and /redo of a turn).
	OpUndone = "undone"
	// OpPartial starts an answer that streams in (Message, no content
	// yet); OpDelta adds Text to it. The answer's OpMessage ends it.
	OpPartial = "partial"
	OpDelta   = "delta"
	// OpTool says tool call ID started; OpOutput adds Text to its output.
	// The tool_result in a later OpMessage ends it.
	OpTool   = "tool"
	OpOutput = "output"
	// OpNote adds Note to the notes waiting for the next message; OpUnnote
	// takes waiting note ID back (notes.go). A note costs one short record
	// however many wait, and a person's message marks the ones it carries
	// delivered through its OpMessage record's Delivered.
	OpNote   = "note"
	OpUnnote = "unnote"
)

// Record is one line of the journal.
type Record struct {
	Seq        int64    `json:"seq"`
	Op         string   `json:"op"`
	Thread     int      `json:"thread,omitzero"`
	Message    *Message `json:"message,omitzero"`
	NewThread  *Thread  `json:"new_thread,omitzero"`
	Header     *Header  `json:"header,omitzero"`
	ID         string   `json:"id,omitempty"`
	Text       string   `json:"text,omitempty"`
	ReplacedBy string   `json:"replaced_by,omitempty"`
	IDs        []string `json:"ids,omitempty"`
	Undone     bool     `json:"undone,omitzero"`
	Note       *Note    `json:"note,omitzero"`
	// Delivered, on a person's OpMessage, names the waiting notes it
	// carries: they are marked delivered in it.
	Delivered []string       `json:"delivered,omitempty"`
	Unknown   jsontext.Value `json:",embed"`
}

// Header is a change of header fields: each field that is set replaces
// the document's.
type Header struct {
	Title       *string   `json:"title,omitzero"`
	TitleFrom   *string   `json:"title_from,omitzero"`
	Name        *string   `json:"name,omitzero"`
	Pinned      *bool     `json:"pinned,omitzero"`
	Tags        *[]string `json:"tags,omitzero"`
	Model       *string   `json:"model,omitzero"`
	Cwd         *string   `json:"cwd,omitzero"`
	Archived    *bool     `json:"archived,omitzero"`
	Links       *[]Link   `json:"links,omitzero"`
	Scratchpad  *string   `json:"scratchpad,omitzero"`
	Think       *string   `json:"think,omitzero"`
	Personality *string   `json:"personality,omitzero"`
	Goal        *Goal     `json:"goal,omitzero"`
	Mode        *string   `json:"mode,omitzero"`
	Todo        *TodoList `json:"todo,omitzero"`
	// Instructions replace the document's list whole.
	Instructions *[]Instruction `json:"instructions,omitzero"`
	Skills       *[]SkillRecord `json:"skills,omitzero"`
	Queued       *[]Queued      `json:"queued,omitzero"`
	MCPOff       *[]string      `json:"mcp_off,omitzero"`
	Notes        *[]Note        `json:"notes,omitzero"`
	Spent        *Spent         `json:"spent,omitzero"`
	UpdatedAt    *time.Time     `json:"updated_at,omitzero"`
}

// headerChange is the Header that turns a's header fields into b's, nil
// when they are the same.
func headerChange(a, b *Document) *Header {
	var h Header
	changed := false
	set := func(cond bool, f func()) {
		if cond {
			f()
			changed = true
		}
	}
	set(a.Title != b.Title, func() { h.Title = &b.Title })
	set(a.TitleFrom != b.TitleFrom, func() { h.TitleFrom = &b.TitleFrom })
	set(a.Name != b.Name, func() { h.Name = &b.Name })
	set(a.Pinned != b.Pinned, func() { h.Pinned = &b.Pinned })
	// Never a nil list: it would be written as null, which reads back as
	// no change at all rather than "no tags".
	set(!slices.Equal(a.Tags, b.Tags), func() { h.Tags = new(append([]string{}, b.Tags...)) })
	set(a.Model != b.Model, func() { h.Model = &b.Model })
	set(a.Cwd != b.Cwd, func() { h.Cwd = &b.Cwd })
	set(a.Archived != b.Archived, func() { h.Archived = &b.Archived })
	set(!slices.EqualFunc(a.Links, b.Links, sameLink), func() { h.Links = &b.Links })
	set(a.Scratchpad != b.Scratchpad, func() { h.Scratchpad = &b.Scratchpad })
	set(a.Think != b.Think, func() { h.Think = &b.Think })
	set(a.Personality != b.Personality, func() { h.Personality = &b.Personality })
	set(!sameGoal(a.Goal, b.Goal), func() { h.Goal = goalChange(b.Goal) })
	set(a.Mode != b.Mode, func() { h.Mode = &b.Mode })
	set(!slices.EqualFunc(a.Todo, b.Todo, func(x, y TodoItem) bool { return x.Text == y.Text && x.State == y.State }),
		func() { h.Todo = (*TodoList)(&b.Todo) })
	set(!slices.EqualFunc(a.Instructions, b.Instructions, Instruction.Same),
		func() { h.Instructions = &b.Instructions })
	set(!slices.EqualFunc(a.Skills, b.Skills, SkillRecord.Same),
		func() { h.Skills = &b.Skills })
	set(!slices.EqualFunc(a.Queued, b.Queued, sameQueued),
		func() { h.Queued = &b.Queued })
	set(!slices.Equal(a.MCPOff, b.MCPOff), func() { h.MCPOff = &b.MCPOff })
	set(!slices.EqualFunc(a.Notes, b.Notes, sameNote), func() { h.Notes = &b.Notes })
	set(!sameSpent(a.Spent, b.Spent) && b.Spent != nil, func() { h.Spent = b.Spent })
	set(!a.UpdatedAt.Equal(b.UpdatedAt), func() { h.UpdatedAt = &b.UpdatedAt })
	if !changed {
		return nil
	}
	return &h
}

func sameLink(x, y Link) bool { return x.URL == y.URL && x.Title == y.Title }

// sameQueued compares what a change of the queue may change: a steer
// becoming an ordinary queued message is a change to record.
func sameQueued(x, y Queued) bool { return x.ID == y.ID && x.Text == y.Text && x.Steer == y.Steer }

func (h *Header) apply(d *Document) {
	if h.Title != nil {
		d.Title = *h.Title
	}
	if h.TitleFrom != nil {
		d.TitleFrom = *h.TitleFrom
	}
	if h.Name != nil {
		d.Name = *h.Name
	}
	if h.Pinned != nil {
		d.Pinned = *h.Pinned
	}
	if h.Tags != nil {
		d.Tags = *h.Tags
	}
	if h.Model != nil {
		d.Model = *h.Model
	}
	if h.Cwd != nil {
		d.Cwd = *h.Cwd
	}
	if h.Archived != nil {
		d.Archived = *h.Archived
	}
	if h.Links != nil {
		d.Links = *h.Links
	}
	if h.Scratchpad != nil {
		d.Scratchpad = *h.Scratchpad
	}
	if h.Think != nil {
		d.Think = *h.Think
	}
	if h.Personality != nil {
		d.Personality = *h.Personality
	}
	if h.Goal != nil {
		d.Goal = h.Goal.applied()
	}
	if h.Mode != nil {
		d.Mode = *h.Mode
	}
	if h.Todo != nil {
		d.Todo = *h.Todo
	}
	if h.Instructions != nil {
		d.Instructions = *h.Instructions
	}
	if h.Skills != nil {
		d.Skills = *h.Skills
	}
	if h.Queued != nil {
		d.Queued = *h.Queued
	}
	if h.MCPOff != nil {
		d.MCPOff = *h.MCPOff
	}
	if h.Notes != nil {
		d.Notes = *h.Notes
	}
	if h.Spent != nil {
		d.Spent = h.Spent
	}
	if h.UpdatedAt != nil {
		d.UpdatedAt = *h.UpdatedAt
	}
}

// applyRecord changes d as r says. Messages and threads are only ever
// appended, and a message is never edited in place (a mark copies the
// thread's message list first), so a shallow copy of d taken earlier (a
// fold in progress) never sees the change.
func applyRecord(d *Document, r *Record) error {
	if err := checkRecord(d, r); err != nil {
		return err
	}
	switch r.Op {
	case OpMessage:
		if r.Header != nil {
			r.Header.apply(d)
		}
		if len(d.Threads) == 0 {
			d.Threads = append(d.Threads, Thread{CreatedAt: r.Message.At})
		}
		t := &d.Threads[r.Thread]
		t.Messages = append(t.Messages, *r.Message)
		if len(r.Delivered) > 0 {
			deliverNotes(d, r.Delivered, r.Message.ID)
		}
	case OpThread:
		d.Threads = append(d.Threads, *r.NewThread)
	case OpHeader:
		r.Header.apply(d)
	case OpMark:
		t := &d.Threads[r.Thread]
		i := slices.IndexFunc(t.Messages, func(m Message) bool { return m.ID == r.ID })
		t.Messages = slices.Clone(t.Messages)
		t.Messages[i].ReplacedBy = r.ReplacedBy
	case OpUndone:
		applyUndone(d, r)
	case OpNote:
		// Appended in place: nothing else appends to d's notes, and a copy
		// of d taken earlier (a fold) sees only its own length.
		d.Notes = append(d.Notes, *r.Note)
	case OpUnnote:
		i := waitingNote(d, r.ID)
		d.Notes = slices.Delete(slices.Clone(d.Notes), i, i+1)
	case OpPartial, OpDelta, OpTool, OpOutput:
		// Work in progress: only a replay after a crash keeps it (replay).
	default:
		// A newer myco's record: its own document fold carries it.
	}
	return nil
}

// checkRecord says why r cannot apply to d, without changing d. The writer
// checks before a record reaches the journal (a refused record there would
// make every later replay refuse the session), and applyRecord before it
// changes anything (a record is applied whole or not at all).
func checkRecord(d *Document, r *Record) error {
	switch r.Op {
	case OpMessage:
		if r.Message == nil {
			return errors.New("message record without a message")
		}
		if latest := max(len(d.Threads)-1, 0); r.Thread != latest {
			return fmt.Errorf("%w: message for thread %d, but the latest thread is %d", ErrThreadChanged, r.Thread, latest)
		}
	case OpThread:
		if r.NewThread == nil {
			return errors.New("thread record without a thread")
		}
	case OpHeader:
		if r.Header == nil {
			return errors.New("header record without a header")
		}
	case OpMark:
		if r.Thread < 0 || r.Thread >= len(d.Threads) {
			return fmt.Errorf("mark for thread %d, which does not exist", r.Thread)
		}
		if !slices.ContainsFunc(d.Threads[r.Thread].Messages, func(m Message) bool { return m.ID == r.ID }) {
			return fmt.Errorf("mark for message %s, which thread %d does not hold", r.ID, r.Thread)
		}
	case OpUndone:
		return checkUndone(d, r)
	case OpNote:
		if r.Note == nil {
			return errors.New("note record without a note")
		}
	case OpUnnote:
		if waitingNote(d, r.ID) < 0 {
			return fmt.Errorf("%w: %s", ErrNoNote, r.ID)
		}
	}
	return nil
}

// journalPath is the journal of session id in dir.
func journalPath(dir, id string) string { return filepath.Join(dir, id+".journal") }

// maxJournalLine bounds one record: a message with its tool results.
const maxJournalLine = 64 << 20

// readJournal reads the records of the journal at path with a sequence
// number above after, in order. A missing journal has none. A last line cut
// short (a crash in the middle of an append) is ignored; any other line
// that cannot be read makes the session damaged: replaying around it could
// invent a conversation that never happened.
func readJournal(path string, after int64) ([]Record, error) {
	f, _, err := openRegular(path) // a FIFO or a link is damaged, not read
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, ErrDamaged) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	defer f.Close()
	var recs []Record
	r := bufio.NewReaderSize(f, 64<<10)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			// No newline: an append a crash cut short (or nothing).
			return recs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read journal: %w", err)
		}
		if len(line) > maxJournalLine {
			return nil, &DamagedError{Path: path, Reason: fmt.Sprintf("journal line %d is longer than %d bytes", n, maxJournalLine)}
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, &DamagedError{Path: path, Reason: fmt.Sprintf("journal line %d: %s", n, decodeReason(err))}
		}
		if rec.Seq > after {
			recs = append(recs, rec)
		}
	}
}

// replay applies records to d. With recover set (the writer lock is held:
// nothing else is streaming into this session) it also keeps what a crash
// cut short: an answer that was streaming is added marked interrupted,
// and a tool call without an outcome gets one, marked interrupted, with
// the output it had printed. It reports whether d changed.
func replay(d *Document, recs []Record, recover bool, now time.Time) (bool, error) {
	type partial struct {
		msg  Message
		text strings.Builder
	}
	var partials []*partial
	outputs := map[string]*strings.Builder{}
	changed := false
	for i := range recs {
		r := &recs[i]
		if err := applyRecord(d, r); err != nil {
			return changed, fmt.Errorf("journal record %d: %w", r.Seq, err)
		}
		switch r.Op {
		case OpMessage:
			partials = slices.DeleteFunc(partials, func(p *partial) bool { return p.msg.ID == r.Message.ID })
			changed = true
		case OpPartial:
			if r.Message != nil {
				// A retried attempt streams again under the same ID: start over.
				partials = slices.DeleteFunc(partials, func(p *partial) bool { return p.msg.ID == r.Message.ID })
				partials = append(partials, &partial{msg: *r.Message})
			}
		case OpDelta:
			if i := slices.IndexFunc(partials, func(p *partial) bool { return p.msg.ID == r.ID }); i >= 0 {
				partials[i].text.WriteString(r.Text)
			}
		case OpTool:
			outputs[r.ID] = &strings.Builder{}
		case OpOutput:
			if b := outputs[r.ID]; b != nil && b.Len() < maxKeptOutput {
				b.WriteString(r.Text)
			}
		default:
			changed = true
		}
	}
	if !recover {
		return changed, nil
	}
	for _, p := range partials {
		text := p.text.String()
		if strings.TrimSpace(text) == "" || len(d.Threads) == 0 {
			continue
		}
		m := p.msg
		m.StopReason = StopInterrupted
		m.Content = []Block{{Type: BlockText, Text: text}}
		t := &d.Threads[len(d.Threads)-1]
		t.Messages = append(t.Messages, m)
		changed = true
	}
	outs := make(map[string]string, len(outputs))
	for id, b := range outputs {
		outs[id] = b.String()
	}
	if RepairToolResults(d, outs, now) {
		changed = true
	}
	return changed, nil
}

// maxKeptOutput bounds the output of a running tool kept in the journal.
const maxKeptOutput = 64 << 10

// Notes in the outcome of a tool call that myco's own stop cut short.
const (
	InterruptedNote = "[interrupted: myco stopped while this ran; the command may or may not have finished]"
	NotRunNote      = "Not run: myco stopped before this call ran."
	// SubagentInterruptedNote is the outcome of a task call whose
	// sub-agent was running when myco stopped: its session keeps what it
	// did, marked interrupted.
	SubagentInterruptedNote = "[interrupted: myco stopped while this sub-agent ran; its session (listed under Sub-agents) keeps what it did, marked interrupted, and gave no answer]"
)

// RepairToolResults gives every tool call of the latest thread that has no
// outcome one, marked interrupted: a thread with a call and no outcome is
// refused by every provider, and would break the session for good. The
// outcome holds the call's output so far (outputs, by tool_use ID) and a
// note. Nothing is removed; a repaired outcome goes right after its call.
// It reports whether anything was added.
func RepairToolResults(d *Document, outputs map[string]string, now time.Time) bool {
	if len(d.Threads) == 0 {
		return false
	}
	t := &d.Threads[len(d.Threads)-1]
	answered := map[string]bool{}
	for _, m := range t.Messages {
		for _, b := range m.Content {
			if b.Type == BlockToolResult {
				answered[b.ToolUseID] = true
			}
		}
	}
	var out []Message
	repaired := false
	for _, m := range t.Messages {
		out = append(out, m)
		if m.Role != "assistant" {
			continue
		}
		var results []Block
		for _, b := range m.Content {
			if b.Type != BlockToolUse || answered[b.ID] {
				continue
			}
			text := NotRunNote
			if o, ran := outputs[b.ID]; ran {
				text = strings.TrimRight(strings.ToValidUTF8(o, "\uFFFD"), "\n")
				if text != "" {
					text += "\n"
				}
				text += InterruptedNote
			}
			if b.Name == "task" {
				// A sub-agent runs in its own session, not this one's
				// shell: whether it had started or not, that is where its
				// work is.
				text = SubagentInterruptedNote
			}
			content, _ := json.Marshal(text)
			results = append(results, Block{Type: BlockToolResult, ToolUseID: b.ID, IsError: true, Interrupted: true, Content: content})
		}
		if len(results) == 0 {
			continue
		}
		repaired = true
		at := m.At
		if at.IsZero() {
			at = now
		}
		out = append(out, Message{ID: m.ID + "-outcome", Role: "user", At: at, Content: results})
	}
	if repaired {
		t.Messages = out
	}
	return repaired
}
