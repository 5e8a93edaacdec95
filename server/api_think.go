package server

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"myco/profiles"
	"myco/server/live"
	"myco/session"
)

// steeringOf is what settings say of reasoning effort and personas.
func steeringOf(s profiles.Settings) live.Steering {
	return live.SteeringOf(s)
}

// getSteering answers a session's reasoning effort and persona, with the
// levels and personas it may choose: what /think and /personality show.
func (s *Server) getSteering(c echo.Context) error {
	id := c.Param("id")
	st := steeringOf(s.settings())
	if ls, ok := s.live.Get(id); ok {
		if doc := ls.Document(); doc != nil {
			return c.JSON(http.StatusOK, st.View(doc, s.defaultModel()))
		}
	}
	doc, err := s.opts.Sessions.Load(id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, st.View(doc, s.defaultModel()))
}

// applySteering changes a session's level and persona as a PATCH asks; an
// unknown one is the request's fault, named with the valid ones.
func (s *Server) applySteering(d *session.Document, think, personality *string) error {
	if err := steeringOf(s.settings()).Apply(d, think, personality); err != nil {
		return fmt.Errorf("%w: %w", errBadInput, err)
	}
	return nil
}
