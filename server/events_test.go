package server

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"myco/server/event"
)

// Deltas that pile up while a publisher is busy go out as one event, in
// order; other events keep their place.
func TestPublisherMergesPiledUpDeltas(t *testing.T) {
	t.Parallel()
	p := &publisher{wake: make(chan struct{}, 1), subs: map[*subscriber]struct{}{}} // not running: everything piles up
	for _, ev := range []event.Event{
		event.TextDelta{Message: "a", Text: "Hel"},
		event.TextDelta{Message: "a", Text: "lo"},
		event.ToolStart{Tool: "bash"},
		event.TextDelta{Message: "a", Text: " there"},
		event.TextDelta{Message: "b", Text: "!"},
	} {
		p.enqueue(ev)
	}
	var got []string
	for _, q := range p.queue {
		if d, ok := q.event().(event.TextDelta); ok {
			got = append(got, d.Message+":"+d.Text)
		} else {
			got = append(got, q.ev.Name())
		}
	}
	want := []string{"a:Hello", "tool.start", "a: there", "b:!"}
	if len(got) != len(want) {
		t.Fatalf("queue %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("queue %q, want %q", got, want)
			break
		}
	}
}

// A pump that fell behind sends consecutive deltas of one message as one
// event with the later id, encoded afresh (*); anything else keeps its
// place, its id and its encoding.
func TestMergeFoldsConsecutiveDeltasOfOneMessage(t *testing.T) {
	t.Parallel()
	d := func(id int64, msg, text string) frame {
		return frame{id: id, ev: event.TextDelta{Message: msg, Text: text}, data: []byte("x")}
	}
	for _, tc := range []struct {
		name string
		in   []frame
		want []string // id:name or id:message:text
	}{
		{"one delta", []frame{d(1, "a", "x")}, []string{"1:a:x"}},
		{"a run", []frame{d(1, "a", "Hel"), d(2, "a", "lo"), d(3, "a", "!")}, []string{"3:a:Hello!*"}},
		{"another message", []frame{d(1, "a", "x"), d(2, "b", "y"), d(3, "b", "z")}, []string{"1:a:x", "3:b:yz*"}},
		{"an event between", []frame{d(1, "a", "x"), {id: 2, ev: event.ToolStart{Tool: "bash"}}, d(3, "a", "y"), d(4, "a", "z")}, []string{"1:a:x", "2:tool.start", "4:a:yz*"}},
		{"a heartbeat between", []frame{d(1, "a", "x"), {}, d(3, "a", "y")}, []string{"1:a:x", "0:heartbeat", "3:a:y"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range merge(tc.in) {
				switch ev := f.ev.(type) {
				case nil:
					got = append(got, strconv.FormatInt(f.id, 10)+":heartbeat")
				case event.TextDelta:
					s := strconv.FormatInt(f.id, 10) + ":" + ev.Message + ":" + ev.Text
					if f.data == nil {
						s += "*"
					}
					got = append(got, s)
				default:
					got = append(got, strconv.FormatInt(f.id, 10)+":"+ev.Name())
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("merge = %q, want %q", got, tc.want)
			}
		})
	}
}

// A tab that connects while a message streams gets the text so far in its
// snapshot and then exactly the rest: no delta is lost, none is applied
// twice, whenever it connects.
func TestSubscribeMidStreamLosesAndRepeatsNothing(t *testing.T) {
	t.Parallel()
	h := newHub(func(string) (event.Snapshot, error) { return event.Snapshot{}, nil }, slog.New(slog.DiscardHandler))
	defer h.close()
	// What follows the subscription (two thirds of n, and the end) fits
	// in its buffer: a reader slowed by a busy machine is never dropped.
	const n = 1500
	p := h.stream("s")
	h.Publish("s", event.MessageStart{Message: "m"})
	connected, subscribed := make(chan struct{}), make(chan struct{})
	go func() {
		for i := range n {
			if i == n/3 {
				close(connected) // the subscriber below races the rest
			}
			h.Publish("s", event.TextDelta{Message: "m", Text: strconv.Itoa(i) + " "})
		}
		// The end, once subscribed: a subscriber that comes after it has
		// the whole message in the document, and nothing to wait for.
		<-subscribed
		h.Publish("s", event.MessageEnd{Message: "m"})
	}()
	<-connected
	sub, seq, partial := p.subscribe()
	close(subscribed)
	defer p.unsubscribe(sub)
	text := ""
	if partial != nil {
		text = partial.Text
	}
	frames := frameReader{sub: sub}
	for done := false; !done; {
		f, ok := frames.next()
		if !ok {
			t.Fatal("the subscriber was dropped")
		}
		if f.id <= seq {
			t.Fatalf("frame %d not after the snapshot's %d", f.id, seq)
		}
		switch ev := f.ev.(type) {
		case event.MessageEnd:
			done = true
		case event.TextDelta:
			var d event.TextDelta // what the tab gets is the encoded frame
			if err := json.Unmarshal(f.data, &d); err != nil {
				t.Fatal(err)
			}
			if d != ev {
				t.Fatalf("frame %d encodes %+v, want %+v", f.id, d, ev)
			}
			text += d.Text
		}
	}
	var want strings.Builder
	for i := range n {
		want.WriteString(strconv.Itoa(i) + " ")
	}
	if text != want.String() {
		t.Errorf("snapshot + deltas = %d bytes, want %d", len(text), want.Len())
	}
}

// A tab that stops reading (a frozen tab, a sleeping laptop) is dropped
// once it falls a whole buffer behind: its handler returns, its r3labs
// stream goes and its connection closes, while the other tab of the
// session gets every delta, in order, up to turn.end.
func TestTabThatStopsReadingIsDroppedOthersGetEverything(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("streams until a tab falls a whole buffer behind")
	}
	h := newHub(func(string) (event.Snapshot, error) { return event.Snapshot{Status: statusIdle}, nil }, slog.New(slog.DiscardHandler))
	// Only the publisher's drop may end the frozen tab here, not the
	// write deadline that also bounds it in production.
	h.writeTimeout = time.Hour
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = h.serve(w, r, "s")
	}))
	srv.Listener = smallSendBuffer{srv.Listener, new(atomic.Bool)}
	srv.Start()
	defer srv.Close()
	defer h.close() // before srv.Close, which waits for open streams

	// The frozen tab reads its snapshot, then never reads again.
	frozen, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer frozen.Close()
	if err := frozen.(*net.TCPConn).SetReadBuffer(4096); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(frozen, "GET / HTTP/1.1\r\nHost: myco\r\nAccept: text/event-stream\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if err := frozen.SetReadDeadline(time.Now().Add(streamTestTimeout)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(frozen)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("frozen tab: no snapshot: %v", err)
		}
		if line == "event: snapshot\n" {
			break
		}
	}

	var frozenTab *tab
	h.mu.Lock()
	for _, t := range h.tabs {
		frozenTab = t // the only one so far
	}
	h.mu.Unlock()

	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan sseLine, 64)
	go readSSE(resp.Body, events)
	next := func() sseLine {
		t.Helper()
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("the reading tab's stream ended")
			}
			return ev
		case <-time.After(streamTestTimeout):
			t.Fatal("the reading tab got nothing: the frozen tab stalls it")
		}
		return sseLine{}
	}
	if ev := next(); ev.name != "snapshot" {
		t.Fatalf("first event %q, want snapshot", ev.name)
	}

	p := h.stream("s")
	subs := func() int {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.subs)
	}
	if n := subs(); n != 2 {
		t.Fatalf("%d tabs subscribed, want 2", n)
	}
	// Batches the reading tab takes in whole before the next: it never
	// falls behind, the frozen tab falls further behind with each.
	pad := strings.Repeat("x", 90)
	var want, got strings.Builder
	h.Publish("s", event.MessageStart{Message: "m"})
	if ev := next(); ev.name != "message.start" {
		t.Fatalf("got %q, want message.start", ev.name)
	}
	for batch := 0; subs() == 2; batch++ {
		if batch == 2000 {
			t.Fatalf("the frozen tab is still subscribed after %d bytes", want.Len())
		}
		for i := range 100 {
			text := strconv.Itoa(batch*100+i) + pad + " "
			want.WriteString(text)
			h.Publish("s", event.TextDelta{Message: "m", Text: text})
		}
		for got.Len() < want.Len() {
			ev := next()
			if ev.name != "text.delta" {
				t.Fatalf("got %q mid-message", ev.name)
			}
			var d event.TextDelta
			if err := json.Unmarshal([]byte(ev.data), &d); err != nil {
				t.Fatal(err)
			}
			got.WriteString(d.Text)
		}
	}
	t.Logf("the frozen tab was dropped after %d bytes", want.Len())
	h.Publish("s", event.MessageEnd{Message: "m"})
	h.Publish("s", event.TurnEnd{})
	for ev := next(); ev.name != "turn.end"; ev = next() {
		if ev.name != "message.end" {
			t.Fatalf("got %q after the last delta", ev.name)
		}
	}
	if got.String() != want.String() {
		t.Fatalf("the reading tab got %d bytes of text, want %d", got.Len(), want.Len())
	}

	// The frozen tab's handler returns, its r3labs stream removed, and its
	// connection closes: what it had not read, then EOF.
	select {
	case <-frozenTab.done:
	case <-time.After(streamTestTimeout):
		t.Fatal("the frozen tab's handler never returned")
	}
	if h.sse.StreamExists(frozenTab.stream) {
		t.Errorf("the frozen tab's r3labs stream %q is still there", frozenTab.stream)
	}
	if after := tabStreams(h); len(after) != 1 || after[0] == frozenTab.stream || !h.sse.StreamExists(after[0]) {
		t.Errorf("tabs left %q, want only the reading one, with its stream", after)
	}
	if _, err := io.Copy(io.Discard, br); err != nil {
		t.Fatalf("frozen tab's connection not closed: %v", err)
	}
}

// streamTestTimeout only turns a hang into a failure.
const streamTestTimeout = 30 * time.Second

func tabStreams(h *Hub) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var ids []string
	for id := range h.tabs {
		ids = append(ids, id)
	}
	return ids
}

// smallSendBuffer gives the first connection it accepts a small socket
// send buffer, so that writes to a client that stops reading block soon.
// Only the first: with a small buffer and delayed ACKs, a client that
// reads gets its data in 40 ms steps.
type smallSendBuffer struct {
	net.Listener
	accepted *atomic.Bool
}

func (l smallSendBuffer) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok && !l.accepted.Swap(true) {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

type sseLine struct{ name, data string }

// readSSE parses an event stream into out until it ends.
func readSSE(r io.Reader, out chan<- sseLine) {
	defer close(out)
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	var ev sseLine
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.name != "" {
				out <- ev
			}
			ev = sseLine{}
		case strings.HasPrefix(line, "event: "):
			ev.name = line[7:]
		case strings.HasPrefix(line, "data: "):
			ev.data += line[6:]
		}
	}
}

// frameReader reads a subscriber's queue one frame at a time, as the
// tab's pump would take it in batches.
type frameReader struct {
	sub *subscriber
	buf []frame
}

// next waits for the next frame; false when the subscriber is dropped.
func (r *frameReader) next() (frame, bool) {
	for len(r.buf) == 0 {
		select {
		case <-r.sub.gone:
			return frame{}, false
		case <-r.sub.ready:
		}
		r.buf = r.sub.take(nil)
	}
	f := r.buf[0]
	r.buf = r.buf[1:]
	return f, true
}

// A tab's queue holds up to subscriberBuffer frames, in order, and then
// refuses (the publisher drops the tab); the pump's two batches then
// alternate without allocating.
func TestSubscriberQueueIsBoundedAndReused(t *testing.T) {
	// Not parallel: AllocsPerRun counts the whole process.
	s := newSubscriber(0, nil)
	for i := range subscriberBuffer {
		if !s.offer(frame{id: int64(i + 1)}) {
			t.Fatalf("frame %d refused; the queue holds %d", i+1, subscriberBuffer)
		}
	}
	if s.offer(frame{id: subscriberBuffer + 1}) {
		t.Fatal("a full queue took one more frame")
	}
	batch := s.take(nil)
	if len(batch) != subscriberBuffer || batch[0].id != 1 || batch[len(batch)-1].id != subscriberBuffer {
		t.Fatalf("took %d frames (%v … %v), want 1 … %d", len(batch), batch[0], batch[len(batch)-1], subscriberBuffer)
	}
	var spare []frame
	steady := testing.AllocsPerRun(100, func() {
		for i := range 8 {
			s.offer(frame{id: int64(i)})
		}
		<-s.ready
		spare = s.take(spare)
	})
	if steady != 0 {
		t.Errorf("a steady stream allocates %.0f times per batch, want 0", steady)
	}
}

// An open tab that is not behind costs a few hundred bytes, not a
// buffer's worth: 20 tabs streaming at once held 2 MB in channels and
// batches sized for the worst backlog (issue 21's peak memory).
func TestIdleSubscriberCostsLittle(t *testing.T) {
	p := &publisher{wake: make(chan struct{}, 1), subs: map[*subscriber]struct{}{}}
	const tabs = 100
	subs := make([]*subscriber, 0, tabs)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range tabs {
		s, _, _ := p.subscribe()
		subs = append(subs, s)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / tabs; per > 2048 {
		t.Errorf("a subscriber costs %d bytes, want under 2 KB", per)
	}
	runtime.KeepAlive(subs)
}

// A shutdown lets every tab get what was published before it: a turn's
// last events reach a `myco run` that shares the server whose owner is
// stopping it, rather than its stream ending before turn.end.
func TestCloseDeliversWhatWasPublished(t *testing.T) {
	t.Parallel()
	for round := range 20 {
		h := newHub(func(string) (event.Snapshot, error) { return event.Snapshot{Status: statusIdle}, nil }, slog.New(slog.DiscardHandler))
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_ = h.serve(w, r, "s")
		}))
		resp, err := http.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		events := make(chan sseLine, 1024)
		go readSSE(resp.Body, events)
		if ev := <-events; ev.name != "snapshot" {
			t.Fatalf("first event %q, want snapshot", ev.name)
		}
		h.Publish("s", event.MessageStart{Message: "m"})
		for i := range 200 {
			h.Publish("s", event.TextDelta{Message: "m", Text: strconv.Itoa(i) + " "})
		}
		h.Publish("s", event.MessageEnd{Message: "m"})
		h.Publish("s", event.TurnEnd{Turn: "t"})
		h.close()
		var last string
		for ev := range events {
			last = ev.name
		}
		resp.Body.Close()
		srv.Close()
		if last != "turn.end" {
			t.Fatalf("round %d: the stream ended after %q, before turn.end", round, last)
		}
	}
}
