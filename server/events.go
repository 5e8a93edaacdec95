package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/r3labs/sse/v2"

	"myco/server/event"
)

// Hub owns one event stream per session, created on first use and kept for
// the life of the process (r3labs leaks or hangs when a stream with clients
// is removed). The session document is the record: nothing is replayed;
// every (re)subscribe gets a fresh snapshot instead.
type Hub struct {
	sse      *sse.Server
	snapshot func(id string) (event.Snapshot, error)
	log      *slog.Logger

	mu         sync.Mutex
	publishers map[string]*publisher
}

func newHub(snapshot func(id string) (event.Snapshot, error), log *slog.Logger) *Hub {
	h := &Hub{snapshot: snapshot, log: log, publishers: map[string]*publisher{}}
	s := sse.New()
	s.AutoReplay = false // its log grows forever and replays from the start
	s.AutoStream = false
	s.SplitData = true
	s.Headers = map[string]string{"X-Accel-Buffering": "no"}
	s.OnSubscribe = func(id string, _ *sse.Subscriber) { h.sendSnapshot(id) }
	h.sse = s
	return h
}

// publisher serialises one session's events onto its stream from its own
// goroutine, so a slow subscriber never blocks the code that publishes.
// Text deltas that pile up while it is busy are merged into one event; an
// idle publisher sends each at once.
type publisher struct {
	id     string
	sse    *sse.Server
	log    *slog.Logger
	nextID int64

	mu      sync.Mutex
	queue   []event.Event // nil: a heartbeat
	wake    chan struct{}
	closing chan struct{}
}

// stream returns the session's publisher, creating its stream on first use.
func (h *Hub) stream(id string) *publisher {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.publishers[id]
	if !ok {
		h.sse.CreateStream(id)
		p = &publisher{
			id: id, sse: h.sse, log: h.log,
			// IDs keep growing across restarts of the process too.
			nextID:  time.Now().UnixMilli() * 1000,
			wake:    make(chan struct{}, 1),
			closing: make(chan struct{}),
		}
		h.publishers[id] = p
		go p.run()
	}
	return p
}

// Publish queues an event for every tab of session id. It never blocks on
// the network and does nothing when nobody ever subscribed.
func (h *Hub) Publish(id string, ev event.Event) {
	h.mu.Lock()
	p, ok := h.publishers[id]
	h.mu.Unlock()
	if ok {
		p.enqueue(ev)
	}
}

func (h *Hub) sendSnapshot(id string) {
	snap, err := h.snapshot(id)
	if err != nil {
		h.log.Warn("snapshot failed", "session", id, "err", err)
		return
	}
	h.Publish(id, snap)
}

func (p *publisher) enqueue(ev event.Event) {
	p.mu.Lock()
	if d, ok := ev.(event.TextDelta); ok && len(p.queue) > 0 {
		last := &p.queue[len(p.queue)-1]
		if ld, ok := (*last).(event.TextDelta); ok && ld.Message == d.Message {
			ld.Text += d.Text
			*last = ld
			p.mu.Unlock()
			p.signal()
			return
		}
	}
	p.queue = append(p.queue, ev)
	p.mu.Unlock()
	p.signal()
}

func (p *publisher) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *publisher) run() {
	for {
		select {
		case <-p.closing:
			return
		case <-p.wake:
		}
		for {
			p.mu.Lock()
			batch := p.queue
			p.queue = nil
			p.mu.Unlock()
			if len(batch) == 0 {
				break
			}
			for _, ev := range batch {
				p.send(ev)
			}
		}
	}
}

func (p *publisher) send(ev event.Event) {
	if ev == nil { // a heartbeat: a comment keeps proxies and clients alive
		p.sse.Publish(p.id, &sse.Event{Comment: []byte("heartbeat")})
		return
	}
	data, err := json.Marshal(ev)
	if err != nil {
		p.log.Error("event not encodable", "event", ev.Name(), "err", err)
		return
	}
	p.nextID++
	// An event with empty data ends the stream for every subscriber, and
	// r3labs splits data on \n only: JSON has neither problem.
	p.sse.Publish(p.id, &sse.Event{
		ID:    []byte(strconv.FormatInt(p.nextID, 10)),
		Event: []byte(ev.Name()),
		Data:  []byte(normalizeNewlines(string(data))),
	})
}

func normalizeNewlines(s string) string {
	return strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(s)
}

// heartbeat sends a comment on every stream every interval, well inside the
// timeouts of browsers and proxies.
func (h *Hub) heartbeat(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			for _, p := range h.all() {
				p.enqueue(nil)
			}
		}
	}
}

func (h *Hub) all() []*publisher {
	h.mu.Lock()
	defer h.mu.Unlock()
	ps := make([]*publisher, 0, len(h.publishers))
	for _, p := range h.publishers {
		ps = append(ps, p)
	}
	return ps
}

// ids lists the sessions that have a stream.
func (h *Hub) ids() []string {
	ps := h.all()
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.id
	}
	return ids
}

func (h *Hub) close() {
	for _, p := range h.all() {
		close(p.closing)
	}
	h.sse.Close()
}
