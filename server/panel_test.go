package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"myco/session"
)

// lastPanel is the HTML of the last panel event among evs.
func lastPanel(t *testing.T, evs []sseEvent) string {
	t.Helper()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].name == "panel" {
			html, _ := data(t, evs[i])["html"].(string)
			return html
		}
	}
	t.Fatalf("no panel event in %v", names(evs))
	return ""
}

// The side panel follows every change to what it shows, rendered as the
// page renders it: a PATCH, the agent's session_meta, a turn's counts.
func TestPanelEventFollowsChanges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(cs *chatServer, id string) *http.Response
		status int
		want   []string
	}{
		{
			name: "patch",
			change: func(cs *chatServer, id string) *http.Response {
				return cs.do("PATCH", "/api/sessions/"+id, strings.NewReader(`{"links":[{"url":"https://go.dev/x","title":"Go X"}],"scratchpad":"note & more"}`))
			},
			status: http.StatusOK,
			want:   []string{`href="https://go.dev/x"`, "Go X", "note &amp; more", `data-panel-part="facts"`},
		},
		{
			name: "session_meta",
			change: func(cs *chatServer, id string) *http.Response {
				return cs.send(id, `[[tool:session_meta {"action":"add_link","url":"https://example.com/x","link_title":"X"}]]`)
			},
			status: http.StatusAccepted,
			want:   []string{`href="https://example.com/x"`, ">X</a>"},
		},
		{
			name: "turn",
			change: func(cs *chatServer, id string) *http.Response {
				return cs.send(id, "hello [[say:hi]] [[usage:in=1234,out=5]]")
			},
			status: http.StatusAccepted,
			want:   []string{"2 in 1 thread", `data-input="1234"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := newChatServer(t, "anthropic")
			s := cs.create("panel")
			st := cs.stream(t, s.ID)
			wantStatus(t, tt.change(cs, s.ID), tt.status)
			var evs []sseEvent
			if tt.status == http.StatusAccepted {
				evs = st.until("turn.end")
				evs = append(evs, st.until("panel")...)
			} else {
				evs = st.until("panel")
			}
			html := lastPanel(t, evs)
			for _, w := range tt.want {
				if !strings.Contains(html, w) {
					t.Errorf("panel lacks %q:\n%s", w, html)
				}
			}
		})
	}
}

// Right after a compaction the gauge shows the new thread's estimated
// context, not 0.
func TestContextAfterCompactionIsTheNewThreads(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic", compactAt(5000))
	s := cs.create("ctx")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "first "+strings.Repeat("words ", 200)+"[[say:ok]] [[usage:in=100,out=5]]"), http.StatusAccepted)
	st.until("turn.end")
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/compact", nil), http.StatusOK)
	st.until("compaction.end")
	evs := st.until("context")
	used, _ := data(t, evs[len(evs)-1])["used"].(float64)
	if used <= 0 {
		t.Errorf("context after compaction %v, want the new thread's estimate", data(t, evs[len(evs)-1]))
	}
}

// A change another process makes to the file (the CLI, through the store)
// reaches the open tab's panel.
func TestPanelEventFromAnotherProcess(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	s := ts.create("Watched")
	resp := ts.do("GET", "/api/sessions/"+s.ID+"/events", nil)
	wantStatus(t, resp, http.StatusOK)
	events := make(chan sseEvent, 16)
	go readEvents(t, resp.Body, events)
	nextEvent(t, events, "snapshot")
	if _, err := ts.sessions.Update(s.ID, func(d *session.Document) error {
		d.Scratchpad, d.UpdatedAt = "from the CLI", time.Now().UTC()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// The watcher's first look may tell the panel as it was; the change
	// follows.
	for {
		ev := nextEvent(t, events, "panel")
		if strings.Contains(ev.data, "from the CLI") {
			return
		}
	}
}

// A PATCH of a session that is not open here tells the panel once: the
// watcher, looking at the file it wrote, does not take it for news.
func TestPanelOncePerPatch(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	s := ts.create("Once")
	resp := ts.do("GET", "/api/sessions/"+s.ID+"/events", nil)
	wantStatus(t, resp, http.StatusOK)
	events := make(chan sseEvent, 64)
	go readEvents(t, resp.Body, events)
	nextEvent(t, events, "snapshot")
	wantStatus(t, ts.do("PATCH", "/api/sessions/"+s.ID, strings.NewReader(`{"scratchpad":"first-note"}`)), http.StatusOK)
	// Give the watcher (every 50 ms here) several looks at the new file,
	// then a second PATCH marks the end of what the first one caused.
	time.Sleep(400 * time.Millisecond)
	wantStatus(t, ts.do("PATCH", "/api/sessions/"+s.ID, strings.NewReader(`{"scratchpad":"second-note"}`)), http.StatusOK)
	first := 0
	for {
		ev := nextEvent(t, events, "panel")
		if strings.Contains(ev.data, "second-note") {
			break
		}
		if strings.Contains(ev.data, "first-note") {
			first++
		}
	}
	if first != 1 {
		t.Errorf("the first PATCH told the panel %d times, want once", first)
	}
}

// The panel's count moves as each message is saved, not at the turn's
// end: the person's message shows before the answer starts.
func TestPanelCountsEachMessage(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("counts")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "hello [[say:hi]]"), http.StatusAccepted)
	if html := lastPanel(t, st.until("message.start")); !strings.Contains(html, "1 in 1 thread") {
		t.Errorf("panel before the answer:\n%s", html)
	}
}
