package server

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"myco/server/event"
	"myco/session"
)

// Status of a session as the snapshot reports it.
const (
	statusIdle     = "idle"
	statusArchived = "archived"
	statusLocked   = "locked"
)

// snapshot is the live state of the session, from its live session when
// it runs in this process, else from the document's header.
func (s *Server) snapshot(id string) (event.Snapshot, error) {
	if ls, ok := s.live.Get(id); ok {
		snap := ls.Snapshot()
		s.told.set(id, watched{title: snap.Title, status: statusIdle})
		return snap, nil
	}
	sum, archived, err := s.summary(id)
	if err != nil {
		return event.Snapshot{}, err
	}
	snap := event.Snapshot{
		Status: statusIdle, Title: sum.Title, Model: sum.Model,
		Approvals: []event.ToolApproval{}, Queued: []event.Queued{},
	}
	if !s.opts.Models.Configured() {
		snap.ProviderHelp = s.opts.Models.Help()
	}
	if archived {
		snap.Status = statusArchived
	}
	if owner, ok := s.lockedElsewhere(id); ok {
		snap.Status, snap.LockedBy = statusLocked, &event.LockRef{PID: owner.PID, URL: owner.URL}
	}
	s.told.set(id, watched{title: snap.Title, status: snap.Status})
	return snap, nil
}

// summary reads only the header: a snapshot needs no messages.
func (s *Server) summary(id string) (session.Summary, bool, error) {
	sum, err := s.opts.Sessions.Header(id)
	if err != nil {
		return session.Summary{}, false, err
	}
	archived, err := s.opts.Sessions.IsArchived(id)
	return sum, archived, err
}

// lockedElsewhere reports the owner when another process holds the
// session's writer lock.
func (s *Server) lockedElsewhere(id string) (session.Owner, bool) {
	owner, held, err := s.opts.Sessions.Owner(id)
	if err != nil || !held || s.opts.Sessions.Holds(id) {
		return session.Owner{}, false
	}
	return owner, true
}

// sessionEvents streams a session's events. The stream is chosen by the
// path, never by the client's query string; the write deadline is cleared
// so a long-lived stream is not cut by the server's timeouts.
func (s *Server) sessionEvents(c echo.Context) error {
	id := c.Param("id")
	if _, err := s.opts.Sessions.IsArchived(id); err != nil {
		return err
	}
	s.events.stream(id)
	rc := http.NewResponseController(c.Response())
	if err := rc.SetWriteDeadline(time.Time{}); err != nil && err != http.ErrNotSupported {
		return err
	}
	r := c.Request().Clone(c.Request().Context())
	r.URL.RawQuery = "stream=" + id
	r.Header.Del("Last-Event-ID") // nothing is replayed: the snapshot covers it
	s.events.sse.ServeHTTP(c.Response(), r)
	return nil
}
