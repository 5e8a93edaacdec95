package server

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// The steering commands' API (issue 12): /steer, /btw, and editing or
// cancelling a queued message before its turn starts.

type steerRequest struct {
	Text string `json:"text"`
}

// steerTurn takes guidance for the running turn (202 {steer}), or, with no
// turn running, sends it as an ordinary message (202 {turn}, or {queued}
// during a compaction).
func (s *Server) steerTurn(c echo.Context) error {
	var req steerRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	// Steer says which it was: a steer may be taken in before this
	// answer is written, so the queue cannot tell afterwards.
	turn, steer, queued, err := ls.Steer(req.Text)
	switch {
	case err != nil:
		return err
	case turn != "":
		return c.JSON(http.StatusAccepted, map[string]string{"turn": turn})
	case steer != "":
		return c.JSON(http.StatusAccepted, map[string]string{"steer": steer})
	}
	return c.JSON(http.StatusAccepted, map[string]string{"queued": queued})
}

type btwRequest struct {
	Question string `json:"question"`
}

// askBtw starts a side question (202 {btw}); the answer streams as btw.*
// events and is kept nowhere.
func (s *Server) askBtw(c echo.Context) error {
	var req btwRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	id, err := ls.Btw(req.Question)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]string{"btw": id})
}

type queuedRequest struct {
	Text string `json:"text"`
}

// editQueued changes a queued message's text: 200 with the message, 409
// once its turn has started or it was cancelled.
func (s *Server) editQueued(c echo.Context) error {
	var req queuedRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	q, err := ls.EditQueued(c.Param("qid"), req.Text)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, q)
}

// cancelQueued takes a message out of the queue: 204, or 409 once its
// turn has started.
func (s *Server) cancelQueued(c echo.Context) error {
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	if err := ls.CancelQueued(c.Param("qid")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
