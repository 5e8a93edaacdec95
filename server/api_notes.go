package server

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"myco/server/event"
	"myco/server/live"
	"myco/session"
	"myco/web"
)

// Notes from elsewhere, the person's own commands (!command) and attached
// files (@path): each waits in the session's document for the person's
// next message and reaches the model with it, once (server/live/notes.go).

type noteRequest struct {
	Text string `json:"text"`
	From string `json:"from"`
}

// maxFromLen bounds who a note says it is from.
const maxFromLen = 80

// postNote leaves a note for a session: through its live session when this
// process has one (open tabs show it at once), else in its document, where
// it waits until the session is next open. 202: it is kept, not yet sent.
func (s *Server) postNote(c echo.Context) error {
	var req noteRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	req.Text, req.From = strings.TrimSpace(req.Text), strings.TrimSpace(req.From)
	if req.Text == "" {
		return fmt.Errorf("%w: the note is empty", errBadInput)
	}
	if len(req.From) > maxFromLen {
		return fmt.Errorf("%w: from is longer than %d bytes", errBadInput, maxFromLen)
	}
	id := c.Param("id")
	if err := session.ValidateID(id); err != nil {
		return err
	}
	n, err := s.leaveNote(id, req.From, req.Text)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]string{"id": n.ID})
}

// leaveNote is postNote's write, also what another session's agent uses.
func (s *Server) leaveNote(id, from, text string) (session.Note, error) {
	if archived, _ := s.opts.Sessions.IsArchived(id); archived {
		return session.Note{}, fmt.Errorf("%w: archived sessions are read-only; restore it first", errReadOnly)
	}
	var err error
	for range 2 {
		if ls, ok := s.live.Get(id); ok {
			return ls.SendNote(from, text)
		}
		n := session.Note{ID: uuid.NewString(), Kind: session.NoteText, From: from, Text: text, At: s.opts.Now().UTC()}
		_, err = s.opts.Sessions.Update(id, func(d *session.Document) error {
			if d.Archived {
				return fmt.Errorf("%w: archived sessions are read-only; restore it first", errReadOnly)
			}
			session.AddNote(d, n)
			return nil
		})
		if err == nil {
			ev := live.NoteEvent(n)
			ev.HTML, _ = web.NoteHTML(n) // without it the tab draws the card itself
			s.events.Publish(id, ev)
			return n, nil
		}
		if !errors.Is(err, session.ErrLocked) {
			return session.Note{}, err
		}
		// Opened live between the two looks: go through it.
	}
	// Held by another process: its *LockedError names it (409 with its pid).
	return session.Note{}, fmt.Errorf("leave a note for %s: %w", id, err)
}

// deleteNote takes back a note still waiting: an attachment the person
// removed from the composer.
func (s *Server) deleteNote(c echo.Context) error {
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	if err := ls.RemoveNote(c.Param("note")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

type attachRequest struct {
	Path string `json:"path"`
}

// attachPath attaches a file or folder of the session's folder to the next
// message (@path), under read_file's rules; a file counts as read.
func (s *Server) attachPath(c echo.Context) error {
	var req attachRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	n, err := ls.Attach(strings.TrimSpace(req.Path))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, live.NoteEvent(n))
}

type mentionsRequest struct {
	Text string `json:"text"`
}

// attachMentions attaches every @path of a message about to be sent that
// names an existing file or folder; any other @word (@alice, @Override)
// stays text.
func (s *Server) attachMentions(c echo.Context) error {
	var req mentionsRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	notes, err := ls.AttachMentions(req.Text)
	if err != nil {
		return err
	}
	out := make([]event.Note, 0, len(notes))
	for _, n := range notes {
		out = append(out, live.NoteEvent(n))
	}
	return c.JSON(http.StatusOK, map[string]any{"notes": out})
}

type commandRequest struct {
	Command string `json:"command"`
}

// runCommand runs the person's !command in the session's shell; 202 with
// the ID its output streams under (tool.output) and its note will have.
func (s *Server) runCommand(c echo.Context) error {
	var req commandRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	id, err := ls.RunCommand(req.Command)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]string{"id": id})
}
