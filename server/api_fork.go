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
	// DropTurns keeps all but the latest thread's last N turns (/rewind):
	// the server knows how many there are, the tab need not ask.
	DropTurns *int `json:"drop_turns"`
}

// forkResponse is the new session, and its page.
type forkResponse struct {
	session.Summary
	URL string `json:"url"`
	// CacheNote says the fork's first request will not find its parent's
	// prompt cache (coldfork.go); absent when it likely will.
	CacheNote string `json:"cache_note,omitempty"`
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
	opts, err := s.forkOptions(id, req)
	if err != nil {
		return err
	}
	fork, err := s.opts.Sessions.Fork(id, opts)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, forkResponse{Summary: fork.Summarize(), URL: web.SessionURL(fork.ID), CacheNote: s.coldForkNote(fork)})
}

// forkOptions turns a fork request into where the fork ends: at most one
// of message, keep_turns and drop_turns; none keeps every turn.
func (s *Server) forkOptions(id string, req forkRequest) (session.ForkOptions, error) {
	given := 0
	for _, set := range []bool{req.Message != "", req.KeepTurns != nil, req.DropTurns != nil} {
		if set {
			given++
		}
	}
	if given > 1 {
		return session.ForkOptions{}, fmt.Errorf("%w: give only one of message, keep_turns and drop_turns", errBadInput)
	}
	switch {
	case req.Message != "":
		return session.ForkOptions{At: req.Message}, nil
	case req.KeepTurns != nil:
		return session.ForkOptions{ByTurns: true, KeepTurns: *req.KeepTurns}, nil
	}
	drop := 0
	if req.DropTurns != nil {
		drop = *req.DropTurns
		if drop < 0 {
			return session.ForkOptions{}, fmt.Errorf("%w: drop_turns must be 0 or more, not %d", errBadInput, drop)
		}
	}
	doc, err := s.opts.Sessions.Load(id)
	if err != nil {
		return session.ForkOptions{}, err
	}
	turns := doc.Turns()
	if drop > turns {
		return session.ForkOptions{}, fmt.Errorf("%w: cannot drop %d turns: the latest thread has %d (0 to %d)", session.ErrForkPoint, drop, turns, turns)
	}
	return session.ForkOptions{ByTurns: true, KeepTurns: turns - drop}, nil
}

// deleteSession removes an archived session for good. An active one must
// be archived first (409, its turn left running), and one another process
// holds is refused (409). One whose archive waits for its running turn
// goes at once: the turn is stopped, then everything is removed.
func (s *Server) deleteSession(c echo.Context) error {
	id := c.Param("id")
	if err := s.live.Delete(id, func() error { return s.opts.Sessions.Delete(id) }); err != nil {
		return err
	}
	s.seen.forget(id)
	s.forgetSnapshots(id)
	return c.NoContent(http.StatusNoContent)
}
