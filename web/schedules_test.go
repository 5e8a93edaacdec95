package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"myco/schedule"
)

// A row says when the schedule runs next (in the zone given), how its
// last run ended with a link to that run's session, and where answers go.
func TestScheduleRows(t *testing.T) {
	loc := time.FixedZone("X", 2*3600)
	cost := 0.0123
	since := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC) // 08:00 in X
	list := []schedule.Schedule{
		{ID: "s1", Name: "Morning", When: "0 9 * * *", Prompt: "check\nthe build", Session: "new", DeliverTo: "inbox-1234567890", Enabled: true, Since: since,
			Runs: []schedule.Run{{ID: "r1", Outcome: schedule.OutcomeSkipped, Detail: "a turn was running in the session", Session: "run-session", StartedAt: since,
				Usage: schedule.Tokens{Input: 1000, CacheRead: 234, Output: 56}, Cost: &cost}}},
		{ID: "s2", Name: "Off", When: "@every 1h", Prompt: "x", Session: "work", Enabled: false, Since: since},
	}
	// A session with a title is named by it; one without, by its ID.
	titles := map[string]string{"work": "Work log"}
	v := NewSchedulesView("p", list, loc, true, func(id string) string { return titles[id] })
	on, off := v.Rows[0], v.Rows[1]
	if want := time.Date(2026, 12, 2, 9, 0, 0, 0, loc); !on.Next.Equal(want) {
		t.Errorf("next %v, want %v", on.Next, want)
	}
	if !strings.HasPrefix(on.Prompt, "check") || on.DeliverURL != "/s/inbox-1234567890" || on.DeliverTo != "session inbox-12" || on.Target != "a new session each run" {
		t.Errorf("row %+v", on)
	}
	if on.Last == nil || on.Last.Summary != "skipped: a turn was running in the session" || on.Last.SessionURL != "/s/run-session" || on.Last.Usage != "1,234 in · 56 out · $0.0123" {
		t.Errorf("last run %+v", on.Last)
	}
	if !off.Next.IsZero() || off.TargetURL != "/s/work" || off.Target != "“Work log”" || off.Last != nil {
		t.Errorf("disabled row %+v", off)
	}
	var b strings.Builder
	if err := ScheduleRows(v).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{`data-schedule-id="s1"`, `data-enabled="false"`, `href="/s/run-session"`, `data-outcome="skipped"`, `>Enable`, `>Disable`} {
		if !strings.Contains(html, want) {
			t.Errorf("rows lack %s", want)
		}
	}
}
