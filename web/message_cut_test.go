package web

import (
	"strings"
	"testing"
	"unicode/utf8"

	"myco/session"
)

// A text past maxShownText is shown cut, at a character, with how much
// the page leaves out; the agent's is rendered from the cut text alone.
func TestHugeTextIsShownCut(t *testing.T) {
	huge := strings.Repeat("é", maxShownText) // 2 MiB: é is two bytes
	for _, role := range []string{"user", "assistant"} {
		m := session.Message{ID: "m", Role: role, Human: role == "user", Content: []session.Block{{Type: session.BlockText, Text: huge}}}
		b := NewMessageView("s", m).Blocks[0]
		shown := b.Text + b.HTML
		if len(shown) > maxShownText+1024 || !utf8.ValidString(b.Text) || b.NotShown != len(huge)-maxShownText {
			t.Errorf("%s: shown %d bytes, %d left out; want at most %d shown and the rest left out", role, len(shown), b.NotShown, maxShownText)
		}
		if !strings.Contains(b.NotShownText(), "1.0 MB more") {
			t.Errorf("%s: note %q", role, b.NotShownText())
		}
	}
	small := NewMessageView("s", session.Message{ID: "m", Role: "user", Human: true, Content: []session.Block{{Type: session.BlockText, Text: "hi"}}}).Blocks[0]
	if small.NotShown != 0 || small.Text != "hi" {
		t.Errorf("a short text: %+v", small)
	}
}
