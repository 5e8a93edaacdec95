package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"myco/server/event"
)

// Hub fans each session's events out to the tabs that stream them. It is
// our own rather than r3labs/sse: r3labs cannot send to one subscriber, so
// a snapshot reached every tab of the session, and a snapshot written
// before handing the connection over could miss the events published
// meanwhile. Here a tab subscribes and takes its snapshot's sequence
// number in one step, so it gets exactly the events after its snapshot.
// Nothing is replayed: the session document is the record.
type Hub struct {
	snapshot func(id string) (event.Snapshot, error)
	log      *slog.Logger
	closed   chan struct{}

	mu         sync.Mutex
	publishers map[string]*publisher
	shut       bool
}

func newHub(snapshot func(id string) (event.Snapshot, error), log *slog.Logger) *Hub {
	return &Hub{snapshot: snapshot, log: log, closed: make(chan struct{}), publishers: map[string]*publisher{}}
}

// queued is an event waiting for the publisher's goroutine, with the id
// it was given when published.
type queued struct {
	id int64
	ev event.Event // nil: a heartbeat
}

// publisher serialises one session's events from its own goroutine, so a
// slow tab never blocks the code that publishes. Text deltas that pile up
// while it is busy are merged into one event; an idle publisher sends each
// at once.
type publisher struct {
	id  string
	log *slog.Logger

	mu      sync.Mutex
	lastID  int64 // the id of the last event published
	barrier int64 // no delta merges into an event with an id up to this
	queue   []queued
	partial *event.Partial // the streaming message as of lastID
	subs    map[*subscriber]struct{}
	wake    chan struct{}
	closing chan struct{}
}

// subscriber is one open stream. The publisher never waits for it: one
// that falls a whole buffer behind is dropped, and its tab reconnects and
// gets a snapshot.
type subscriber struct {
	after  int64 // its snapshot's sequence number
	frames chan frame
	gone   chan struct{} // closed when dropped
}

// frame is one encoded event.
type frame struct {
	id   int64
	data []byte
}

// subscriberBuffer is how many frames a tab may fall behind.
const subscriberBuffer = 1024

// stream returns the session's publisher, creating it on first use.
func (h *Hub) stream(id string) *publisher {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.publishers[id]
	if !ok {
		p = &publisher{
			id: id, log: h.log,
			// IDs keep growing across restarts of the process too.
			lastID:  time.Now().UnixMilli() * 1000,
			subs:    map[*subscriber]struct{}{},
			wake:    make(chan struct{}, 1),
			closing: make(chan struct{}),
		}
		h.publishers[id] = p
		if !h.shut {
			go p.run()
		}
	}
	return p
}

// Publish queues an event for every tab of session id. It never blocks on
// the network. Every event of a session passes here, tabs or not, so the
// hub always knows the streaming message a snapshot must carry.
func (h *Hub) Publish(id string, ev event.Event) {
	h.stream(id).enqueue(ev)
}

func (p *publisher) enqueue(ev event.Event) {
	p.mu.Lock()
	p.lastID++
	p.track(ev)
	if d, ok := ev.(event.TextDelta); ok && len(p.queue) > 0 {
		last := &p.queue[len(p.queue)-1]
		if ld, ok := last.ev.(event.TextDelta); ok && ld.Message == d.Message && last.id > p.barrier {
			ld.Text += d.Text
			last.ev, last.id = ld, p.lastID
			p.mu.Unlock()
			p.signal()
			return
		}
	}
	p.queue = append(p.queue, queued{id: p.lastID, ev: ev})
	p.mu.Unlock()
	p.signal()
}

// track keeps the streaming message up to date; p.mu is held.
func (p *publisher) track(ev event.Event) {
	switch e := ev.(type) {
	case event.MessageStart:
		p.partial = &event.Partial{Message: e.Message}
	case event.TextDelta:
		if p.partial == nil || p.partial.Message != e.Message {
			p.partial = &event.Partial{Message: e.Message}
		}
		p.partial.Text += e.Text
	case event.MessageEnd:
		if p.partial != nil && p.partial.Message == e.Message {
			p.partial = nil
		}
	case event.MessageDiscard:
		if p.partial != nil && p.partial.Message == e.Message {
			p.partial = nil
		}
	case event.TurnEnd:
		p.partial = nil
	}
}

// subscribe registers a stream and returns, in the same step, the id of
// the last event published and the streaming message as of that event:
// the stream gets every later event and none before.
func (p *publisher) subscribe() (*subscriber, int64, *event.Partial) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := &subscriber{after: p.lastID, frames: make(chan frame, subscriberBuffer), gone: make(chan struct{})}
	p.subs[s] = struct{}{}
	p.barrier = p.lastID // a delta already in the snapshot is never sent again
	var partial *event.Partial
	if p.partial != nil {
		c := *p.partial
		partial = &c
	}
	return s, p.lastID, partial
}

func (p *publisher) unsubscribe(s *subscriber) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.subs[s]; ok {
		delete(p.subs, s)
		close(s.gone)
	}
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
			for _, q := range batch {
				p.send(q)
			}
		}
	}
}

func (p *publisher) send(q queued) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.subs) == 0 {
		return
	}
	data, err := encodeFrame(q.id, q.ev)
	if err != nil {
		p.log.Error("event not encodable", "event", q.ev.Name(), "err", err)
		return
	}
	f := frame{id: q.id, data: data}
	for s := range p.subs {
		if q.ev != nil && q.id <= s.after {
			continue // already in its snapshot
		}
		select {
		case s.frames <- f:
		default:
			p.log.Warn("event stream fell behind; dropped", "session", p.id)
			delete(p.subs, s)
			close(s.gone)
		}
	}
}

// encodeFrame writes one event as SSE: a numeric id, the name and the JSON
// on one data line (JSON escapes every newline). A nil event is a
// heartbeat comment.
func encodeFrame(id int64, ev event.Event) ([]byte, error) {
	if ev == nil {
		return []byte(": heartbeat\n\n"), nil
	}
	data, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(data)+len(ev.Name())+40)
	b = append(b, "id: "...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, "\nevent: "...)
	b = append(b, ev.Name()...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...), nil
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
				p.mu.Lock()
				p.queue = append(p.queue, queued{})
				p.mu.Unlock()
				p.signal()
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

// ids lists the sessions that have a publisher.
func (h *Hub) ids() []string {
	ps := h.all()
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.id
	}
	return ids
}

// close ends every stream; call it before the HTTP server's shutdown,
// which otherwise waits for the streams.
func (h *Hub) close() {
	h.mu.Lock()
	if h.shut {
		h.mu.Unlock()
		return
	}
	h.shut = true
	h.mu.Unlock()
	close(h.closed)
	for _, p := range h.all() {
		close(p.closing)
	}
}
