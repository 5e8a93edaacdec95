package server

import (
	"runtime"
	"testing"

	"myco/server/event"
)

// TestMergedDeltasCostTheirLength: 2,000 deltas that pile up cost about
// their own bytes, not a copy of all merged so far per delta (which was
// 2,000²/2 × 20 bytes, 40 MB, for these 40 KB). What merges with what:
// TestPublisherMergesPiledUpDeltas.
func TestMergedDeltasCostTheirLength(t *testing.T) {
	p := newTestPublisher()
	delta := event.TextDelta{Message: "m1", Text: "twenty bytes of text"}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 2000 {
		p.enqueue(delta)
	}
	runtime.ReadMemStats(&after)
	if len(p.queue) != 1 || len(p.queue[0].event().(event.TextDelta).Text) != 2000*len(delta.Text) {
		t.Fatalf("queue of %d, want the 2,000 deltas merged into one", len(p.queue))
	}
	// 4 MB: ten times this test's own need, and a tenth of the square.
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("merging 40 KB of deltas allocated %d bytes", got)
	}
}
