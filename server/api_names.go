package server

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"myco/session"
)

// resolveSession answers which session an ID, a prefix of one, a name or
// @last means (session.Store.Resolve, the one place that decides): what
// `/resume NAME` and `myco run` ask, as the store here sees the sessions
// (this process's sessions included, whose latest changes may not be in
// their files yet).
func (s *Server) resolveSession(c echo.Context) error {
	id, err := s.opts.Sessions.Resolve(c.QueryParam("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"id": id})
}

// checkName validates a name a request gives a session.
func checkName(name string) error {
	if err := session.ValidateName(name); err != nil {
		return fmt.Errorf("%w: %w", errBadInput, err)
	}
	return nil
}

// releaseName takes name from every session but keep that holds it:
// names are unique in a profile, and giving one to a session moves it
// there (so `myco run -n explore` can run again in a pipeline). The
// session that loses it keeps its last activity (updated_at), so @last
// does not come to mean it. A session that cannot be changed now (another
// process holds it) keeps the name beside the new holder; the name then
// means the most recently active of the two (session.Store.Named), which
// is keep.
func (s *Server) releaseName(name, keep string) {
	if name == "" {
		return
	}
	s.nameMu.Lock()
	defer s.nameMu.Unlock()
	ids, err := s.opts.Sessions.Named(name)
	if err != nil {
		s.opts.Logger.Warn("the sessions that held a name were not found", "name", name, "err", err)
		return
	}
	for _, id := range ids {
		if id == keep {
			continue
		}
		_, err := s.updateSession(id, func(d *session.Document) error {
			if d.Name == name {
				d.Name = ""
			}
			return nil
		})
		if err != nil {
			s.opts.Logger.Warn("a name given to another session stays on this one too", "session", id, "name", name, "to", keep, "err", err)
		}
	}
}
