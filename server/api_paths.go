package server

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// listPaths completes a path after @ in the composer: the entries under
// the session's folder that start with prefix (GET …/paths?prefix=src/ma),
// those read_file would refuse left out.
func (s *Server) listPaths(c echo.Context) error {
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	paths, err := ls.Paths(c.QueryParam("prefix"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string][]string{"paths": paths})
}
