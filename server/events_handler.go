package server

import (
	"context"
	"errors"
	"io"
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

// sessionEvents streams a session's events: first a snapshot for this tab
// alone, then every event published after it. The stream is chosen by the
// path, never by the client's query string; Last-Event-ID is ignored
// (nothing is replayed: the snapshot covers it).
func (s *Server) sessionEvents(c echo.Context) error {
	id := c.Param("id")
	if _, err := s.opts.Sessions.IsArchived(id); err != nil {
		return err
	}
	p := s.events.stream(id)
	sub, seq, partial := p.subscribe()
	defer p.unsubscribe(sub)
	snap, err := s.snapshot(id)
	if err != nil {
		return err
	}
	// The hub's partial is the one that matches seq: the live session's
	// may already hold deltas the stream is about to send.
	snap.Seq, snap.Partial = seq, partial
	first, err := encodeFrame(seq, snap)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	c.Response().WriteHeader(http.StatusOK)
	return streamFrames(c.Request().Context(), http.NewResponseController(c.Response()), c.Response(), first, sub, s.events.closed)
}

// streamWriteTimeout bounds one write to a tab: a tab that stops reading
// (a frozen tab, a sleeping laptop) is dropped rather than waited for.
const streamWriteTimeout = 10 * time.Second

// streamFrames writes first, then the subscriber's frames until the tab
// goes, falls behind or the server closes. Frames that are ready together
// go out in one write and one flush: a burst costs one syscall, not one
// per event, and the first event of a quiet stream still goes at once.
func streamFrames(ctx context.Context, rc *http.ResponseController, w io.Writer, first []byte, sub *subscriber, closed <-chan struct{}) error {
	buf := append([]byte(nil), first...)
	for {
		if len(buf) > 0 {
			if err := rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
				return nil
			}
			if _, err := w.Write(buf); err != nil {
				return nil // the tab went; it reconnects if it can
			}
			if err := rc.Flush(); err != nil {
				return nil
			}
			buf = buf[:0]
		}
		select {
		case <-ctx.Done():
			return nil
		case <-closed:
			return nil
		case <-sub.gone:
			return nil
		case f := <-sub.frames:
			buf = append(buf, f.data...)
		}
		for more := true; more; {
			select {
			case f := <-sub.frames:
				buf = append(buf, f.data...)
			default:
				more = false
			}
		}
	}
}
