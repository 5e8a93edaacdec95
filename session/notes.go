package session

import (
	"fmt"
	"slices"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"myco/internal/errkind"
	"myco/internal/textcut"
)

// Note is something that waits for the person's next message and goes to
// the model with it, once: a note left from elsewhere (myco send, the API,
// another session's agent), a command the person ran themselves
// (!command), or a file or folder they attached (@path). DeliveredIn names
// the person's message that carried it; it is set in the same journal
// record that appends that message, so a note is delivered exactly once,
// crash or not, and a retry of that message sends it again.
type Note struct {
	ID   string    `json:"id"`
	Kind string    `json:"kind"`
	At   time.Time `json:"at,omitzero"`
	// From says who left a note ("nightly build", a session's ID).
	From string `json:"from,omitempty"`
	// Text is a note's text, a command's output, a file's numbered lines
	// or a folder's entries.
	Text string `json:"text"`
	// Command and Exit: the command line of a NoteCommand and its status.
	Command string `json:"command,omitempty"`
	Exit    *int   `json:"exit,omitempty"`
	// Path is the file or folder of a NoteFile, as the person named it.
	Path        string         `json:"path,omitempty"`
	DeliveredIn string         `json:"delivered_in,omitempty"`
	Unknown     jsontext.Value `json:",embed"`
}

// Note kinds.
const (
	NoteText    = "note"
	NoteCommand = "command"
	NoteFile    = "file"
	// NoteContext is myco's own word to the agent, delivered with a
	// person's message: what changed outside the conversation (a new
	// shell after a restart or a fork, the date, the shell's folder).
	// Kept, like every delivered note, so every later request sends the
	// message exactly as before; not shown on the page.
	NoteContext = "context"
)

// MaxNoteStored bounds the text of a note as it is kept: what reaches the
// model is cut further when it is sent.
const MaxNoteStored = 256 << 10

// ErrNoNote means a note named for removal is not waiting (gone, or
// delivered already).
var ErrNoNote = errkind.New(errkind.NotFound, "no such waiting note")

func sameNote(x, y Note) bool {
	return x.ID == y.ID && x.DeliveredIn == y.DeliveredIn && x.Text == y.Text
}

// PendingNotes are the notes not yet delivered, oldest first.
func (d *Document) PendingNotes() []Note {
	var out []Note
	for _, n := range d.Notes {
		if n.DeliveredIn == "" {
			out = append(out, n)
		}
	}
	return out
}

// WaitingShown are the waiting notes a page shows: all but myco's own
// context note, which is the agent's and only waits if a crash came between
// its saving and the message that carries it.
func (d *Document) WaitingShown() []Note {
	var out []Note
	for _, n := range d.PendingNotes() {
		if n.Kind != NoteContext {
			out = append(out, n)
		}
	}
	return out
}

// NotesIn are the notes message id carried, oldest first.
func (d *Document) NotesIn(id string) []Note {
	var out []Note
	for _, n := range d.Notes {
		if n.DeliveredIn == id {
			out = append(out, n)
		}
	}
	return out
}

// AddNote adds n to d's notes, its text cut to MaxNoteStored. It is for a
// document being built; a session's writer adds a note with
// Writer.AddNote, one journal record.
func AddNote(d *Document, n Note) {
	d.Notes = append(slices.Clip(d.Notes), storedNote(n))
}

// storedNote is n as it is kept: its text cut to MaxNoteStored.
func storedNote(n Note) Note {
	if len(n.Text) > MaxNoteStored {
		n.Text = textcut.Bytes(n.Text, MaxNoteStored)
	}
	return n
}

// waitingNote is the index of waiting note id in d's notes, -1 if none.
func waitingNote(d *Document, id string) int {
	return slices.IndexFunc(d.Notes, func(n Note) bool { return n.ID == id && n.DeliveredIn == "" })
}

// deliverNotes marks the waiting notes named in ids delivered in message
// msg. The list is copied first: a fold may be encoding the old one.
func deliverNotes(d *Document, ids []string, msg string) {
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	notes := slices.Clone(d.Notes)
	for i := range notes {
		if notes[i].DeliveredIn == "" && want[notes[i].ID] {
			notes[i].DeliveredIn = msg
		}
	}
	d.Notes = notes
}

// RemoveNote takes a waiting note back (an attachment the person removed).
func RemoveNote(d *Document, id string) error {
	i := waitingNote(d, id)
	if i < 0 {
		return fmt.Errorf("%w: %s", ErrNoNote, id)
	}
	d.Notes = slices.Delete(slices.Clone(d.Notes), i, i+1)
	return nil
}

// AppendDelivering is Append for a person's message that carries the
// waiting notes named in deliver: they are marked delivered in it in the
// same journal record (by ID, never the whole list), so none is lost and
// none is sent twice.
func (w *Writer) AppendDelivering(m Message, deliver []string, dequeue ...string) error {
	return w.change(func() (*Record, error) {
		var delivered []string
		for _, id := range deliver {
			if waitingNote(w.doc, id) >= 0 {
				delivered = append(delivered, id)
			}
		}
		return &Record{
			Op: OpMessage, Thread: max(len(w.doc.Threads)-1, 0), Message: &m,
			Header: appendHeader(m, w.doc.Queued, dequeue), Delivered: delivered,
		}, nil
	}, true)
}

// AddNote adds n to the notes waiting for the next message, durably: one
// journal record of the note alone, however many wait (issue 18: each note
// rewrote the whole list, and 10,000 took ten minutes).
func (w *Writer) AddNote(n Note) error {
	n = storedNote(n)
	return w.record(&Record{Op: OpNote, Note: &n}, true)
}

// RemoveNote takes waiting note id back, durably; ErrNoNote when it is not
// waiting (gone, or delivered already).
func (w *Writer) RemoveNote(id string) error {
	return w.change(func() (*Record, error) {
		if waitingNote(w.doc, id) < 0 {
			return nil, fmt.Errorf("%w: %s", ErrNoNote, id)
		}
		return &Record{Op: OpUnnote, ID: id}, nil
	}, true)
}
