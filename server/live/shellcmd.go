package live

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/google/uuid"

	"myco/server/event"
	"myco/session"
)

// RunCommand runs command in the session's shell for the person (a
// !command in the composer), without asking: the person typed it. It
// returns at once with the ID of its note; the output streams to the tabs
// as tool.output events under that ID, and when the command ends its
// outcome is saved as a note for the next message (session.NoteCommand).
// It shares the agent's shell (one command at a time: it waits for a
// command the agent is running), so cd and export carry over both ways.
func (s *Session) RunCommand(command string) (string, error) {
	command = strings.TrimSpace(command)
	if command == "" {
		return "", ErrEmptyMessage
	}
	s.mu.Lock()
	if err := s.refuseLocked(); err != nil {
		s.mu.Unlock()
		return "", err
	}
	s.mu.Unlock()
	shell, note, err := s.ensureShell()
	if err != nil {
		return "", err
	}
	if note != "" {
		// The note about a new shell is for the agent's own first command.
		s.mu.Lock()
		s.toldShell = false
		s.mu.Unlock()
	}
	n := session.Note{ID: uuid.NewString(), Kind: session.NoteCommand, Command: command, At: s.m.opts.Now().UTC()}
	ctx, done := s.commands.start(n)
	s.publish(s.noteEvent(n)) // the card, running
	go func() {
		timeout := s.m.opts.CommandTimeout
		res, err := shell.RunWithProgress(ctx, command, timeout, func(p []byte) {
			s.publish(event.ToolOutput{ToolUseID: n.ID, Text: strings.ToValidUTF8(string(p), "")})
		})
		stopped := ctx.Err() != nil
		done() // before its outcome is told: a Stop after that finds nothing running
		exit := res.ExitCode
		n.Exit = &exit
		n.Text = formatRun(res, stopped, timeout)
		if err != nil && !stopped {
			n.Text = "The command could not run: " + err.Error()
		}
		if _, err := s.addNote(n); err != nil {
			s.m.log.Warn("a command's outcome was not kept", "session", s.id, "err", err)
		}
	}()
	return n.ID, nil
}

// runningCommands are the person's !commands still running, so that Stop
// kills them as it kills the agent's: they run outside any turn, each
// with a context of its own. The zero value is ready to use.
type runningCommands struct {
	mu   sync.Mutex
	runs map[string]runningCommand
}

type runningCommand struct {
	note   session.Note // as it started: no outcome yet
	cancel context.CancelFunc
}

// start gives the command of note n its context; done forgets it (and
// must be called when the command ends).
func (r *runningCommands) start(n session.Note) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	r.mu.Lock()
	if r.runs == nil {
		r.runs = map[string]runningCommand{}
	}
	r.runs[n.ID] = runningCommand{note: n, cancel: cancel}
	r.mu.Unlock()
	return ctx, func() {
		r.mu.Lock()
		delete(r.runs, n.ID)
		r.mu.Unlock()
		cancel()
	}
}

// running are the notes of the commands running now, oldest first: a
// snapshot shows their cards.
func (r *runningCommands) running() []session.Note {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]session.Note, 0, len(r.runs))
	for _, c := range r.runs {
		out = append(out, c.note)
	}
	slices.SortFunc(out, func(a, b session.Note) int { return a.At.Compare(b.At) })
	return out
}

// stopAll cancels every running command and says whether there was one.
func (r *runningCommands) stopAll() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.runs {
		c.cancel()
	}
	return len(r.runs) > 0
}
