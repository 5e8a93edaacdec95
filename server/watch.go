package server

import (
	"context"
	"sync"
	"time"

	"myco/server/event"
	"myco/web"
)

// told is what the tabs of each session were last told, so that a change
// made elsewhere can be recognised as news.
type told struct {
	mu    sync.Mutex
	state map[string]watched
}

type watched struct {
	title  string
	status string
	// updated is the file's last activity when it was last looked at
	// (zero until the first look); a change means the panel is news.
	updated time.Time
}

func (t *told) set(id string, w watched) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.state[id] = w
}

// setOwn records a change this server makes itself (and tells the tabs
// of), title and time, so the watcher does not take it for news.
func (t *told) setOwn(id, title string, updated time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w, ok := t.state[id]; ok {
		w.title, w.updated = title, updated
		t.state[id] = w
	}
}

// setStatus records a status this server tells the tabs of itself, for a
// session some tab has had a snapshot of.
func (t *told) setStatus(id, status string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w, ok := t.state[id]; ok {
		w.status = status
		t.state[id] = w
	}
}

func (t *told) get(id string) (watched, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	w, ok := t.state[id]
	return w, ok
}

// watch notices changes other processes make to sessions that have an
// open stream (a title set from the CLI, an archive from another server)
// and tells the tabs. The file is the shared record between processes;
// reading its header every few seconds is cheap and needs no inotify.
func (s *Server) watch(ctx context.Context) {
	t := time.NewTicker(s.opts.WatchInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			for _, id := range s.events.ids() {
				s.checkChanged(id)
			}
		}
	}
}

func (s *Server) checkChanged(id string) {
	if id == profileStream {
		return // the feed watches the listing itself
	}
	if _, live := s.live.Get(id); live {
		return // it holds the writer lock: every change comes through it
	}
	last, ok := s.told.get(id)
	if !ok {
		return // no tab has had a snapshot yet
	}
	sum, err := s.opts.Sessions.Header(id)
	if err != nil {
		return
	}
	now := watched{title: sum.Title, status: last.status, updated: sum.UpdatedAt}
	if !sum.UpdatedAt.Equal(last.updated) {
		// Links, scratchpad or counts changed elsewhere (the CLI, another
		// server): the panel is rendered from the file. The first look
		// has nothing to compare with and tells it too, so a change made
		// between the snapshot and that look is not lost.
		s.told.set(id, now)
		s.publishStoredPanel(id)
	}
	if archived := sum.Archived; archived != (last.status == statusArchived) {
		// Every tab hears the new status; snapshots are for connecting tabs.
		now.status = archivedStatus(archived)
		s.told.set(id, now)
		s.events.Publish(id, event.Status{Status: now.status})
		if now.title == last.title {
			return
		}
	}
	if now.title != last.title {
		s.told.set(id, now)
		s.events.Publish(id, event.Title{Title: now.title})
	}
}

// publishStoredPanel tells the tabs of a session that is not live here of
// its side panel as the file has it. Another process may hold it: then
// the panel is read-only, as the page is.
func (s *Server) publishStoredPanel(id string) {
	doc, err := s.opts.Sessions.Load(id)
	if err != nil {
		return
	}
	_, locked := s.lockedElsewhere(id)
	html, err := web.RenderPanel(doc, locked, s.price)
	if err != nil {
		s.log.Warn("render panel failed", "session", id, "err", err)
		return
	}
	s.events.Publish(id, event.Panel{HTML: html})
}
