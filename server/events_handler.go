package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"myco/server/event"
	"myco/session"
	"myco/web"
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
		snap.MCPHTML = s.mcpPanelHTML(&session.Document{ID: id, MCPOff: ls.MCPOff()})
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

// sessionEvents streams a session's events to one tab: first a snapshot
// for this tab alone, then every event published after it. The stream is
// chosen by the path, never by the client's query string.
func (s *Server) sessionEvents(c echo.Context) error {
	id := c.Param("id")
	if _, err := s.opts.Sessions.IsArchived(id); err != nil {
		return err
	}
	// A tab that shows the session is the person looking at it (the
	// board's "done since you last looked").
	defer s.seen.looking(id)()
	return s.events.serve(c.Response(), c.Request(), id)
}

// tab is one connected tab: its subscriber queue on the session's
// publisher, its own r3labs stream and the pump between them.
type tab struct {
	hub    *Hub
	stream string // its r3labs stream: "<session>/<n>", unique per connection
	sub    *subscriber
	first  frame // the snapshot, or the first event of another stream
	rc     *http.ResponseController
	pumped chan struct{} // closed when the pump returns
	done   chan struct{} // closed when its handler has cleaned up

	// What the tab was sent, for a shutdown to wait for (sentAll): the
	// pump is working while it holds a batch, published counts the frames
	// it handed r3labs and flushes r3labs' flushes of the response, one
	// after the headers and one after each frame.
	working   atomic.Bool
	published atomic.Int64
	flushes   atomic.Int64

	mu      sync.Mutex
	started bool // the pump runs
	ended   bool // the handler is cleaning up: no pump may start
	dropped bool // its write deadline is in the past for good
}

// serve streams session id to one tab, starting with its snapshot.
func (h *Hub) serve(w http.ResponseWriter, r *http.Request, id string) error {
	return h.serveTab(w, r, id, func(seq int64, partial *event.Partial, running []event.RunningTool) (event.Event, error) {
		snap, err := h.snapshot(id)
		if err != nil {
			return nil, err
		}
		// The hub's partial and running output are those that match seq:
		// the live session's may already hold deltas and output the tab is
		// about to get as events.
		snap.Seq, snap.Partial, snap.Running = seq, partial, running
		snap.StatusHTML = web.StatusChipHTML(snap.Status, snap.Detail)
		return snap, nil
	})
}

// firstEvent makes the event a tab's stream starts with, knowing the id
// of the last event published before the tab subscribed, and the message
// streaming and the calls running as of that event.
type firstEvent func(seq int64, partial *event.Partial, running []event.RunningTool) (event.Event, error)

// serveTab streams the hub's stream id to one tab through r3labs, first
// the event first makes, then every event published after it. The tab
// subscribes to the publisher and learns what its first event must cover
// in one step, then gets its own r3labs stream; the pump starts once
// r3labs has registered the connection (OnSubscribe) and publishes the
// first event, then the tab's queue. A tab the publisher drops, or any
// tab when the hub closes, has its request context cancelled and its
// write deadline moved to now, so that r3labs' handler returns even if
// its write is stuck.
func (h *Hub) serveTab(w http.ResponseWriter, r *http.Request, id string, first firstEvent) error {
	p := h.stream(id)
	sub, seq, partial := p.subscribe()
	ev, err := first(seq, partial, sub.running)
	if err != nil {
		p.unsubscribe(sub)
		return err
	}
	data, err := json.Marshal(ev)
	if err != nil {
		p.unsubscribe(sub)
		return fmt.Errorf("%s: %w", ev.Name(), err)
	}
	t := &tab{
		hub: h, sub: sub, first: frame{id: seq, ev: ev, data: data},
		rc: http.NewResponseController(w), pumped: make(chan struct{}), done: make(chan struct{}),
	}
	h.mu.Lock()
	if h.shut {
		h.mu.Unlock()
		p.unsubscribe(sub)
		return echo.NewHTTPError(http.StatusServiceUnavailable, "shutting down")
	}
	h.lastTab++
	t.stream = id + "/" + strconv.FormatInt(h.lastTab, 10)
	h.tabs[t.stream] = t
	h.mu.Unlock()
	defer close(t.done)
	defer h.forget(t.stream)

	// A long-lived stream must not be cut by the server's timeouts; the
	// pump sets a deadline per event instead.
	if err := t.rc.SetWriteDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		p.unsubscribe(sub)
		return fmt.Errorf("event stream: %w", err)
	}
	h.sse.CreateStream(t.stream)
	ctx, cancel := context.WithCancel(r.Context())
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		t.watch(ctx, cancel)
	}()
	req := r.Clone(ctx)
	req.URL.RawQuery = "stream=" + url.QueryEscape(t.stream)
	// Nothing is replayed, the snapshot covers it; and a stale or foreign
	// id must never become r3labs' 400, which closes an EventSource for good.
	req.Header.Del("Last-Event-ID")
	h.sse.ServeHTTP(countingWriter{w, &t.flushes}, req)

	// r3labs' handler has returned: no client is on the stream any more,
	// the only time RemoveStream neither leaks nor hangs.
	cancel()
	<-watched
	p.unsubscribe(sub)
	t.mu.Lock()
	t.ended = true
	started := t.started
	t.mu.Unlock()
	h.sse.RemoveStream(t.stream) // unblocks a pump stuck in Publish
	if started {
		<-t.pumped
	}
	if !t.dropped {
		_ = t.rc.SetWriteDeadline(time.Time{}) // the connection may serve again
	}
	return nil
}

func (h *Hub) forget(stream string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.tabs, stream)
}

// startPump starts the pump of the tab streaming on stream; r3labs calls
// it once the tab's connection is registered on that stream.
func (h *Hub) startPump(stream string) {
	h.mu.Lock()
	t := h.tabs[stream]
	h.mu.Unlock()
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.started || t.ended {
		return
	}
	t.started = true
	go t.pump()
}

// watch drops the tab when the publisher drops it (it fell a whole buffer
// behind) or the hub closes, until the request ends.
func (t *tab) watch(ctx context.Context, cancel context.CancelFunc) {
	select {
	case <-ctx.Done():
		return
	case <-t.sub.gone:
	case <-t.hub.closed:
	}
	t.mu.Lock()
	t.dropped = true
	// A write stuck on a tab that stopped reading fails now; r3labs
	// ignores the error, but net/http then cancels the request.
	_ = t.rc.SetWriteDeadline(time.Now())
	t.mu.Unlock()
	cancel()
}

// pump publishes the snapshot, then the tab's queue, on the tab's r3labs
// stream. Publish blocks while r3labs' small queue for the stream is full;
// meanwhile frames pile up in the subscriber queue, and the pump sends the
// text deltas among them merged. Only this tab waits: the publisher never
// does.
func (t *tab) pump() {
	defer close(t.pumped)
	if !t.publish(t.first) {
		return
	}
	var batch []frame
	for {
		select {
		case <-t.sub.gone:
			return
		case <-t.sub.ready:
		}
		t.working.Store(true)
		batch = t.sub.take(batch)
		for _, f := range merge(batch) {
			if !t.publish(f) {
				return
			}
		}
		t.working.Store(false)
	}
}

// publish hands one frame to r3labs, after moving the write deadline: a
// write still stuck writeTimeout after the last event fails.
func (t *tab) publish(f frame) bool {
	if f.ev != nil && f.data == nil {
		data, err := json.Marshal(f.ev)
		if err != nil {
			t.hub.log.Error("event not encodable", "event", f.ev.Name(), "err", err)
			return true
		}
		f.data = data
	}
	t.mu.Lock()
	dropped := t.dropped
	if !dropped {
		_ = t.rc.SetWriteDeadline(time.Now().Add(t.hub.writeTimeout))
	}
	t.mu.Unlock()
	if dropped {
		return false
	}
	t.hub.sse.Publish(t.stream, sseEvent(f))
	t.published.Add(1)
	return true
}

// sentAll reports whether the tab has been sent every frame queued for
// it, or will never be: a tab dropped, or whose handler has ended.
func (t *tab) sentAll() bool {
	t.mu.Lock()
	gone := t.dropped || t.ended
	t.mu.Unlock()
	if gone {
		return true
	}
	if t.working.Load() {
		return false
	}
	t.sub.mu.Lock()
	pending := len(t.sub.pending)
	t.sub.mu.Unlock()
	return pending == 0 && t.flushes.Load()-1 >= t.published.Load()
}

// countingWriter is a tab's response as r3labs writes it, counting its
// flushes (tab.sentAll). Unwrap keeps http.ResponseController working
// through it.
type countingWriter struct {
	http.ResponseWriter
	flushes *atomic.Int64
}

func (w countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	w.flushes.Add(1)
}

func (w countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
