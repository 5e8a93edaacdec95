package web_test

import (
	"strings"
	"testing"

	"myco/web"
)

// TestContextGauge: the gauge's figures, colour and words come from one
// rule, for the page and for the context event alike.
func TestContextGauge(t *testing.T) {
	tests := []struct {
		name      string
		c         web.ContextInfo
		class     string // the colour class, "" for none
		auto      string
		label     string
		offHidden bool
		off       string
	}{
		{"low", web.ContextInfo{Used: 1000, Threshold: 10000}, "", "on", "1,000 of 10,000 tokens before it compacts", true, ""},
		{"70% warns", web.ContextInfo{Used: 7000, Threshold: 10000}, "context-warn", "on", "7,000 of 10,000", true, ""},
		{"90% is full", web.ContextInfo{Used: 9000, Threshold: 10000}, "context-full", "on", "9,000 of 10,000", true, ""},
		{"no threshold", web.ContextInfo{Used: 3427}, "", "off", "3,427 tokens used", false,
			"Automatic compaction is off: auto_compact_at is 0 for this model. You can still compact by hand."},
		{"turned off live", web.ContextInfo{Used: 600, Threshold: 500, OffReason: "the last compaction left it over the threshold"}, "context-full", "off",
			"600 of 500", false, "Automatic compaction is off: the last compaction left it over the threshold."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			html, err := web.ContextGaugeHTML("s1", tt.c)
			if err != nil {
				t.Fatal(err)
			}
			doc := parseHTML(t, html)
			g := doc.Find(`[data-testid="context-gauge"]`)
			if tt.class != "" && !g.HasClass(tt.class) || tt.class == "" && (g.HasClass("context-warn") || g.HasClass("context-full")) {
				t.Errorf("class %q, want %q", g.AttrOr("class", ""), tt.class)
			}
			if got := g.AttrOr("data-auto", ""); got != tt.auto {
				t.Errorf("data-auto %q, want %q", got, tt.auto)
			}
			if got := g.Find("[data-context-label]").Text(); !strings.Contains(got, tt.label) {
				t.Errorf("label %q, want %q in it", got, tt.label)
			}
			off := g.Find("[data-context-off]")
			if _, hidden := off.Attr("hidden"); hidden != tt.offHidden {
				t.Errorf("off line hidden %v, want %v", hidden, tt.offHidden)
			}
			if got := off.Text(); !strings.Contains(got, tt.off) {
				t.Errorf("off line %q, want %q in it", got, tt.off)
			}
			if g.Find(`[data-testid="compact-button"]`).AttrOr("data-url", "") != "/api/sessions/s1/compact" {
				t.Error("no Compact button for a live session")
			}
		})
	}
}
