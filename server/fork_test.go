package server_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"myco/session"
)

// seedTurns saves a session with n turns of a question and an answer.
func seedTurns(t *testing.T, ts *testServer, n int) string {
	t.Helper()
	doc, err := ts.sessions.Create(session.NewSession{Title: "Parent"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ts.sessions.Update(doc.ID, func(d *session.Document) error {
		for i := range n {
			d.Threads[0].Messages = append(d.Threads[0].Messages,
				session.Message{ID: fmt.Sprintf("q%d", i), Role: "user", Human: true, Content: []session.Block{{Type: session.BlockText, Text: "question"}}},
				session.Message{ID: fmt.Sprintf("a%d", i), Role: "assistant", StopReason: "end_turn", Content: []session.Block{{Type: session.BlockText, Text: "answer"}}})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return doc.ID
}

func TestForkAPI(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	id := seedTurns(t, ts, 3)
	tests := []struct {
		name     string
		body     string
		status   int
		messages int    // in the fork, when made
		errText  string // in the error, when refused
	}{
		{name: "everything", body: "", status: http.StatusCreated, messages: 6},
		{name: "two turns", body: `{"keep_turns":2}`, status: http.StatusCreated, messages: 4},
		{name: "at an answer", body: `{"message":"a0"}`, status: http.StatusCreated, messages: 2},
		{name: "too many turns", body: `{"keep_turns":9}`, status: http.StatusBadRequest, errText: "the nearest is 3"},
		{name: "unknown message", body: `{"message":"zz"}`, status: http.StatusBadRequest, errText: `"zz" is not in the latest thread`},
		{name: "both", body: `{"message":"a0","keep_turns":1}`, status: http.StatusBadRequest, errText: "only one of"},
		{name: "drop one turn", body: `{"drop_turns":1}`, status: http.StatusCreated, messages: 4},
		{name: "drop every turn", body: `{"drop_turns":3}`, status: http.StatusCreated, messages: 0},
		{name: "drop none", body: `{"drop_turns":0}`, status: http.StatusCreated, messages: 6},
		{name: "drop too many", body: `{"drop_turns":4}`, status: http.StatusBadRequest, errText: "cannot drop 4 turns: the latest thread has 3"},
		{name: "drop negative", body: `{"drop_turns":-1}`, status: http.StatusBadRequest, errText: "0 or more"},
		{name: "drop and keep", body: `{"drop_turns":1,"keep_turns":1}`, status: http.StatusBadRequest, errText: "only one of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			resp := ts.do("POST", "/api/sessions/"+id+"/fork", body)
			wantStatus(t, resp, tt.status)
			if tt.status != http.StatusCreated {
				if e := decode[struct{ Error string }](t, resp); !strings.Contains(e.Error, tt.errText) {
					t.Errorf("error %q, want %q in it", e.Error, tt.errText)
				}
				return
			}
			got := decode[struct {
				session.Summary
				URL string
			}](t, resp)
			if got.URL != "/s/"+got.ID || got.Parent != id || got.ParentTitle != "Parent" || got.Title != "" || got.Messages != tt.messages {
				t.Errorf("fork = %+v", got)
			}
			wantStatus(t, ts.do("GET", got.URL, nil), http.StatusOK)
		})
	}
	parent, err := ts.sessions.Load(id)
	if err != nil || parent.MessageCount() != 6 || parent.Parent != nil {
		t.Errorf("parent after forks: %v, %+v", err, parent)
	}
}

func TestDeleteAPI(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	id := seedTurns(t, ts, 1)
	resp := ts.do("DELETE", "/api/sessions/"+id, nil)
	wantStatus(t, resp, http.StatusConflict)
	if e := decode[struct{ Error string }](t, resp); !strings.Contains(e.Error, "archive it first") {
		t.Errorf("error %q", e.Error)
	}
	wantStatus(t, ts.do("POST", "/api/sessions/"+id+"/archive", nil), http.StatusOK)
	wantStatus(t, ts.do("DELETE", "/api/sessions/"+id, nil), http.StatusNoContent)
	wantStatus(t, ts.do("GET", "/api/sessions/"+id, nil), http.StatusNotFound)
	wantStatus(t, ts.do("DELETE", "/api/sessions/"+id, nil), http.StatusNotFound)
}

// TestForkLineagePages: a parent's page lists its forks, archived ones
// too, from the listings; a fork's page links to its parent at the fork
// point, under the parent's title now.
func TestForkLineagePages(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	id := seedTurns(t, ts, 2)
	forkOf := func(body string) string {
		t.Helper()
		resp := ts.do("POST", "/api/sessions/"+id+"/fork", strings.NewReader(body))
		wantStatus(t, resp, http.StatusCreated)
		return decode[session.Summary](t, resp).ID
	}
	first, second := forkOf(`{"message":"a0"}`), forkOf(`{}`)
	wantStatus(t, ts.do("POST", "/api/sessions/"+second+"/archive", nil), http.StatusOK)
	wantStatus(t, ts.do("PATCH", "/api/sessions/"+id, strings.NewReader(`{"title":"Parent, renamed"}`)), http.StatusOK)

	page := func(id string) string {
		t.Helper()
		resp := ts.do("GET", "/s/"+id, nil)
		wantStatus(t, resp, http.StatusOK)
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	parent := page(id)
	for _, f := range []string{first, second} {
		if !strings.Contains(parent, `data-testid="fork-row" data-session-id="`+f+`"`) {
			t.Errorf("the parent's page does not list fork %s", f)
		}
	}
	if !strings.Contains(parent, ">Fork of Parent</a>") {
		t.Error("the parent lists its untitled fork without the name 'Fork of Parent'")
	}
	child := page(first)
	for _, want := range []string{
		`<h1 id="session-title" data-testid="session-title" data-untitled="Fork of Parent">Fork of Parent</h1>`,
		`href="/s/` + id + `#m-a0" data-testid="lineage-link">Parent, renamed</a>`,
		"at turn 1, “question”",
	} {
		if !strings.Contains(child, want) {
			t.Errorf("the fork's page lacks %s", want)
		}
	}
	if strings.Contains(child, `data-testid="forks-panel"`) {
		t.Error("a fork without forks shows a Forks panel")
	}
}

// A fork of a session whose last model call is older than the prompt
// cache keeps it says, in the fork's answer and on its page, that its
// first request pays full price once; a warm parent's fork says nothing.
func TestColdForkIsNamed(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	tests := []struct {
		name string
		ago  time.Duration // of the parent's last answer
		want string        // in the note; "" for none
	}{
		{name: "warm", ago: 2 * time.Minute},
		{name: "cold", ago: 3 * time.Hour, want: "last model call was 3 hours ago, and the prompt cache keeps a conversation for 5 minutes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := ts.sessions.Create(session.NewSession{Title: "Parent", Model: "anthropic/fake-model"})
			if err != nil {
				t.Fatal(err)
			}
			at := time.Now().Add(-tt.ago).UTC()
			if _, err := ts.sessions.Update(doc.ID, func(d *session.Document) error {
				d.Threads[0].Messages = append(d.Threads[0].Messages,
					session.Message{ID: "q", Role: "user", Human: true, At: at, Content: []session.Block{{Type: session.BlockText, Text: "question"}}},
					session.Message{ID: "a", Role: "assistant", At: at, StopReason: "end_turn", Content: []session.Block{{Type: session.BlockText, Text: "answer"}}})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			resp := ts.do("POST", "/api/sessions/"+doc.ID+"/fork", strings.NewReader("{}"))
			wantStatus(t, resp, http.StatusCreated)
			fork := decode[struct {
				ID        string `json:"id"`
				CacheNote string `json:"cache_note"`
			}](t, resp)
			if (tt.want == "") != (fork.CacheNote == "") || !strings.Contains(fork.CacheNote, tt.want) {
				t.Fatalf("cache_note %q, want %q", fork.CacheNote, tt.want)
			}
			page := string(readBody(t, ts.do("GET", "/s/"+fork.ID, nil), false))
			if got := strings.Contains(page, `data-testid="cold-fork"`); got != (tt.want != "") {
				t.Errorf("the fork's page names a cold cache: %v, want %v", got, tt.want != "")
			}
		})
	}
}
