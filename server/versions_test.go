package server_test

import (
	"net/http"
	"strings"
	"testing"

	"myco/e2e/fakellm"
	"myco/profiles"
	"myco/session"
)

// seedCompacted saves a session compacted once: thread 0 holds e0/ea0,
// the latest thread q1 a1 q2 a2 q3 a3, each answer the one the model
// gave to its question.
func seedCompacted(t *testing.T, ss *session.Store) string {
	t.Helper()
	doc, err := ss.Create(session.NewSession{Title: "Versions"})
	if err != nil {
		t.Fatal(err)
	}
	msg := func(id, role, text string) session.Message {
		return session.Message{ID: id, Role: role, Human: role == "user", StopReason: map[bool]string{true: "", false: "end_turn"}[role == "user"],
			Content: []session.Block{{Type: session.BlockText, Text: text}}}
	}
	_, err = ss.Update(doc.ID, func(d *session.Document) error {
		d.Threads[0].Messages = []session.Message{msg("e0", "user", "early"), msg("ea0", "assistant", "early answer")}
		from := 0
		d.Threads = append(d.Threads, session.Thread{CompactedFrom: &from, Summary: "earlier", Messages: []session.Message{
			msg("q1", "user", "one"), msg("a1", "assistant", "answer one"),
			msg("q2", "user", "two"), msg("a2", "assistant", "answer two"),
			msg("q3", "user", "three"), msg("a3", "assistant", "answer three"),
		}})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return doc.ID
}

type versionsBody struct {
	Current  int
	Versions []struct {
		Session, Message, URL string
	}
}

// waitAnswered waits until session id's latest message is a finished
// answer, and returns the latest thread.
func waitAnswered(t *testing.T, ts *testServer, id string) []session.Message {
	t.Helper()
	var msgs []session.Message
	waitFor(t, "the answer in "+id, func() bool {
		doc, err := ts.sessions.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		msgs = doc.Threads[len(doc.Threads)-1].Messages
		last := msgs[len(msgs)-1]
		return last.Role == "assistant" && last.StopReason == "end_turn"
	})
	// The answer is saved before its turn ends (the title is made after
	// it): until then an edit or a regenerate is refused as the tab would
	// never send it, so wait for the session to say it is idle.
	waitFor(t, id+" idle", func() bool { return sessionStatus(t, ts, id) == "idle" })
	return msgs
}

// sessionStatus is the status a new event stream's snapshot gives id.
func sessionStatus(t *testing.T, ts *testServer, id string) string {
	t.Helper()
	resp := ts.do("GET", "/api/sessions/"+id+"/events", nil)
	wantStatus(t, resp, http.StatusOK)
	defer resp.Body.Close()
	events := make(chan sseEvent, 16)
	go readEvents(t, resp.Body, events)
	status, _ := data(t, nextEvent(t, events, "snapshot"))["status"].(string)
	return status
}

func TestEditAndRegenerateMakeVersions(t *testing.T) {
	t.Parallel()
	fake := fakellm.Start(t)
	cs := startChatServer(t, t.TempDir(), fake, "anthropic", func(s *profiles.Settings) {
		s.Models = map[string]profiles.Model{"anthropic/fake-fast": {}}
	})
	id := seedCompacted(t, cs.sessions)

	type made struct {
		session.Summary
		URL   string
		Turn  string
		Point session.VersionPoint
	}
	tests := []struct {
		name, path, body string
		status           int
		errText          string
		// check looks at the new version's latest thread.
		check func(t *testing.T, got made, msgs []session.Message)
	}{
		{
			name: "edit a middle message", path: "q2/edit", body: `{"text":"two, edited [[say:edited answer]]"}`, status: http.StatusCreated,
			check: func(t *testing.T, got made, msgs []session.Message) {
				if got.Point != (session.VersionPoint{Session: id, Message: "q2"}) || got.Title != "Versions" {
					t.Errorf("point %+v title %q", got.Point, got.Title)
				}
				if len(msgs) != 4 || msgs[1].ID != "a1" || !strings.HasPrefix(textOf(msgs[2]), "two, edited") || textOf(msgs[3]) != "edited answer" {
					t.Errorf("the edit's thread: %v", texts(msgs))
				}
			},
		},
		{
			name: "regenerate a middle answer with another model", path: "a2/regenerate", body: `{"model":"anthropic/fake-fast"}`, status: http.StatusCreated,
			check: func(t *testing.T, got made, msgs []session.Message) {
				if got.Point != (session.VersionPoint{Session: id, Message: "a2"}) {
					t.Errorf("point %+v", got.Point)
				}
				if len(msgs) != 4 || msgs[2].ID != "q2" || msgs[3].Model != "anthropic/fake-fast" {
					t.Errorf("the regeneration's thread: %v, model %q", texts(msgs), msgs[len(msgs)-1].Model)
				}
				reqs := fake.Requests()
				if m := reqs[len(reqs)-1].JSON["model"]; m != "fake-fast" {
					t.Errorf("the regeneration asked %v, want fake-fast", m)
				}
				// The fork's own model stays the session's.
				if got.Model != "" {
					t.Errorf("the fork's model became %q", got.Model)
				}
			},
		},
		{name: "an earlier thread's message", path: "e0/edit", body: `{"text":"x"}`, status: http.StatusConflict, errText: "earlier thread"},
		{name: "an unknown message", path: "zz/edit", body: `{"text":"x"}`, status: http.StatusNotFound, errText: `"zz" is not in session`},
		{name: "an unknown message regenerated", path: "zz/regenerate", body: `{}`, status: http.StatusNotFound, errText: "no such message"},
		{name: "an answer edited", path: "a1/edit", body: `{"text":"x"}`, status: http.StatusBadRequest, errText: "only a message you wrote"},
		{name: "a question regenerated", path: "q1/regenerate", body: `{}`, status: http.StatusBadRequest, errText: "edited, not regenerated"},
		{name: "an empty edit", path: "q1/edit", body: `{"text":"  "}`, status: http.StatusBadRequest, errText: "empty"},
		{name: "an unknown model", path: "a1/regenerate", body: `{"model":"nope/x"}`, status: http.StatusBadRequest, errText: "not configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := cs.do("POST", "/api/sessions/"+id+"/messages/"+tt.path, strings.NewReader(tt.body))
			wantStatus(t, resp, tt.status)
			if tt.status != http.StatusCreated {
				if e := decode[struct{ Error string }](t, resp); !strings.Contains(e.Error, tt.errText) {
					t.Errorf("error %q, want %q in it", e.Error, tt.errText)
				}
				return
			}
			got := decode[made](t, resp)
			if got.ID == id || got.URL != "/s/"+got.ID || got.Turn == "" || got.Parent != id {
				t.Fatalf("made %+v", got)
			}
			tt.check(t, got, waitAnswered(t, cs.testServer, got.ID))
		})
	}
	// Nothing of the original was touched.
	doc, err := cs.sessions.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(doc.Threads[1].Messages); n != 6 {
		t.Errorf("the original's latest thread has %d messages, want 6", n)
	}
}

func TestVersionsListing(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	id := seedCompacted(t, cs.sessions)
	edit := func(from, message, text string) string {
		t.Helper()
		resp := cs.do("POST", "/api/sessions/"+from+"/messages/"+message+"/edit", strings.NewReader(`{"text":"`+text+`"}`))
		wantStatus(t, resp, http.StatusCreated)
		got := decode[struct{ ID string }](t, resp)
		waitAnswered(t, cs.testServer, got.ID)
		return got.ID
	}
	first := edit(id, "q2", "second version")
	// An edit of a version's own message is one more version of the same
	// point, not a version of a version.
	firstMsg := waitAnswered(t, cs.testServer, first)[2].ID
	second := edit(first, firstMsg, "third version")
	secondMsg := waitAnswered(t, cs.testServer, second)[2].ID

	tests := []struct {
		name, from, message string
		want                []string // session:message
		current             int
	}{
		{name: "from the original", from: id, message: "q2", want: []string{id + ":q2", first + ":" + firstMsg, second + ":" + secondMsg}, current: 0},
		{name: "from a version", from: second, message: secondMsg, want: []string{id + ":q2", first + ":" + firstMsg, second + ":" + secondMsg}, current: 2},
		{name: "a point with one version", from: id, message: "q3", want: []string{id + ":q3"}, current: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := cs.do("GET", "/api/sessions/"+tt.from+"/versions?message="+tt.message, nil)
			wantStatus(t, resp, http.StatusOK)
			got := decode[versionsBody](t, resp)
			var pairs []string
			for _, v := range got.Versions {
				pairs = append(pairs, v.Session+":"+v.Message)
				if v.URL != "/s/"+v.Session {
					t.Errorf("url %q", v.URL)
				}
			}
			if strings.Join(pairs, " ") != strings.Join(tt.want, " ") || got.Current != tt.current {
				t.Errorf("versions %v current %d, want %v current %d", pairs, got.Current, tt.want, tt.current)
			}
		})
	}
	// Without a message: every point of the session with versions.
	resp := cs.do("GET", "/api/sessions/"+first+"/versions", nil)
	wantStatus(t, resp, http.StatusOK)
	all := decode[struct{ Points map[string]versionsBody }](t, resp)
	if p, ok := all.Points[firstMsg]; len(all.Points) != 1 || !ok || len(p.Versions) != 3 || p.Current != 1 {
		t.Errorf("points %+v", all.Points)
	}
	wantStatus(t, cs.do("GET", "/api/sessions/"+id+"/versions?message=zz", nil), http.StatusNotFound)
}

func TestEditRefusedWhileATurnRuns(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	id := seedCompacted(t, cs.sessions)
	st := cs.stream(t, id)
	// The last answer regenerated is the retry, in the same session.
	resp := cs.do("POST", "/api/sessions/"+id+"/messages/a3/regenerate", strings.NewReader(`{}`))
	wantStatus(t, resp, http.StatusCreated)
	if got := decode[struct {
		ID      string
		Retried bool
	}](t, resp); got.ID != id || !got.Retried {
		t.Errorf("regenerating the last answer gave %+v", got)
	}
	st.until("turn.end")
	wantStatus(t, cs.send(id, "[[hang]]"), http.StatusAccepted)
	st.until("turn.start")
	for path, body := range map[string]string{"q2/edit": `{"text":"x"}`, "a2/regenerate": `{}`} {
		resp := cs.do("POST", "/api/sessions/"+id+"/messages/"+path, strings.NewReader(body))
		wantStatus(t, resp, http.StatusConflict)
		if e := decode[struct{ Error string }](t, resp); !strings.Contains(e.Error, "a turn is already running: stop it or let it finish") {
			t.Errorf("%s: error %q", path, e.Error)
		}
	}
	wantStatus(t, cs.do("POST", "/api/sessions/"+id+"/stop", nil), http.StatusOK)
	st.until("turn.end")
}

func texts(msgs []session.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.ID+"="+textOf(m))
	}
	return out
}
