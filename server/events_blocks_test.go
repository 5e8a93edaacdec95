package server

import (
	"log/slog"
	"strings"
	"testing"
	"unicode/utf16"

	"myco/server/event"
	"myco/web"
)

// A tab that (re)connects mid-answer gets the blocks rendered so far in its
// snapshot's partial, with where they end in the text, and after that only
// the later deltas and blocks: together, every block once and the text
// once.
func TestSnapshotCarriesRenderedBlocks(t *testing.T) {
	t.Parallel()
	h := newHub(func(string) (event.Snapshot, error) { return event.Snapshot{}, nil }, slog.New(slog.DiscardHandler))
	defer h.close()
	p := h.stream("s")
	answer := "# Títle 🍄\n\nFirst paragraph.\n\n- a\n- b\n\nSecond paragraph,\nstill going.\n\n| x |\n| - |\n| 1 |\n\nThe end.\n"
	r := web.NewStreamRenderer()
	var allHTML strings.Builder
	publish := func(text string) {
		for len(text) > 0 {
			n := min(4, len(text))
			h.Publish("s", event.TextDelta{Message: "m", Text: text[:n]})
			if html, ok := r.Write(text[:n]); ok {
				allHTML.WriteString(html)
				h.Publish("s", event.MessageBlocks{Message: "m", HTML: html, Upto: r.Upto()})
			}
			text = text[n:]
		}
	}
	h.Publish("s", event.MessageStart{Message: "m", Role: "assistant"})
	half := strings.Index(answer, "still") + 3 // the list ended, a paragraph began
	publish(answer[:half])

	sub, seq, part := p.subscribe()
	defer p.unsubscribe(sub)
	if part == nil || part.HTML == "" || part.Upto == 0 {
		t.Fatalf("partial = %+v, want the blocks rendered so far", part)
	}
	if !strings.Contains(part.HTML, "<h1>") || !strings.Contains(part.HTML, "<ul>") {
		t.Errorf("partial HTML %q lacks the heading or the list", part.HTML)
	}
	// The tab cuts its text at upto, counted in UTF-16 as JavaScript does.
	units := utf16.Encode([]rune(part.Text))
	if tail := string(utf16.Decode(units[part.Upto:])); tail != "Second paragraph,\nsti" {
		t.Errorf("tail after upto %d = %q, want the paragraph begun", part.Upto, tail)
	}

	publish(answer[half:])
	h.Publish("s", event.MessageEnd{Message: "m"})
	html, text, upto := part.HTML, part.Text, part.Upto
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
		case event.TextDelta:
			text += ev.Text
		case event.MessageBlocks:
			html += ev.HTML
			upto = ev.Upto
		case event.MessageEnd:
			done = true
		}
	}
	if text != answer {
		t.Errorf("text = %q, want %q", text, answer)
	}
	if html != allHTML.String() {
		t.Errorf("blocks = %q, want %q", html, allHTML.String())
	}
	if upto != r.Upto() {
		t.Errorf("upto = %d, want %d", upto, r.Upto())
	}
}
