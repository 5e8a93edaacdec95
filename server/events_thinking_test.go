package server

import (
	"strconv"
	"strings"
	"testing"

	"myco/server/event"
)

// Thinking deltas pile up and merge as text deltas do, each kind with its
// own kind and message only, in the publisher's queue and in a pump that
// fell behind.
func TestThinkingDeltasMerge(t *testing.T) {
	t.Parallel()
	p := &publisher{wake: make(chan struct{}, 1), subs: map[*subscriber]struct{}{}} // not running: everything piles up
	in := []event.Event{
		event.ThinkingDelta{Message: "a", Text: "Let me "},
		event.ThinkingDelta{Message: "a", Text: "see"},
		event.TextDelta{Message: "a", Text: "It "},
		event.TextDelta{Message: "a", Text: "is"},
		event.ThinkingDelta{Message: "b", Text: "hm"},
	}
	for _, ev := range in {
		p.enqueue(ev)
	}
	describe := func(ev event.Event) string {
		switch d := ev.(type) {
		case event.ThinkingDelta:
			return "think " + d.Message + ":" + d.Text
		case event.TextDelta:
			return "text " + d.Message + ":" + d.Text
		}
		return ev.Name()
	}
	var got []string
	for _, q := range p.queue {
		got = append(got, describe(q.event()))
	}
	want := "think a:Let me see|text a:It is|think b:hm"
	if strings.Join(got, "|") != want {
		t.Errorf("queue %q, want %q", got, want)
	}

	var frames []frame
	for i, ev := range in {
		frames = append(frames, frame{id: int64(i + 1), ev: ev, data: []byte("x")})
	}
	got = got[:0]
	for _, f := range merge(frames) {
		got = append(got, strconv.FormatInt(f.id, 10)+" "+describe(f.ev))
	}
	if want := "2 think a:Let me see|4 text a:It is|5 think b:hm"; strings.Join(got, "|") != want {
		t.Errorf("merge = %q, want %q", got, want)
	}
}

// A tab that connects mid-thought gets the thinking so far in its
// snapshot's partial, and only what follows as events.
func TestSnapshotCarriesStreamingThinking(t *testing.T) {
	t.Parallel()
	p := &publisher{wake: make(chan struct{}, 1), subs: map[*subscriber]struct{}{}}
	p.enqueue(event.MessageStart{Message: "m", Role: "assistant"})
	p.enqueue(event.ThinkingDelta{Message: "m", Text: "First, "})
	p.enqueue(event.ThinkingDelta{Message: "m", Text: "the folder"})
	sub, _, part := p.subscribe()
	defer p.unsubscribe(sub)
	if part == nil || part.Message != "m" || part.Thinking != "First, the folder" || part.Text != "" {
		t.Fatalf("partial = %+v, want the thinking so far", part)
	}
	p.enqueue(event.ThinkingDelta{Message: "m", Text: " next"})
	if n := len(p.queue); n != 3 {
		t.Fatalf("%d queued, want the delta after the snapshot apart from those in it", n)
	}
	if d := p.queue[2].event().(event.ThinkingDelta); d.Text != " next" {
		t.Errorf("after the snapshot the tab gets %q", d.Text)
	}
	p.enqueue(event.MessageEnd{Message: "m"})
	if _, _, part := p.subscribe(); part != nil {
		t.Errorf("partial after message.end = %+v", part)
	}
}
