package server

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"myco/session"
	"myco/web"
)

type forkRequest struct {
	// Message is a message of the latest thread: the fork keeps its turn.
	Message string `json:"message"`
	// KeepTurns keeps the latest thread's first N turns.
	KeepTurns *int `json:"keep_turns"`
}

// forkResponse is the new session, and its page.
type forkResponse struct {
	session.Summary
	URL string `json:"url"`
}

// forkSession makes a new session seeded with this one's history up to a
// turn boundary (all of it when the request names no point). It only
// reads the parent, which may be running, here or in another process.
func (s *Server) forkSession(c echo.Context) error {
	var req forkRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	id := c.Param("id")
	if err := session.ValidateID(id); err != nil {
		return err
	}
	var opts session.ForkOptions
	switch {
	case req.Message != "" && req.KeepTurns != nil:
		return fmt.Errorf("%w: give message or keep_turns, not both", errBadInput)
	case req.Message != "":
		opts.At = req.Message
	case req.KeepTurns != nil:
		opts.ByTurns, opts.KeepTurns = true, *req.KeepTurns
	default:
		doc, err := s.opts.Sessions.Load(id)
		if err != nil {
			return err
		}
		opts.ByTurns, opts.KeepTurns = true, doc.Turns()
	}
	fork, err := s.opts.Sessions.Fork(id, opts)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, forkResponse{Summary: fork.Summarize(), URL: web.SessionURL(fork.ID)})
}

// deleteSession removes an archived session for good. An active one must
// be archived first (409), and one another process holds is refused (409).
func (s *Server) deleteSession(c echo.Context) error {
	id := c.Param("id")
	if err := s.live.Exclusive(id, func() error { return s.opts.Sessions.Delete(id) }); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
