package server

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"myco/server/event"
	"myco/server/live"
)

func TestListStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		live   string
		failed bool
		want   string
	}{
		{"not live", "", false, event.ListIdle},
		{"not live, failed", "", true, event.ListFailed},
		{"idle", live.StatusIdle, false, event.ListIdle},
		{"idle after a failure", live.StatusIdle, true, event.ListFailed},
		{"thinking", live.StatusThinking, false, event.ListRunning},
		{"tool", live.StatusTool, false, event.ListRunning},
		{"retrying", live.StatusRetrying, true, event.ListRunning},
		{"compacting", live.StatusCompacting, false, event.ListRunning},
		{"stopping", live.StatusStopping, false, event.ListRunning},
		{"approval", live.StatusApproval, false, event.ListWaiting},
		{"approval after a failure", live.StatusApproval, true, event.ListWaiting},
		{"closed", live.StatusClosed, false, event.ListIdle},
		{"archived", "archived", false, event.ListIdle},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := listStatus(tc.live, tc.failed); got != tc.want {
				t.Errorf("listStatus(%q, %v) = %q, want %q", tc.live, tc.failed, got, tc.want)
			}
		})
	}
}

func TestDiffListing(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	a := listed{title: "A", status: event.ListIdle, updated: t0}
	renamed, busy, touched, archived := a, a, a, a
	renamed.title = "A2"
	busy.status = event.ListWaiting
	touched.updated = t0.Add(time.Second)
	archived.archived = true
	for _, tc := range []struct {
		name      string
		prev, now map[string]listed
		want      []event.Event
	}{
		{"nothing changed", map[string]listed{"a": a}, map[string]listed{"a": a}, nil},
		{"created", map[string]listed{}, map[string]listed{"a": a}, []event.Event{event.SessionAdded{ID: "a", Title: "A", Status: event.ListIdle}}},
		{"renamed", map[string]listed{"a": a}, map[string]listed{"a": renamed},
			[]event.Event{event.SessionChanged{ID: "a", Title: "A2", Status: event.ListIdle, UpdatedAt: t0}}},
		{"waiting", map[string]listed{"a": a}, map[string]listed{"a": busy},
			[]event.Event{event.SessionChanged{ID: "a", Title: "A", Status: event.ListWaiting, UpdatedAt: t0}}},
		{"activity", map[string]listed{"a": a}, map[string]listed{"a": touched},
			[]event.Event{event.SessionChanged{ID: "a", Title: "A", Status: event.ListIdle, UpdatedAt: t0.Add(time.Second)}}},
		{"archived", map[string]listed{"a": a}, map[string]listed{"a": archived}, []event.Event{event.SessionRemoved{ID: "a", Archived: true}}},
		{"restored", map[string]listed{"a": archived}, map[string]listed{"a": a}, []event.Event{event.SessionAdded{ID: "a", Title: "A", Status: event.ListIdle, Restored: true}}},
		{"archived stays archived", map[string]listed{"a": archived}, map[string]listed{"a": archived}, nil},
		{"gone", map[string]listed{"a": a}, map[string]listed{}, []event.Event{event.SessionRemoved{ID: "a"}}},
		{"gone from the archive", map[string]listed{"a": archived}, map[string]listed{}, nil},
		{"in the order of IDs", map[string]listed{"c": a}, map[string]listed{"b": a, "a": a},
			[]event.Event{event.SessionAdded{ID: "a", Title: "A", Status: event.ListIdle}, event.SessionAdded{ID: "b", Title: "A", Status: event.ListIdle}, event.SessionRemoved{ID: "c"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, diffListing(tc.prev, tc.now)); diff != "" {
				t.Errorf("diffListing (-want +got):\n%s", diff)
			}
		})
	}
}
