package server

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// sessionLocation is where a session lives: its ID, the file that holds
// it and the folder its agent works in (/session in the composer).
type sessionLocation struct {
	ID       string `json:"id"`
	Name     string `json:"name,omitempty"`
	Title    string `json:"title"`
	Path     string `json:"path"`
	Cwd      string `json:"cwd"`
	Archived bool   `json:"archived"`
}

// getLocation answers GET /api/sessions/{id}/location. A session with no
// folder of its own works in the one myco was started from, which is
// what its agent's shell uses.
func (s *Server) getLocation(c echo.Context) error {
	id := c.Param("id")
	h, err := s.opts.Sessions.Header(id)
	if err != nil {
		return err
	}
	path, err := s.opts.Sessions.Path(id)
	if err != nil {
		return err
	}
	cwd := h.Cwd
	if cwd == "" {
		cwd = s.opts.Cwd
	}
	return c.JSON(http.StatusOK, sessionLocation{ID: h.ID, Name: h.Name, Title: h.Title, Path: path, Cwd: cwd, Archived: h.Archived})
}
