package server_test

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myco/session"
)

// profileStream opens GET /api/events and waits for its first event.
func (ts *testServer) profileStream(t *testing.T) *stream {
	t.Helper()
	resp := ts.do("GET", "/api/events", nil)
	wantStatus(t, resp, 200)
	st := &stream{t: t, events: make(chan sseEvent, 4096)}
	go readEvents(t, resp.Body, st.events)
	nextEvent(t, st.events, "sessions.snapshot")
	return st
}

// sessionEvent waits for an event named name about session id, skipping
// others (a change of last activity, another session's).
func (st *stream) sessionEvent(name, id string, match func(map[string]any) bool) map[string]any {
	st.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-st.events:
			if !ok {
				st.t.Fatalf("stream ended before %s of %s", name, id)
			}
			if ev.name != name {
				continue
			}
			d := data(st.t, ev)
			if d["id"] == id && (match == nil || match(d)) {
				return d
			}
		case <-timeout:
			st.t.Fatalf("no %s of %s", name, id)
		}
	}
}

func titled(title string) func(map[string]any) bool {
	return func(d map[string]any) bool { return d["title"] == title }
}

func TestProfileStreamTellsListingChanges(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	st := ts.profileStream(t)

	s := ts.create("First")
	st.sessionEvent("session.added", s.ID, titled("First"))

	wantStatus(t, ts.do("PATCH", "/api/sessions/"+s.ID, strings.NewReader(`{"title":"Renamed"}`)), 200)
	st.sessionEvent("session.changed", s.ID, titled("Renamed"))

	// Another writer, as the CLI is when no server holds the session: only
	// the poll of the listing can notice it.
	other, err := session.Open(filepath.Join(ts.dir, "session"), session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Update(s.ID, func(d *session.Document) error {
		d.Title, d.UpdatedAt = "From the CLI", time.Now().UTC()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	st.sessionEvent("session.changed", s.ID, titled("From the CLI"))

	wantStatus(t, ts.do("POST", "/api/sessions/"+s.ID+"/archive", nil), 200)
	st.sessionEvent("session.removed", s.ID, func(d map[string]any) bool { return d["archived"] == true })
	wantStatus(t, ts.do("POST", "/api/sessions/"+s.ID+"/restore", nil), 200)
	st.sessionEvent("session.added", s.ID, func(d map[string]any) bool { return d["restored"] == true })
}

// A session waiting for an approval says so in the listing, on the stream
// and in the rows the pages render; once answered it is no longer waiting.
func TestProfileStreamTellsStatus(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	st := cs.profileStream(t)
	s := cs.create("tools")
	st.sessionEvent("session.added", s.ID, nil)
	wantStatus(t, cs.send(s.ID, `[[tool:bash {"command":"echo hi"}]]`), http.StatusAccepted)
	st.sessionEvent("session.changed", s.ID, func(d map[string]any) bool { return d["status"] == "waiting" })

	resp := cs.do("GET", "/partials/sidebar?current="+s.ID, nil)
	wantStatus(t, resp, 200)
	html := readAll(t, resp)
	if !strings.Contains(html, `data-status="waiting"`) || !strings.Contains(html, ">Waiting<") || !strings.Contains(html, `aria-current="page"`) {
		t.Errorf("sidebar rows do not show the wait:\n%s", html)
	}

	approval := pendingApproval(t, cs.testServer, s.ID)
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/approvals/"+approval, strings.NewReader(`{"decision":"deny"}`)), 200)
	st.sessionEvent("session.changed", s.ID, func(d map[string]any) bool { return d["status"] == "idle" })
}

// pendingApproval is the tool_use_id of the approval a session's snapshot
// says waits.
func pendingApproval(t *testing.T, ts *testServer, id string) string {
	t.Helper()
	resp := ts.do("GET", "/api/sessions/"+id+"/events", nil)
	wantStatus(t, resp, 200)
	events := make(chan sseEvent, 16)
	go readEvents(t, resp.Body, events)
	snap := data(t, nextEvent(t, events, "snapshot"))
	aps, _ := snap["approvals"].([]any)
	if len(aps) != 1 {
		t.Fatalf("snapshot approvals %v", snap["approvals"])
	}
	return aps[0].(map[string]any)["tool_use_id"].(string)
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
