package server_test

import (
	"strings"
	"testing"
)

// A tab that (re)connects gets its snapshot; the other tabs of the
// session do not.
func TestSnapshotOnlyForTheConnectingTab(t *testing.T) {
	ts := newTestServer(t)
	s := ts.create("Tabs")
	first := ts.stream(t, s.ID)  // has had its snapshot
	second := ts.stream(t, s.ID) // has had its own
	wantStatus(t, ts.do("PATCH", "/api/sessions/"+s.ID, strings.NewReader(`{"title":"Renamed"}`)), 200)
	for name, st := range map[string]*stream{"first": first, "second": second} {
		got := st.until("title")
		if len(got) != 1 {
			t.Errorf("%s tab got %v before the title, want only the title", name, names(got))
		}
	}
}
