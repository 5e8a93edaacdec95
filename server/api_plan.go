package server

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// Plan mode (server/live/plan.go): PUT …/mode {mode: plan|build, text?}
// switches, and with text sends it as the person's message in the new
// mode at once (/plan TASK, and the plan card's "Build now").

type modeRequest struct {
	Mode string `json:"mode"`
	Text string `json:"text"`
}

type modeAnswer struct {
	Mode string `json:"mode"`
	Turn string `json:"turn,omitempty"`
}

func (s *Server) putMode(c echo.Context) error {
	var req modeRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	mode, err := ls.SetMode(req.Mode)
	if err != nil {
		return err
	}
	if strings.TrimSpace(req.Text) == "" {
		return c.JSON(http.StatusOK, modeAnswer{Mode: mode})
	}
	turn, _, err := ls.Submit(req.Text, nil, false)
	if err != nil {
		return err // the mode stays switched: the person sees the badge
	}
	return c.JSON(http.StatusAccepted, modeAnswer{Mode: mode, Turn: turn})
}
