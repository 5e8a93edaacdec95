package server_test

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf16"
)

// A live turn sends the answer's complete blocks as it streams, after the
// deltas they cover, rendered as message.end renders them; a retried
// answer's blocks start over after message.discard.
func TestTurnSendsBlocksAsTheyComplete(t *testing.T) {
	t.Parallel()
	answer := "# Plan\n\nFirst paragraph.\n\n- one\n- two\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n```go\nfunc main() {}\n```\n\nThe end."
	cs := newChatServer(t, "anthropic")
	s := cs.create("blocks")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "[[say:"+answer+"]] [[fault:cutx1]]"), http.StatusAccepted)
	var evs []sseEvent
	for len(evs) == 0 || evs[len(evs)-1].name != "message.end" || data(t, evs[len(evs)-1])["role"] != "assistant" {
		evs = append(evs, st.until("message.end")...)
	}
	var text, html string
	var upto float64
	var tails []string
	discarded := false
	for _, ev := range evs {
		switch ev.name {
		case "message.discard": // the cut attempt: the retry starts over
			text, html, upto, discarded = "", "", 0, true
		case "text.delta":
			text += data(t, ev)["text"].(string)
		case "message.blocks":
			d := data(t, ev)
			// Blocks move upto on; an event that does not carries the
			// last block as it grows (tail) or says it is plain again.
			tail, _ := d["tail"].(string)
			if d["upto"].(float64) < upto || int(d["upto"].(float64)) > len(utf16.Encode([]rune(text))) ||
				(d["upto"].(float64) == upto && d["html"] != "" && upto > 0) {
				t.Fatalf("blocks up to %v after %v, with %d chars of text", d["upto"], upto, len(text))
			}
			upto = d["upto"].(float64)
			html += d["html"].(string)
			tails = append(tails, tail)
		}
	}
	if !discarded {
		t.Error("no message.discard: the first attempt was not cut")
	}
	if text != answer {
		t.Fatalf("streamed %q, want %q", text, answer)
	}
	for _, want := range []string{"<h1>Plan</h1>", "<ul>", "<table>", `<div class="code-block" data-lang="go">`} {
		if !strings.Contains(html, want) {
			t.Errorf("blocks sent while streaming lack %s: %s", want, html)
		}
	}
	// The table and the code block grew in place before they completed.
	live := strings.Join(tails, "")
	for _, want := range []string{"<td>1</td>", `<div class="code-block" data-lang="go">`} {
		if !strings.Contains(live, want) {
			t.Errorf("no live tail showed %s while it streamed", want)
		}
	}
	end := data(t, evs[len(evs)-1])["html"].(string)
	if !strings.Contains(end, html) {
		t.Errorf("message.end does not hold the streamed blocks as they were\nblocks: %s\nend: %s", html, end)
	}
}
