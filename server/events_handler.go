package server

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"myco/session"
)

// Status of a session as the snapshot reports it.
const (
	statusIdle     = "idle"
	statusArchived = "archived"
	statusLocked   = "locked"
)

// snapshotData is the first event of every (re)connect: the live state of
// the session, so a tab that reconnects loses nothing and needs no replay.
type snapshotData struct {
	Status    string   `json:"status"`
	Title     string   `json:"title"`
	Turn      string   `json:"turn,omitempty"`
	Approvals []any    `json:"approvals"`
	Queued    []string `json:"queued"`
	LockedBy  *lockRef `json:"locked_by,omitempty"`
	Help      string   `json:"provider_help,omitempty"`
}

type lockRef struct {
	PID int    `json:"pid"`
	URL string `json:"url,omitempty"`
}

func (s *Server) snapshot(id string) (any, error) {
	if ls, ok := s.live.Get(id); ok {
		snap := ls.Snapshot()
		s.told.set(id, watched{title: snap.Title, status: statusIdle})
		return snap, nil
	}
	sum, archived, err := s.summary(id)
	if err != nil {
		return nil, err
	}
	snap := snapshotData{Status: statusIdle, Title: sum.Title, Approvals: []any{}, Queued: []string{}}
	if !s.opts.Models.Configured() {
		snap.Help = s.opts.Models.Help()
	}
	if archived {
		snap.Status = statusArchived
	}
	if owner, ok := s.lockedElsewhere(id); ok {
		snap.Status, snap.LockedBy = statusLocked, &lockRef{PID: owner.PID, URL: owner.URL}
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
