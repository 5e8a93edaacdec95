package server

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"
)

// listPaths completes a path after @ in the composer: the entries under
// the session's folder that start with prefix (GET …/paths?prefix=src/ma),
// or, given q, the files and folders anywhere below it that match q
// fuzzily (GET …/paths?q=rntm, the @ picker); those read_file would
// refuse left out either way.
func (s *Server) listPaths(c echo.Context) error {
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	if c.QueryParams().Has("q") {
		q := c.QueryParam("q")
		if len(q) > maxPickQuery {
			return echo.NewHTTPError(http.StatusBadRequest, fmt.Sprintf("q is %d bytes: at most %d", len(q), maxPickQuery))
		}
		paths, err := ls.FindPaths(c.Request().Context(), s.picker, q)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string][]string{"paths": paths})
	}
	paths, err := ls.Paths(c.QueryParam("prefix"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string][]string{"paths": paths})
}

// maxPickQuery bounds what the picker matches: a path, not a document.
const maxPickQuery = 256
