package server_test

import (
	"strings"
	"testing"
)

// A tab that (re)connects gets its snapshot; the other tabs of the
// session do not.
func TestSnapshotOnlyForTheConnectingTab(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	s := ts.create("Tabs")
	first := ts.stream(t, s.ID)  // has had its snapshot
	second := ts.stream(t, s.ID) // has had its own
	wantStatus(t, ts.do("PATCH", "/api/sessions/"+s.ID, strings.NewReader(`{"title":"Renamed"}`)), 200)
	for name, st := range map[string]*stream{"first": first, "second": second} {
		// The watcher's first look may send the panel (watch.go) before
		// the title: only another snapshot would be wrong.
		for _, ev := range st.until("title") {
			if ev.name == "snapshot" {
				t.Errorf("%s tab got a second snapshot", name)
			}
		}
	}
}
