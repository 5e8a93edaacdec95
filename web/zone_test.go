package web_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"myco/session"
	"myco/web"
)

// TestTimesInReaderZone checks that a message's time is written in the
// reader's zone when the render knows it, in the form the tab's script
// writes (so it has nothing to rewrite), and named UTC otherwise.
func TestTimesInReaderZone(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no zone data:", err)
	}
	m := session.Message{ID: "m1", Role: "user", Human: true, At: time.Date(2026, 12, 1, 20, 8, 0, 0, time.UTC),
		Content: []session.Block{{Type: "text", Text: "hi"}}}
	tests := []struct {
		name string
		ctx  context.Context
		want string
	}{
		{"zone known", web.WithZone(context.Background(), berlin), "2026-12-01 21:08"},
		{"zone unknown", context.Background(), "2026-12-01 20:08 UTC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := web.Message(web.NewMessageView("s1", m)).Render(tt.ctx, &buf); err != nil {
				t.Fatal(err)
			}
			if got := parseHTML(t, buf.String()).Find("time").Text(); got != tt.want {
				t.Errorf("time %q, want %q", got, tt.want)
			}
		})
	}
}
