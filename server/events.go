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
	"myco/web"
)

// Hub fans each session's events out to the tabs that stream them.
//
// r3labs/sse is the transport (framing, headers, Last-Event-ID, the write
// loop), but not the fan-out: r3labs cannot send to one subscriber, a
// snapshot sent before handing the connection over could miss the events
// published meanwhile, and one subscriber that stops reading stalls its
// whole stream. So each session has a publisher of our own, and each tab
// gets its own r3labs stream fed by its own pump:
//
//	Publish → publisher (one per session, ids, never waits)
//	        → subscriber queue (one per tab, bounded; full: the tab is dropped)
//	        → pump (one per tab: snapshot first, then the queue)
//	        → r3labs stream "<session>/<n>" → the tab's connection
//
// A tab subscribes and takes its snapshot's sequence number and the
// streaming text (with its blocks rendered so far) in one step, so no
// text reaches it twice; the rest of the snapshot is read just after, so
// a state event published meanwhile may be in it and come too (applying
// it again changes nothing). Nothing is replayed: the session document is
// the record.
type Hub struct {
	snapshot func(id string) (event.Snapshot, error)
	log      *slog.Logger
	sse      *sse.Server
	closed   chan struct{}
	// writeTimeout bounds one write to a tab: a tab that stops reading (a
	// frozen tab, a sleeping laptop) is dropped rather than waited for.
	writeTimeout time.Duration

	mu         sync.Mutex
	publishers map[string]*publisher
	tabs       map[string]*tab // by r3labs stream id
	lastTab    int64
	shut       bool

	// observe, when set, sees every event of every session as it is
	// published (the profile's feed follows statuses there). It must not
	// block. Set before the hub is used.
	observe func(id string, ev event.Event)
}

func newHub(snapshot func(id string) (event.Snapshot, error), log *slog.Logger) *Hub {
	h := &Hub{
		snapshot: snapshot, log: log, closed: make(chan struct{}), writeTimeout: 10 * time.Second,
		publishers: map[string]*publisher{}, tabs: map[string]*tab{},
	}
	s := sse.New()
	s.AutoReplay = false // its log grows forever and replays from the start
	s.AutoStream = false // a stream exists only while its tab's handler runs
	s.SplitData = true   // JSON has no raw newline; this keeps any whole
	// Publish blocks once this many events wait for the tab's write loop
	// (plus r3labs' 64 per subscriber). Kept small so a backlog waits in
	// the tab's subscriber queue, where the pump merges text deltas,
	// rather than in r3labs' queue, where every event costs a flush.
	s.BufferSize = 1
	s.Headers = map[string]string{"X-Accel-Buffering": "no"}
	// It runs after the tab's r3labs subscriber is registered: anything
	// published on the stream before that would be lost.
	s.OnSubscribe = func(stream string, _ *sse.Subscriber) { h.startPump(stream) }
	h.sse = s
	return h
}

// queued is an event waiting for the publisher's goroutine, with the id
// it was given when published.
type queued struct {
	id int64
	ev event.Event // nil: a heartbeat
	// joined, once a delta merged into ev (mergeable), is ev's text and
	// theirs: a builder, where a string per merge copied all the text
	// merged so far, the square of an answer's length while a busy
	// publisher let a long answer pile up.
	joined *strings.Builder
}

// event is q's event, the deltas merged into it joined.
func (q queued) event() event.Event {
	if q.joined == nil {
		return q.ev
	}
	switch d := q.ev.(type) {
	case event.TextDelta:
		d.Text = q.joined.String()
		return d
	case event.ThinkingDelta:
		d.Text = q.joined.String()
		return d
	}
	return q.ev
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
	sending bool           // run holds a batch taken from queue
	partial *partial       // the streaming message as of lastID
	running []*runningTool // the calls and !commands running as of lastID (events_running.go)
	subs    map[*subscriber]struct{}
	wake    chan struct{}
	closing chan struct{}
}

// subscriber is one tab's queue. The publisher never waits for it: one
// that falls a whole buffer behind is dropped, and its tab reconnects and
// gets a snapshot.
type subscriber struct {
	after   int64               // its snapshot's sequence number
	running []event.RunningTool // what ran as of after, for its snapshot
	gone    chan struct{}       // closed when dropped or unsubscribed
	ready   chan struct{}       // holds a token while pending is not empty

	mu      sync.Mutex
	pending []frame // not yet taken by the tab's pump; at most subscriberBuffer
}

func newSubscriber(after int64, running []event.RunningTool) *subscriber {
	return &subscriber{after: after, running: running, gone: make(chan struct{}), ready: make(chan struct{}, 1)}
}

// offer queues f for the tab, or reports false when the tab is a whole
// buffer behind. The queue is a slice that grows with what is pending
// rather than a channel of subscriberBuffer frames: a buffered channel
// costs its whole capacity up front, 48 KB for each open tab, and the
// pump's batch as much again, for a backlog that is a few frames.
func (s *subscriber) offer(f frame) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) >= subscriberBuffer {
		return false
	}
	s.pending = append(s.pending, f)
	select {
	case s.ready <- struct{}{}:
	default:
	}
	return true
}

// take returns what is pending, in order, and keeps spare (emptied) to
// queue the next frames in: the pump hands back its last batch, so two
// slices alternate and a steady stream allocates nothing.
func (s *subscriber) take(spare []frame) []frame {
	clear(spare) // the events it held can go
	s.mu.Lock()
	defer s.mu.Unlock()
	batch := s.pending
	s.pending = spare[:0]
	return batch
}

// frame is one event with its id, encoded once for every tab.
type frame struct {
	id   int64
	ev   event.Event // nil: a heartbeat
	data []byte      // ev as JSON
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
	if st, ok := ev.(event.Status); ok {
		// One place renders the chip for every status published, whoever
		// publishes it (the live session, the watcher of other processes).
		st.HTML = web.StatusChipHTML(st.Status, st.Detail)
		ev = st
	}
	h.stream(id).enqueue(ev)
	if h.observe != nil {
		h.observe(id, ev)
	}
}

// Seq is the id of the last event published on session id's stream. A
// page takes it before it reads the document it shows, so a tab whose
// snapshot comes with a greater seq knows events passed between the two
// that the page may lack (a turn that ended before the tab connected).
func (h *Hub) Seq(id string) int64 {
	p := h.stream(id)
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastID
}

func (p *publisher) enqueue(ev event.Event) {
	p.mu.Lock()
	p.lastID++
	p.track(ev)
	p.trackRunning(ev)
	if n := len(p.queue); n > 0 && p.queue[n-1].id > p.barrier {
		last := &p.queue[n-1]
		if first, more, ok := mergeable(last.ev, ev); ok {
			if last.joined == nil {
				last.joined = new(strings.Builder)
				last.joined.WriteString(first)
			}
			last.joined.WriteString(more)
			last.id = p.lastID
			p.mu.Unlock()
			p.signal()
			return
		}
	}
	p.queue = append(p.queue, queued{id: p.lastID, ev: ev})
	p.mu.Unlock()
	p.signal()
}

// mergeable reports whether b joins a, and their texts: deltas of one
// kind (text or thinking) of one message, which the tab appends alike.
func mergeable(a, b event.Event) (aText, bText string, ok bool) {
	switch d := b.(type) {
	case event.TextDelta:
		if ld, ok := a.(event.TextDelta); ok && ld.Message == d.Message {
			return ld.Text, d.Text, true
		}
	case event.ThinkingDelta:
		if ld, ok := a.(event.ThinkingDelta); ok && ld.Message == d.Message {
			return ld.Text, d.Text, true
		}
	}
	return "", "", false
}

// partial is the message streaming now. Its text and its rendered blocks
// grow in builders: a long answer must not cost a copy of all it has so
// far per delta. upto is where the blocks end in the text (UTF-16 units).
type partial struct {
	message  string
	text     strings.Builder
	html     strings.Builder
	upto     int
	tail     string
	thinking strings.Builder
}

// track keeps the streaming message up to date; p.mu is held.
func (p *publisher) track(ev event.Event) {
	switch e := ev.(type) {
	case event.MessageStart:
		p.partial = &partial{message: e.Message}
	case event.TextDelta:
		if p.partial == nil || p.partial.message != e.Message {
			p.partial = &partial{message: e.Message}
		}
		p.partial.text.WriteString(e.Text)
	case event.ThinkingDelta:
		if p.partial == nil || p.partial.message != e.Message {
			p.partial = &partial{message: e.Message}
		}
		p.partial.thinking.WriteString(e.Text)
	case event.MessageBlocks:
		// Always after the deltas that completed them: the text is there.
		if p.partial != nil && p.partial.message == e.Message {
			p.partial.html.WriteString(e.HTML)
			p.partial.upto = e.Upto
			p.partial.tail = e.Tail
		}
	case event.MessageEnd:
		if p.partial != nil && p.partial.message == e.Message {
			p.partial = nil
		}
	case event.MessageDiscard:
		if p.partial != nil && p.partial.message == e.Message {
			p.partial = nil
		}
	case event.TurnEnd:
		p.partial = nil
	}
}

// subscribe registers a tab and returns, in the same step, the id of the
// last event published and the streaming message as of that event (and
// keeps in the subscriber the calls running then): the tab gets every
// later event and none before.
func (p *publisher) subscribe() (*subscriber, int64, *event.Partial) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := newSubscriber(p.lastID, p.runningNow(time.Now()))
	p.subs[s] = struct{}{}
	p.barrier = p.lastID // a delta already in the snapshot is never sent again
	var part *event.Partial
	if p.partial != nil {
		// The builder only appends: the string stays as it is now.
		part = &event.Partial{
			Message: p.partial.message, Text: p.partial.text.String(),
			HTML: p.partial.html.String(), Upto: p.partial.upto, Tail: p.partial.tail,
			Thinking: p.partial.thinking.String(),
		}
	}
	return s, p.lastID, part
}

// sent reports whether every event published so far has been handed to
// the tabs' queues.
func (p *publisher) sent() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.queue) == 0 && !p.sending
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
			p.sending = len(batch) > 0
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
	ev := q.event()
	f := frame{id: q.id, ev: ev}
	if ev != nil {
		data, err := json.Marshal(ev)
		if err != nil {
			p.log.Error("event not encodable", "event", q.ev.Name(), "err", err)
			return
		}
		f.data = data
	}
	for s := range p.subs {
		if q.ev != nil && q.id <= s.after {
			continue // already in its snapshot
		}
		if !s.offer(f) {
			p.log.Warn("event stream fell behind; dropped", "session", p.id)
			delete(p.subs, s)
			close(s.gone)
		}
	}
}

// sseEvent is f as r3labs publishes it: a new event every time (Publish
// mutates it), a numeric id (r3labs parses Last-Event-ID with Atoi), and a
// heartbeat as a comment (an event with neither data nor comment would
// end the stream).
func sseEvent(f frame) *sse.Event {
	if f.ev == nil {
		return &sse.Event{Comment: []byte("heartbeat")}
	}
	return &sse.Event{ID: strconv.AppendInt(nil, f.id, 10), Event: []byte(f.ev.Name()), Data: f.data}
}

// merge folds consecutive deltas of one kind (text or thinking) of one
// message into one frame (with the later id): a tab whose pump fell
// behind catches up with one write instead of one per delta. Other frames
// keep their place.
func merge(batch []frame) []frame {
	out := batch[:0]
	for i := 0; i < len(batch); {
		f := batch[i]
		j := i + 1
		switch d := f.ev.(type) {
		case event.TextDelta:
			var text strings.Builder
			text.WriteString(d.Text)
			for ; j < len(batch); j++ {
				n, ok := batch[j].ev.(event.TextDelta)
				if !ok || n.Message != d.Message {
					break
				}
				text.WriteString(n.Text)
			}
			d.Text = text.String()
			if j > i+1 {
				f = frame{id: batch[j-1].id, ev: d} // encoded when sent
			}
		case event.ThinkingDelta:
			var text strings.Builder
			text.WriteString(d.Text)
			for ; j < len(batch); j++ {
				n, ok := batch[j].ev.(event.ThinkingDelta)
				if !ok || n.Message != d.Message {
					break
				}
				text.WriteString(n.Text)
			}
			d.Text = text.String()
			if j > i+1 {
				f = frame{id: batch[j-1].id, ev: d} // encoded when sent
			}
		}
		out = append(out, f)
		i = j
	}
	return out
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

// ids lists the sessions some tab streams now: the only ones whose files
// the watcher looks at (a publisher stays after its last tab goes).
func (h *Hub) ids() []string {
	var ids []string
	for _, p := range h.all() {
		p.mu.Lock()
		watched := len(p.subs) > 0
		p.mu.Unlock()
		if watched {
			ids = append(ids, p.id)
		}
	}
	return ids
}

// closeWait bounds how long close waits for the tabs' handlers to end. A
// dropped tab's write fails at once (its deadline is set to now), so this
// is only a guard against a hang at shutdown.
const closeWait = 5 * time.Second

// drainWait bounds how long close waits for the tabs to be sent what was
// published before it: a tab that stopped reading holds the shutdown
// this long at most.
const drainWait = time.Second

// close lets every tab be sent what was published before it (the last
// events of a turn that just ended: a `myco run` sharing this server
// waits for its turn.end), then ends every tab's stream, waits for their
// handlers to return and closes r3labs; call it before the HTTP server's
// shutdown, which otherwise waits for the streams. r3labs' Close with a
// client still connected leaks that client's goroutine, hence the wait.
func (h *Hub) close() {
	h.mu.Lock()
	if h.shut {
		h.mu.Unlock()
		return
	}
	h.shut = true
	tabs := make([]*tab, 0, len(h.tabs))
	for _, t := range h.tabs {
		tabs = append(tabs, t)
	}
	h.mu.Unlock()
	h.drain(tabs)
	close(h.closed) // every tab's watcher drops its tab
	for _, p := range h.all() {
		close(p.closing)
	}
	deadline := time.NewTimer(closeWait)
	defer deadline.Stop()
	for _, t := range tabs {
		select {
		case <-t.done:
		case <-deadline.C:
			// Leave r3labs open rather than leak or hang its clients.
			h.log.Warn("event streams still open at shutdown")
			return
		}
	}
	h.sse.Close()
}

// drain waits, for drainWait at most, until every publisher has handed
// its events to the tabs and every tab has been sent them. Only a
// shutdown calls it; it polls, as nothing else waits on these states.
func (h *Hub) drain(tabs []*tab) {
	deadline := time.Now().Add(drainWait)
	for time.Now().Before(deadline) {
		if h.drained(tabs) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	h.log.Warn("event streams not drained at shutdown", "wait", drainWait)
}

func (h *Hub) drained(tabs []*tab) bool {
	for _, p := range h.all() {
		if !p.sent() {
			return false
		}
	}
	for _, t := range tabs {
		if !t.sentAll() {
			return false
		}
	}
	return true
}
