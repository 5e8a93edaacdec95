package server

import (
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"
)

// What the person looked at survives a restart: a look is saved when the
// server shuts down, even before its delayed write; a session changed
// after the last look is news, one changed before it is not, and one never
// looked at is news only when it changed after the tracking began.
func TestSeenSurvivesARestart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), seenFile)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	first := loadSeen(path, clock, log)
	now = now.Add(time.Hour)
	done := first.looking("a")
	if first.unseen("a", now.Add(time.Minute)) {
		t.Fatal("a session shown in a tab is news")
	}
	now = now.Add(time.Minute)
	done()
	first.close()

	second := loadSeen(path, clock, log)
	tests := []struct {
		id      string
		updated time.Time
		want    bool
	}{
		{"a", now.Add(-time.Second), false},                         // changed before the last look
		{"a", now.Add(time.Second), true},                           // changed after it
		{"b", now.Add(-2 * time.Hour), false},                       // never looked at, changed before the tracking began
		{"b", time.Date(2026, 12, 2, 10, 30, 0, 0, time.UTC), true}, // never looked at, changed since
	}
	for _, tc := range tests {
		if got := second.unseen(tc.id, tc.updated); got != tc.want {
			t.Errorf("unseen(%s, %v) = %v, want %v", tc.id, tc.updated, got, tc.want)
		}
	}
}
