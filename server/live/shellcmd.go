package live

import (
	"context"
	"strings"

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
	s.publish(NoteEvent(n)) // the card, running
	go func() {
		timeout := s.m.opts.CommandTimeout
		res, err := shell.RunWithProgress(context.Background(), command, timeout, func(p []byte) {
			s.publish(event.ToolOutput{ToolUseID: n.ID, Text: strings.ToValidUTF8(string(p), "")})
		})
		exit := res.ExitCode
		n.Exit = &exit
		n.Text = formatRun(res, false, timeout)
		if err != nil {
			n.Text = "The command could not run: " + err.Error()
		}
		if _, err := s.addNote(n); err != nil {
			s.m.log.Warn("a command's outcome was not kept", "session", s.id, "err", err)
		}
	}()
	return n.ID, nil
}
