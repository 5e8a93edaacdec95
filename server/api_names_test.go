package server_test

import (
	"net/http"
	"strings"
	"testing"

	"myco/session"
)

// A name given to a session is taken from the one that had it, even while
// that one is open here (its live session holds the writer), without
// changing its last activity; GET /api/resolve finds a session by name,
// ID start or @last; a name that could be an ID start is refused.
func TestSessionNames(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	resp := cs.do("POST", "/api/sessions", strings.NewReader(`{"name":"explore"}`))
	wantStatus(t, resp, http.StatusCreated)
	first := decode[session.Summary](t, resp)
	if first.Name != "explore" {
		t.Fatalf("created %+v", first)
	}
	st := cs.stream(t, first.ID)
	wantStatus(t, cs.send(first.ID, "[[say:hi]]"), http.StatusAccepted)
	st.until("turn.end")
	before := decode[session.Document](t, cs.do("GET", "/api/sessions/"+first.ID, nil))

	resp = cs.do("POST", "/api/sessions", strings.NewReader(`{"name":"explore"}`))
	wantStatus(t, resp, http.StatusCreated)
	second := decode[session.Summary](t, resp)
	after := decode[session.Document](t, cs.do("GET", "/api/sessions/"+first.ID, nil))
	if after.Name != "" || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("the first session after the name moved: name %q, updated_at %v (was %v)", after.Name, after.UpdatedAt, before.UpdatedAt)
	}
	resolve := func(which string, want int) string {
		t.Helper()
		resp := cs.do("GET", "/api/resolve?id="+which, nil)
		wantStatus(t, resp, want)
		if want != http.StatusOK {
			return ""
		}
		return decode[map[string]string](t, resp)["id"]
	}
	if got := resolve("explore", http.StatusOK); got != second.ID {
		t.Errorf("explore is %s, want %s", got, second.ID)
	}
	if got := resolve(first.ID[:len(first.ID)-3], http.StatusOK); got != first.ID {
		t.Errorf("an ID start resolves to %s", got)
	}
	if got := resolve("@last", http.StatusOK); got != second.ID {
		t.Errorf("@last is %s, want %s", got, second.ID)
	}
	resolve("nosuch", http.StatusNotFound)
	resolve("0", http.StatusConflict) // every ID of this year starts with 0

	wantStatus(t, cs.do("PATCH", "/api/sessions/"+first.ID, strings.NewReader(`{"name":"explore"}`)), http.StatusOK)
	if got := resolve("explore", http.StatusOK); got != first.ID {
		t.Errorf("after the PATCH explore is %s, want %s", got, first.ID)
	}
	sums := decode[[]session.Summary](t, cs.do("GET", "/api/sessions", nil))
	for _, s := range sums {
		if want := map[string]string{first.ID: "explore"}[s.ID]; s.Name != want {
			t.Errorf("listing: %s is named %q, want %q", s.ID, s.Name, want)
		}
	}
	wantStatus(t, cs.do("PATCH", "/api/sessions/"+first.ID, strings.NewReader(`{"name":""}`)), http.StatusOK)
	resolve("explore", http.StatusNotFound)
	for _, bad := range []string{`{"name":"cafe"}`, `{"name":"a b"}`, `{"name":"@last"}`} {
		wantStatus(t, cs.do("POST", "/api/sessions", strings.NewReader(bad)), http.StatusBadRequest)
		wantStatus(t, cs.do("PATCH", "/api/sessions/"+first.ID, strings.NewReader(bad)), http.StatusBadRequest)
	}
}
