package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"myco/web"
)

// listSubagents answers the sub-agents running in this process, each
// with the session it works for.
func (s *Server) listSubagents(c echo.Context) error {
	subs := s.live.Subagents()
	if subs == nil {
		return c.JSON(http.StatusOK, []any{})
	}
	return c.JSON(http.StatusOK, subs)
}

// subagentsCard is what /subagents shows: the running sub-agents, with
// Stop, each under the session it works for.
func (s *Server) subagentsCard(c echo.Context) error {
	subs := s.live.Subagents()
	rows := make([]web.RunningSubagent, 0, len(subs))
	for _, sub := range subs {
		r := web.RunningSubagent{SubagentView: web.NewSubagentView(sub.Subagent), ParentID: sub.Parent}
		if h, err := s.opts.Sessions.Header(sub.Parent); err == nil {
			r.ParentTitle = h.Title
		}
		rows = append(rows, r)
	}
	return render(c, http.StatusOK, web.SubagentsCard(rows))
}
