package server

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"myco/session"
)

// A standing goal (server/live/goal.go): set with POST, moved with PATCH
// (running resumes it, paused, off), stopped with DELETE, read with GET.
// Each answer is {"goal": …}, null when the session has none.

type goalRequest struct {
	Text string `json:"text"`
	// Turns is nil when the request names none (the default then);
	// 0 is a number like any other, and refused.
	Turns *int `json:"turns"`
}

// turns is the goal's turn limit the request asks for.
func (r goalRequest) turns() int {
	if r.Turns == nil {
		return session.DefaultGoalTurns
	}
	return *r.Turns
}

type goalPatch struct {
	State string `json:"state"`
}

type goalAnswer struct {
	Goal *session.Goal `json:"goal"`
}

// getGoal answers the session's goal; a session not open here is read from
// its document.
func (s *Server) getGoal(c echo.Context) error {
	id := c.Param("id")
	if ls, ok := s.live.Get(id); ok {
		return c.JSON(http.StatusOK, goalAnswer{ls.Goal()})
	}
	if err := session.ValidateID(id); err != nil {
		return err
	}
	doc, err := s.opts.Sessions.Load(id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, goalAnswer{doc.Goal})
}

// postGoal sets a new goal; its first turn starts now when the session is
// idle, else after the running turn and the queue. 202: work goes on.
func (s *Server) postGoal(c echo.Context) error {
	var req goalRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if _, err := session.NewGoal(req.Text, req.turns()); err != nil {
		return fmt.Errorf("%w: %w", errBadInput, err)
	}
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	g, err := ls.SetGoal(req.Text, req.turns())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, goalAnswer{g})
}

// patchGoal resumes, pauses or stops the goal.
func (s *Server) patchGoal(c echo.Context) error {
	var req goalPatch
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	return s.moveGoal(c, req.State)
}

// deleteGoal stops the goal after the current step (state off; the goal
// stays in the header, so /goal still shows what it was).
func (s *Server) deleteGoal(c echo.Context) error { return s.moveGoal(c, session.GoalOff) }

func (s *Server) moveGoal(c echo.Context, state string) error {
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	g, err := ls.MoveGoal(state)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, goalAnswer{g})
}
