package live

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"myco/internal/textcut"
	"myco/server/event"
	"myco/server/tools"
	"myco/session"
)

// Notes wait in the document (session.Note) for the person's next message
// and reach the model once, as text blocks before the person's own words:
// notes left from elsewhere, commands the person ran (!command), files and
// folders they attached (@path). They are marked delivered in the journal
// record that saves the message, never inserted into a running turn, and a
// retry of that message sends the same ones again (they are rebuilt from
// the document for every request).

// Bounds on what notes add to a message.
const (
	// maxNoteChars bounds each note from elsewhere, maxNotesChars all of
	// them in one message (the newest are kept).
	maxNoteChars  = 1200
	maxNotesChars = 6000
	// maxCommandChars bounds a !command's output as the model sees it:
	// its start and its end.
	maxCommandChars = 8000
	// maxAttachLines is how many lines of an attached file are sent;
	// maxAttachEntries how many entries of a folder.
	maxAttachLines   = 2000
	maxAttachEntries = 500
)

// NoteEvent is note n as the tabs see it, its text capped.
func NoteEvent(n session.Note) event.Note {
	return event.Note{
		ID: n.ID, Kind: n.Kind, From: n.From, Text: capText(n.Text, maxEventOutput), At: n.At,
		Command: n.Command, Exit: n.Exit, Path: n.Path,
	}
}

// noteEvent is NoteEvent with the note's card (or chip) rendered, as the
// page shows it.
func (s *Session) noteEvent(n session.Note) event.Note {
	ev := NoteEvent(n)
	if r := s.m.opts.RenderNote; r != nil {
		html, err := r(n)
		if err != nil {
			s.m.log.Warn("render note failed", "session", s.id, "err", err)
		}
		ev.HTML = html
	}
	return ev
}

// noteEvents are what a snapshot carries for a tab that (re)connects:
// the waiting notes, then the person's commands still running.
func (s *Session) noteEvents() []event.Note {
	var out []event.Note
	s.w.View(func(d *session.Document) {
		for _, n := range d.WaitingShown() {
			out = append(out, s.noteEvent(n))
		}
	})
	for _, n := range s.commands.running() {
		out = append(out, s.noteEvent(n))
	}
	return out
}

// addNote saves n as waiting for the next message and tells the tabs.
func (s *Session) addNote(n session.Note) (session.Note, error) {
	if n.ID == "" {
		n.ID = uuid.NewString()
	}
	if n.At.IsZero() {
		n.At = s.m.opts.Now().UTC()
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return session.Note{}, ErrSessionClosed
	}
	if err := s.w.AddNote(n); err != nil {
		if isClosed(err) {
			err = ErrSessionClosed
		}
		return session.Note{}, fmt.Errorf("save note: %w", err)
	}
	s.publish(s.noteEvent(n))
	return n, nil
}

// RemoveNote takes back a note still waiting (an attachment the person
// removed from the composer).
func (s *Session) RemoveNote(id string) error {
	if err := s.w.RemoveNote(id); err != nil {
		if isClosed(err) {
			err = ErrSessionClosed
		}
		return err
	}
	s.publish(event.Note{ID: id, Removed: true})
	return nil
}

// PendingNotes are the notes waiting for the next message.
func (s *Session) PendingNotes() []session.Note {
	var out []session.Note
	s.w.View(func(d *session.Document) { out = d.PendingNotes() })
	return out
}

// appendHumanMessage saves a person's message with the notes waiting for
// it, marked delivered in the same journal record.
func (s *Session) appendHumanMessage(m session.Message, dequeue ...string) error {
	if err := s.addContextNote(); err != nil {
		return err
	}
	var deliver []string
	s.w.View(func(d *session.Document) {
		for _, n := range d.PendingNotes() {
			deliver = append(deliver, n.ID)
		}
	})
	if err := s.w.AppendDelivering(m, deliver, dequeue...); err != nil {
		if isClosed(err) {
			err = ErrSessionClosed
		}
		return fmt.Errorf("save message: %w", err)
	}
	s.publishMessage(m)
	s.publishPanel()
	return nil
}

// withNotes puts, before each person's message of msgs, the notes it
// carried. msgs is what seen returned: a copy the caller owns.
func (s *Session) withNotes(msgs []session.Message) []session.Message {
	var notes []session.Note
	s.w.View(func(d *session.Document) { notes = d.Notes })
	if len(notes) == 0 {
		return msgs
	}
	for i, m := range msgs {
		if m.Role != "user" || !m.Human {
			continue
		}
		var carried []session.Note
		for _, n := range notes {
			if n.DeliveredIn == m.ID {
				carried = append(carried, n)
			}
		}
		if len(carried) == 0 {
			continue
		}
		msgs[i].Content = append(noteBlocks(carried), m.Content...)
	}
	return msgs
}

// noteBlocks is what the model is told of notes, oldest first: notes from
// elsewhere cut to maxNoteChars each and maxNotesChars in all (the newest
// kept, and a line saying how many older ones were left out), commands and
// attachments after them.
func noteBlocks(notes []session.Note) []session.Block {
	var from, own []session.Note
	var texts []string
	for _, n := range notes {
		if n.Kind == session.NoteContext {
			texts = append(texts, contextText(n))
			continue
		}
		if n.Kind == session.NoteText || n.Kind == "" {
			from = append(from, n)
		} else {
			own = append(own, n)
		}
	}
	var fromTexts []string
	total, kept := 0, len(from)
	for i := len(from) - 1; i >= 0; i-- {
		t := noteText(from[i])
		if total+utf8.RuneCountInString(t) > maxNotesChars {
			break
		}
		total += utf8.RuneCountInString(t)
		fromTexts = append(fromTexts, t)
		kept = i
	}
	slices.Reverse(fromTexts)
	if kept > 0 {
		texts = append(texts, fmt.Sprintf("[%s left out: notes are limited to %d characters per message.]",
			plural(kept, "older note"), maxNotesChars))
	}
	texts = append(texts, fromTexts...)
	for _, n := range own {
		texts = append(texts, ownText(n))
	}
	blocks := make([]session.Block, len(texts))
	for i, t := range texts {
		blocks[i] = session.Block{Type: session.BlockText, Text: t}
	}
	return blocks
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what + " was"
	}
	return fmt.Sprintf("%d %ss were", n, what)
}

// contextText is how myco's own note reads to the agent: the tag agents
// are trained to read as the harness speaking, not the person.
func contextText(n session.Note) string {
	return "<system-reminder>\n" + n.Text + "\n</system-reminder>"
}

// clock is a note's time as the person reads it.
func clock(t time.Time) string { return t.Local().Format("15:04") }

func noteText(n session.Note) string {
	from := n.From
	if from == "" {
		from = "someone"
	}
	return fmt.Sprintf("[Earlier, at %s, %q sent: \"%s\"]", clock(n.At), from, cutRunes(n.Text, maxNoteChars))
}

func ownText(n session.Note) string {
	switch n.Kind {
	case session.NoteCommand:
		exit := "no exit status"
		if n.Exit != nil {
			exit = fmt.Sprintf("exit %d", *n.Exit)
		}
		return fmt.Sprintf("[You ran `%s` at %s; %s; output:\n%s]", n.Command, clock(n.At), exit, headTail(n.Text, maxCommandChars))
	case session.NoteFile:
		return fmt.Sprintf("[You attached %s at %s:\n%s]", n.Path, clock(n.At), n.Text)
	}
	return fmt.Sprintf("[At %s: %s]", clock(n.At), n.Text)
}

// cutRunes cuts s to n characters, marking the cut.
func cutRunes(s string, n int) string {
	if head := textcut.Runes(s, n); len(head) < len(s) {
		return head + "…"
	}
	return s
}

// headTail keeps the start and the end of a long output (a quarter and
// three quarters of n), saying how much was left out between them.
func headTail(s string, n int) string {
	all := utf8.RuneCountInString(s)
	if all <= n {
		return s
	}
	head, tail := n/4, n-n/4
	return textcut.Runes(s, head) + fmt.Sprintf("\n[… %d characters left out …]\n", all-head-tail) + textcut.TailRunes(s, tail)
}

// SendNote leaves a note from elsewhere for the next message.
func (s *Session) SendNote(from, text string) (session.Note, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return session.Note{}, ErrEmptyMessage
	}
	return s.addNote(session.Note{Kind: session.NoteText, From: strings.TrimSpace(from), Text: text})
}

// sendNoteFor is session_meta send_note: the agent leaves a note for
// another session, through Options.SendNote (as POST …/notes does: the
// live session when it is open here, else its document).
func (s *Session) sendNoteFor(in tools.MetaInput) toolOutcome {
	send := s.m.opts.SendNote
	if send == nil {
		return toolOutcome{output: "send_note: notes to other sessions are not available here", isError: true}
	}
	text := strings.TrimSpace(in.Text)
	if text == "" {
		return toolOutcome{output: "send_note needs a text", isError: true}
	}
	prefix := strings.TrimSpace(in.Session)
	if prefix == "" {
		return toolOutcome{output: "send_note needs a session: an ID or a unique prefix of one (query finds sessions)", isError: true}
	}
	id, err := s.m.opts.Store.Resolve(prefix)
	if err != nil {
		return toolOutcome{output: "send_note: " + err.Error(), isError: true}
	}
	if id == s.id {
		return toolOutcome{output: "send_note: that is this session; write to your scratchpad instead", isError: true}
	}
	var title string
	s.w.View(func(d *session.Document) { title = d.Title })
	if _, err := send(id, noteSender(s.id, title), text); err != nil {
		return toolOutcome{output: "send_note: " + err.Error(), isError: true}
	}
	return toolOutcome{output: "note left for session " + id + "; its agent gets it before its person's next message"}
}

// noteSender is how a note from another session's agent is signed: the
// session's short ID, and its title when it has one (cut, as a note's
// sender is held to 80 bytes).
func noteSender(id, title string) string {
	short := id
	if len(short) > 8 {
		short = short[:8]
	}
	if title == "" {
		return "session " + short
	}
	if r := []rune(title); len(r) > 40 {
		title = string(r[:40]) + "…"
	}
	return fmt.Sprintf("session %s %q", short, title)
}

// Attach attaches a file or folder of the session's folder to the next
// message, under read_file's rules (denied paths, links that lead there)
// and in the session's folder only (folderTarget):
// a file's numbered lines (up to maxAttachLines), which count as read, so
// the agent may edit it at once; a folder's entries.
func (s *Session) Attach(p string) (session.Note, error) {
	t, err := s.folderTarget(p)
	if err != nil {
		return session.Note{}, err
	}
	info, err := os.Stat(t.Real)
	if err != nil {
		return session.Note{}, fmt.Errorf("%w: %s: %w", tools.ErrFileInput, p, err)
	}
	n := session.Note{ID: uuid.NewString(), Kind: session.NoteFile, Path: p}
	if info.IsDir() {
		n.Text, err = listEntries(t.Real)
		if err != nil {
			return session.Note{}, err
		}
		return s.addNote(n)
	}
	res, err := tools.ReadFile(t, tools.ReadInput{Path: p, Limit: maxAttachLines})
	if err != nil {
		return session.Note{}, err
	}
	if res.Image != nil {
		return session.Note{}, fmt.Errorf("%w: %s is an image: attach it with the image button", tools.ErrNotText, p)
	}
	n.Text = res.Text
	// A view no read_file asks for: the agent reading the file itself is
	// never told it was sent already; only the stamp counts.
	s.stamps.Read(t.Real, res.Stamp, "attached "+n.ID, "attachment")
	return s.addNote(n)
}

// listEntries lists a folder's entries, folders marked with a slash.
func listEntries(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("list %s: %w", dir, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d entries:\n", len(entries))
	for i, e := range entries {
		if i == maxAttachEntries {
			fmt.Fprintf(&b, "[%d more left out]\n", len(entries)-i)
			break
		}
		b.WriteString(e.Name())
		if e.IsDir() {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// maxPathHits bounds the completions Paths returns.
const maxPathHits = 50

// Paths completes a path the person is typing after @: the entries of
// prefix's folder (relative to the session's folder, or ~/ or absolute,
// inside it) whose names start with what follows its last slash, folders
// ending in a slash. Entries Attach would refuse are left out.
func (s *Session) Paths(prefix string) ([]string, error) {
	dirPart, base := "", prefix
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		dirPart, base = prefix[:i+1], prefix[i+1:]
	}
	look := dirPart
	if look == "" {
		look = "."
	}
	t, err := s.folderTarget(look)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(t.Real)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", tools.ErrFileInput, look, err)
	}
	out := []string{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		p := dirPart + name
		if _, err := s.folderTarget(p); err != nil {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&os.ModeSymlink != 0 {
			if info, err := os.Stat(t.Real + "/" + name); err == nil {
				isDir = info.IsDir()
			}
		}
		if isDir {
			p += "/"
		}
		out = append(out, p)
		if len(out) == maxPathHits {
			break
		}
	}
	return out, nil
}

// folderTarget resolves a path the person names with @: relative to the
// session's folder (not where its shell went since), not denied, and in
// that folder, where its links lead too: @ attaches the project's files,
// never /etc, the home folder or another profile's server.json.
func (s *Session) folderTarget(p string) (tools.Target, error) {
	root := s.cwdRoot()
	home, _ := os.UserHomeDir()
	abs, err := tools.AbsPath(root, home, p)
	if err != nil {
		return tools.Target{}, err
	}
	t, err := s.m.denied().Resolve(abs)
	if err != nil {
		return t, err
	}
	if !inFolder(t.Path, root) {
		return t, fmt.Errorf("%s is outside the session's folder %s: %w", p, root, ErrOutsideFolder)
	}
	realRoot := root
	if r, err := filepath.EvalSymlinks(root); err == nil {
		realRoot = r
	}
	if !inFolder(t.Real, realRoot) {
		return t, fmt.Errorf("%s leads to %s, outside the session's folder %s: %w", p, t.Real, root, ErrOutsideFolder)
	}
	return t, nil
}

// inFolder reports whether p is dir or inside it; both are clean.
func inFolder(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}
