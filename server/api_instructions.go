package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"myco/session"
)

// Project instructions (server/live/instructions.go): POST
// …/instructions/reload reads the session's instruction files again
// (/init reload); the next model call carries them.

type instructionsAnswer struct {
	Instructions []session.Instruction `json:"instructions"`
}

func (s *Server) reloadInstructions(c echo.Context) error {
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	files, err := ls.ReloadInstructions()
	if err != nil {
		return err
	}
	if files == nil {
		files = []session.Instruction{}
	}
	return c.JSON(http.StatusOK, instructionsAnswer{Instructions: files})
}
