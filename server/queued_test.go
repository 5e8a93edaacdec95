package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// The queue is rendered by the server alone: the queued event, a
// snapshot and the page carry the same items.
func TestQueueIsRenderedByTheServer(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("queue html")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, `[[tool:bash {"command":"echo hold"}]]`), http.StatusAccepted)
	st.until("tool.approval")
	resp := cs.post("POST", s.ID, "/messages", `{"text":"then <run> the tests","queue":true}`)
	wantStatus(t, resp, http.StatusAccepted)
	id := decode[map[string]string](t, resp)["queued"]
	item := `data-queued-id="` + id + `"`

	evs := st.until("queued")
	if html, _ := data(t, evs[len(evs)-1])["html"].(string); !strings.Contains(html, item) || !strings.Contains(html, "then &lt;run&gt; the tests") {
		t.Errorf("queued event html %q, want the item, its text escaped", html)
	}
	second := make(chan sseEvent, 64)
	events := cs.do("GET", "/api/sessions/"+s.ID+"/events", nil)
	go readEvents(t, events.Body, second)
	if html, _ := data(t, nextEvent(t, second, "snapshot"))["queued_html"].(string); !strings.Contains(html, item) {
		t.Errorf("snapshot queued_html %q, want the item", html)
	}
	page := cs.do("GET", "/s/"+s.ID, nil)
	wantStatus(t, page, http.StatusOK)
	body, _ := io.ReadAll(page.Body)
	if !strings.Contains(string(body), item) {
		t.Error("the page does not list the queued message")
	}
	wantStatus(t, cs.post("POST", s.ID, "/stop", ""), http.StatusOK)
	st.until("turn.end")
}
