package server

import (
	"context"
	"sync"
	"time"

	"myco/server/event"
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
}

func (t *told) set(id string, w watched) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.state[id] = w
}

func (t *told) setTitle(id, title string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w, ok := t.state[id]; ok {
		w.title = title
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
	now := watched{title: sum.Title, status: last.status}
	if archived := sum.Archived; archived != (last.status == statusArchived) {
		// Every tab hears the new status; snapshots are for connecting tabs.
		now.status = statusIdle
		if archived {
			now.status = statusArchived
		}
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
