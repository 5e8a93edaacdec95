package server

import (
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"myco/server/event"
)

// Deltas that pile up while a publisher is busy go out as one event, in
// order; other events keep their place.
func TestPublisherMergesPiledUpDeltas(t *testing.T) {
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
		if d, ok := q.ev.(event.TextDelta); ok {
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

// A tab that connects while a message streams gets the text so far in its
// snapshot and then exactly the rest: no delta is lost, none is applied
// twice, whenever it connects.
func TestSubscribeMidStreamLosesAndRepeatsNothing(t *testing.T) {
	h := newHub(func(string) (event.Snapshot, error) { return event.Snapshot{}, nil }, slog.New(slog.DiscardHandler))
	defer h.close()
	const n = 3000
	p := h.stream("s")
	h.Publish("s", event.MessageStart{Message: "m"})
	connected := make(chan struct{})
	go func() {
		for i := range n {
			if i == n/3 {
				close(connected) // the subscriber below races the rest
			}
			h.Publish("s", event.TextDelta{Message: "m", Text: strconv.Itoa(i) + " "})
		}
		h.Publish("s", event.MessageEnd{Message: "m"})
	}()
	<-connected
	sub, seq, partial := p.subscribe()
	defer p.unsubscribe(sub)
	text := ""
	if partial != nil {
		text = partial.Text
	}
	for done := false; !done; {
		f := <-sub.frames
		if f.id <= seq {
			t.Fatalf("frame %d not after the snapshot's %d", f.id, seq)
		}
		var d event.TextDelta
		body := string(f.data)
		switch {
		case strings.Contains(body, "event: message.end"):
			done = true
		case strings.Contains(body, "event: text.delta"):
			if err := json.Unmarshal([]byte(body[strings.Index(body, "data: ")+6:]), &d); err != nil {
				t.Fatal(err)
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
