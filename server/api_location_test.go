package server_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"myco/session"
)

// GET /api/sessions/{id}/location names the session's file and folder
// (/session): the folder myco started in for a session without its own,
// the archive's file once archived, 404 for an unknown session and 400
// for something that cannot be an ID.
func TestSessionLocation(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	type location struct {
		ID       string `json:"id"`
		Title    string `json:"title"`
		Path     string `json:"path"`
		Cwd      string `json:"cwd"`
		Archived bool   `json:"archived"`
	}
	own := decode[session.Summary](t, ts.do("POST", "/api/sessions", strings.NewReader(`{"title":"here","cwd":"`+ts.dir+`"}`)))
	plain, err := ts.sessions.Create(session.NewSession{Title: "no folder"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		id   string
		want location
	}{
		{"its own folder", own.ID, location{ID: own.ID, Title: "here", Path: filepath.Join(ts.dir, "session", own.ID+".json"), Cwd: ts.dir}},
		{"the folder myco started in", plain.ID, location{ID: plain.ID, Title: "no folder", Path: filepath.Join(ts.dir, "session", plain.ID+".json"), Cwd: "/work"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := ts.do("GET", "/api/sessions/"+tt.id+"/location", nil)
			wantStatus(t, resp, http.StatusOK)
			if got := decode[location](t, resp); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	wantStatus(t, ts.do("POST", "/api/sessions/"+plain.ID+"/archive", nil), http.StatusOK)
	got := decode[location](t, ts.do("GET", "/api/sessions/"+plain.ID+"/location", nil))
	if want := filepath.Join(ts.dir, "session", "archived", plain.ID+".json"); got.Path != want || !got.Archived {
		t.Errorf("archived: %+v, want path %s", got, want)
	}
	wantStatus(t, ts.do("GET", "/api/sessions/0123456789abcdef0123456789abcdef/location", nil), http.StatusNotFound)
	wantStatus(t, ts.do("GET", "/api/sessions/..%2fx/location", nil), http.StatusBadRequest)
}
