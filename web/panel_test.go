package web

import (
	"strings"
	"testing"

	"myco/session"
)

func TestContextLevel(t *testing.T) {
	tests := []struct {
		used, threshold int
		want            string
	}{
		{0, 0, ""}, {9000, 0, ""}, {69, 100, ""}, {70, 100, "warn"}, {89, 100, "warn"}, {90, 100, "full"}, {150, 100, "full"},
	}
	for _, tt := range tests {
		if got := (ContextInfo{Used: tt.used, Threshold: tt.threshold}).Level(); got != tt.want {
			t.Errorf("Level(%d of %d) = %q, want %q", tt.used, tt.threshold, got, tt.want)
		}
	}
}

// After a compaction, the figures of carried messages are the old
// thread's: the gauge estimates the new thread instead, and is not 0.
func TestContextInfoAfterCompaction(t *testing.T) {
	big := &session.Usage{InputTokens: 90000}
	carried := session.Message{Role: "assistant", Usage: big, Content: []session.Block{{Type: session.BlockText, Text: strings.Repeat("x", 400)}}}
	from := 0
	doc := &session.Document{Threads: []session.Thread{
		{Messages: []session.Message{carried}},
		{CompactedFrom: &from, Summary: strings.Repeat("s", 800), Carried: 1, Messages: []session.Message{carried}},
	}}
	got := contextInfo(doc, ContextInfo{Threshold: 100000}).Used
	if got <= 0 || got >= 90000 {
		t.Errorf("context after compaction = %d, want the new thread's estimate (about 300)", got)
	}
	doc.Threads[1].Messages = append(doc.Threads[1].Messages, session.Message{Role: "assistant", Usage: &session.Usage{InputTokens: 500}})
	if got := contextInfo(doc, ContextInfo{}).Used; got != 500 {
		t.Errorf("context after the first answer = %d, want 500", got)
	}
}

// The panel event's HTML has the parts the page swaps, editable or not.
func TestRenderPanel(t *testing.T) {
	doc := &session.Document{ID: "abc", Scratchpad: "<b>x</b>", Links: []session.Link{{URL: "https://go.dev", Title: "Go"}}}
	for _, ro := range []bool{false, true} {
		html, err := RenderPanel(doc, ro, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []string{`data-panel-part="facts"`, `data-panel-part="links"`, `data-panel-part="scratchpad"`, `href="https://go.dev"`, "&lt;b&gt;x&lt;/b&gt;"} {
			if !strings.Contains(html, w) {
				t.Errorf("readOnly=%v: panel lacks %q", ro, w)
			}
		}
		if got := strings.Contains(html, "<textarea"); got == ro {
			t.Errorf("readOnly=%v: textarea shown %v", ro, got)
		}
	}
}

// Messages carried into a successor thread are shown once, in the
// earlier thread that holds them; the latest thread marks their place.
func TestCarriedMessagesShownOnce(t *testing.T) {
	msg := func(id, role, text string) session.Message {
		return session.Message{ID: id, Role: role, Content: []session.Block{{Type: session.BlockText, Text: text}}}
	}
	a, b, c, d := msg("a", "user", "one"), msg("b", "assistant", "two"), msg("c", "user", "three"), msg("d", "assistant", "four")
	from := 0
	tests := []struct {
		name        string
		pred        []session.Message
		carried     int
		wantCarried int
		wantRecent  string
	}{
		{"tail carried", []session.Message{a, b, c}, 2, 2, "d"},
		{"all carried", []session.Message{b, c}, 2, 2, "d"},
		{"nothing carried", []session.Message{a, b, c}, 0, 0, "b,c,d"},
		// Not the predecessor's tail: shown where stored, in both.
		{"not the tail", []session.Message{a, b, c, msg("x", "assistant", "late")}, 2, 0, "b,c,d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := session.Thread{CompactedFrom: &from, Summary: "s", Carried: tt.carried, Messages: []session.Message{b, c, d}}
			doc := &session.Document{ID: "abc", Threads: []session.Thread{{Messages: tt.pred}, next}}
			v := NewSessionView(doc, SessionViewOptions{})
			var ids []string
			for _, m := range v.Latest.Recent.Messages {
				ids = append(ids, m.ID)
			}
			if got := strings.Join(ids, ","); got != tt.wantRecent {
				t.Errorf("latest thread shows %q, want %q", got, tt.wantRecent)
			}
			if v.Latest.Carried != tt.wantCarried || v.Earlier[0].CarriedInto != (tt.wantCarried > 0) {
				t.Errorf("carried %d (into earlier: %v), want %d", v.Latest.Carried, v.Earlier[0].CarriedInto, tt.wantCarried)
			}
			if v.Latest.Recent.HasEarlier() {
				t.Errorf("the latest thread offers to load earlier messages: the carried ones are in the earlier thread")
			}
		})
	}
}
