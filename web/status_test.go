package web_test

import (
	"testing"

	"myco/web"
)

// TestStatusChip: the chip's words, its running mark and its hover text
// come from one table, for every state the server and the page know.
func TestStatusChip(t *testing.T) {
	tests := []struct {
		status, detail string
		text, title    string
		running        string
	}{
		{"", "", "Idle", "", "false"},
		{"idle", "", "Idle", "", "false"},
		{"thinking", "", "Thinking…", "", "true"},
		{"writing", "", "Writing…", "", "true"},
		{"tool", "bash", "Running · bash", "Running · bash", "true"},
		{"approval", "bash", "Waiting for approval · bash", "Waiting for approval · bash", "true"},
		{"retrying", "retry 1 of 3 in 2s: overloaded", "Retrying · retry 1 of 3 in 2s: overloaded", "Retrying · retry 1 of 3 in 2s: overloaded", "true"},
		{"compacting", "", "Compacting…", "", "true"},
		{"stopping", "", "Stopping…", "", "true"},
		{"archived", "", "Archived", "", "false"},
		{"locked", "", "Open in another process", "", "false"},
		{"closed", "", "Closed", "", "false"},
		{"<b>new</b>", "", "<b>new</b>", "", "true"},
	}
	for _, tt := range tests {
		t.Run(tt.status, func(t *testing.T) {
			d := parseHTML(t, web.StatusChipHTML(tt.status, tt.detail))
			chip := d.Find(`[data-testid="turn-status"]`)
			if chip.Length() != 1 {
				t.Fatalf("no chip in %q", web.StatusChipHTML(tt.status, tt.detail))
			}
			want := tt.status
			if want == "" {
				want = "idle"
			}
			if got, _ := chip.Attr("data-status"); got != want {
				t.Errorf("data-status %q, want %q", got, want)
			}
			if got := chip.Text(); got != tt.text {
				t.Errorf("text %q, want %q", got, tt.text)
			}
			if got, _ := chip.Attr("title"); got != tt.title {
				t.Errorf("title %q, want %q", got, tt.title)
			}
			if got, _ := chip.Attr("data-running"); got != tt.running {
				t.Errorf("data-running %q, want %q", got, tt.running)
			}
		})
	}
}
