package server

import (
	"context"
	"iter"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"myco/server/event"
	"myco/server/live"
	"myco/session"
)

// profileStream is the hub's key for the profile's stream. It is not a
// valid session ID, so it never names a session.
const profileStream = "*profile"

// feedSettle is the least time between two looks at the listing: a turn
// changes the listing with every fold, and a burst of changes is told as
// one look's difference rather than one event per write.
const feedSettle = 100 * time.Millisecond

// feed tells every tab of the profile when the listing changes: a session
// created, renamed, archived, restored, its status or its last activity.
//
// It tells differences, not actions: it keeps what it last told of every
// session and, at each look, compares the listing with it. A look follows
// this store's own changes at once (session.Store.ListChanged), a status
// change of a live session (Hub.Publish calls observe), and every
// WatchInterval a change another process made (the CLI, another myco),
// which only a listing finds. The listing is cached per file, so a look
// over 10,000 sessions costs a few milliseconds.
type feed struct {
	store    *session.Store
	hub      *Hub
	log      *slog.Logger
	interval time.Duration
	kick     chan struct{}
	// wanted is closed when the first tab subscribes to the profile's
	// stream: until then nobody is told anything, and the feed does not
	// look (a listing of 10,000 sessions, beside a start's first page).
	// ready is closed by the first look: what it learns is what the tabs
	// are told differences from.
	wanted, ready chan struct{}
	wantOnce      sync.Once

	mu     sync.Mutex
	status map[string]string // live status of sessions live here, by ID
	told   map[string]listed // nil until the first look
}

// listed is what the profile's tabs were last told of one session.
type listed struct {
	// from is the listing's session this was made of: while the listing
	// yields the same, only the status can have changed.
	from session.Listed
	// marks is the session's pin and tags: a change re-renders the rows.
	marks    string
	title    string
	status   string
	failed   bool
	updated  time.Time
	archived bool
}

func newFeed(store *session.Store, hub *Hub, log *slog.Logger, interval time.Duration) *feed {
	return &feed{
		store: store, hub: hub, log: log, interval: interval,
		kick: make(chan struct{}, 1), wanted: make(chan struct{}), ready: make(chan struct{}),
		status: map[string]string{},
	}
}

// observe follows every event a session publishes (Hub.Publish): a live
// session's status is known here only from its events. It never blocks.
func (f *feed) observe(id string, ev event.Event) {
	if id == profileStream {
		return
	}
	st, ok := ev.(event.Status)
	if !ok {
		return
	}
	f.mu.Lock()
	before := listStatus(f.status[id], false)
	if listStatus(st.Status, false) == event.ListIdle {
		delete(f.status, id) // idle, closed, archived: the document says the rest
	} else {
		f.status[id] = st.Status
	}
	after := listStatus(f.status[id], false)
	f.mu.Unlock()
	if before != after {
		f.wake()
	}
}

func (f *feed) wake() {
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

// listStatus is the status a listing shows for a session whose live
// status (in this process) is live, and whose latest answer failed.
func listStatus(liveStatus string, failed bool) string {
	switch liveStatus {
	case live.StatusThinking, live.StatusWriting, live.StatusTool, live.StatusRetrying, live.StatusCompacting, live.StatusStopping:
		return event.ListRunning
	case live.StatusApproval:
		return event.ListWaiting
	}
	if failed {
		return event.ListFailed
	}
	return event.ListIdle
}

// statusOf is the status a listing shows for sum now.
func (f *feed) statusOf(sum session.Summary) string { return f.statusFor(sum.ID, sum.Failed) }

// statusFor is statusOf for session id, failed or not.
func (f *feed) statusFor(id string, failed bool) string {
	f.mu.Lock()
	st := f.status[id]
	f.mu.Unlock()
	return listStatus(st, failed)
}

// run looks at the listing whenever it may have changed, until ctx ends,
// from when a tab first wants to hear of it. Its first look only learns,
// and then closes ready.
func (f *feed) run(ctx context.Context) {
	select {
	case <-ctx.Done():
		return
	case <-f.wanted:
	}
	t := time.NewTicker(f.interval)
	defer t.Stop()
	for first := true; ; first = false {
		// Taken before the look: a change during it wakes the next one.
		changed := f.store.ListChanged()
		f.look()
		if first {
			close(f.ready)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-changed:
		case <-f.kick:
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(feedSettle):
		}
	}
}

// look compares the listing with what was last told, and tells the
// difference. The first look only learns: no tab has been told anything.
func (f *feed) look() {
	now, err := f.current()
	if err != nil {
		f.log.Warn("profile feed: listing failed", "err", err)
		return
	}
	f.mu.Lock()
	prev := f.told
	f.told = now
	f.mu.Unlock()
	if prev == nil {
		return
	}
	for _, ev := range diffListing(prev, now) {
		f.hub.Publish(profileStream, ev)
	}
}

// current is every session as a listing shows it now, active and archived.
func (f *feed) current() (map[string]listed, error) {
	active, nActive, err := f.store.Listing(session.ListOptions{})
	if err != nil {
		return nil, err
	}
	archived, nArchived, err := f.store.Listing(session.ListOptions{Archived: true})
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	prev := f.told
	f.mu.Unlock()
	now := make(map[string]listed, nActive+nArchived)
	for _, part := range []struct {
		sessions iter.Seq[session.Listed]
		archived bool
	}{{active, false}, {archived, true}} {
		for l := range part.sessions {
			// A session unchanged since the last look is not decoded
			// again: a look at 10,000 sessions follows every change of one.
			n, ok := prev[l.ID()]
			if !ok || n.from != l {
				n = newListed(l, part.archived)
			}
			if !n.archived {
				n.status = f.statusFor(l.ID(), n.failed)
			}
			now[l.ID()] = n
		}
	}
	return now, nil
}

// newListed is what a listing shows of l; an archived session has no
// status, pin or tags there.
func newListed(l session.Listed, archived bool) listed {
	sum := l.Summary()
	n := listed{from: l, title: sum.Title, updated: sum.UpdatedAt, archived: archived}
	if !archived {
		n.failed, n.marks = sum.Failed, marksOf(sum)
	}
	return n
}

// diffListing is what tells a tab that knows prev about now, in the order
// of the sessions' IDs.
func diffListing(prev, now map[string]listed) []event.Event {
	var out []event.Event
	for _, id := range slices.Sorted(func(yield func(string) bool) {
		for id := range now {
			if !yield(id) {
				return
			}
		}
	}) {
		n := now[id]
		p, known := prev[id]
		switch {
		case n.archived && (!known || p.archived):
			// Not in the active listing before or now.
		case n.archived:
			out = append(out, event.SessionRemoved{ID: id, Archived: true})
		case !known || p.archived:
			out = append(out, event.SessionAdded{ID: id, Title: n.title, Status: n.status, Restored: known})
		case n.title != p.title || n.status != p.status || !n.updated.Equal(p.updated) || n.marks != p.marks:
			out = append(out, event.SessionChanged{ID: id, Title: n.title, Status: n.status, UpdatedAt: n.updated})
		}
	}
	var gone []string
	for id, p := range prev {
		if _, ok := now[id]; !ok && !p.archived {
			gone = append(gone, id)
		}
	}
	slices.Sort(gone)
	for _, id := range gone {
		out = append(out, event.SessionRemoved{ID: id})
	}
	return out
}

// profileEvents streams the profile's listing changes to one tab: first a
// sessions.snapshot (what the tab shows may be stale: it refetches), then
// every change. The auth, Host and Origin checks are those of every route.
func (s *Server) profileEvents(c echo.Context) error {
	// A tab that subscribed before the feed's first look could miss a
	// change that look takes as known.
	s.feed.wantOnce.Do(func() { close(s.feed.wanted) })
	select {
	case <-s.feed.ready:
	case <-c.Request().Context().Done():
		return nil
	}
	return s.events.serveTab(c.Response(), c.Request(), profileStream, func(int64, *event.Partial, []event.RunningTool) (event.Event, error) {
		return event.SessionsSnapshot{}, nil
	})
}

// marksOf is sum's pin and tags as one comparable string.
func marksOf(sum session.Summary) string {
	if !sum.Pinned && len(sum.Tags) == 0 {
		return ""
	}
	return strconv.FormatBool(sum.Pinned) + "\x00" + strings.Join(sum.Tags, "\x00")
}
