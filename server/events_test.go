package server

import (
	"testing"

	"myco/server/event"
)

// Deltas that pile up while a publisher is busy go out as one event, in
// order; other events keep their place.
func TestPublisherMergesPiledUpDeltas(t *testing.T) {
	p := &publisher{wake: make(chan struct{}, 1)} // not running: everything piles up
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
	for _, ev := range p.queue {
		if d, ok := ev.(event.TextDelta); ok {
			got = append(got, d.Message+":"+d.Text)
		} else {
			got = append(got, ev.Name())
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
