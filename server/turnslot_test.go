package server_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"myco/session"
)

// Submissions racing each other start one turn: the others are refused
// (409) and nothing interleaves in the thread.
func TestConcurrentSubmissionsStartOneTurn(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("race")
	st := cs.stream(t, s.ID)
	const n = 8
	codes := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			body, _ := json.Marshal(map[string]string{"text": "go [[text:50]] [[delay:2ms]] #" + string(rune('a'+i))})
			req, _ := http.NewRequest("POST", cs.url+"/api/sessions/"+s.ID+"/messages", strings.NewReader(string(body)))
			req.Header.Set("Authorization", "Bearer "+testToken)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			codes <- resp.StatusCode
		})
	}
	wg.Wait()
	close(codes)
	accepted := 0
	for c := range codes {
		switch c {
		case http.StatusAccepted:
			accepted++
		case http.StatusConflict:
		default:
			t.Errorf("status %d", c)
		}
	}
	if accepted != 1 {
		t.Fatalf("%d submissions started a turn, want 1", accepted)
	}
	st.until("turn.end")
	doc, _ := cs.sessions.Load(s.ID)
	if got := len(doc.Threads[0].Messages); got != 2 {
		t.Errorf("thread has %d messages, want the one submission and its answer", got)
	}
	turns := 0
	for _, r := range cs.fake.Requests() {
		if strings.Contains(string(r.Body), `"tools"`) { // not the title's request
			turns++
		}
	}
	if turns != 1 {
		t.Errorf("%d model calls with tools, want 1", turns)
	}
}

// Archiving a live session with a turn running does not stop it: the
// session leaves the listing at once and takes no message, the turn ends
// with its answer whole, the queued message is kept as the person's (not
// run), and then the files move into the archive. Nothing writes it after.
func TestArchiveLiveSessionLetsTheTurnFinish(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("busy")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "[[text:200]] [[delay:5ms]]"), http.StatusAccepted)
	nextEvent(t, st.events, "text.delta")
	resp := cs.do("POST", "/api/sessions/"+s.ID+"/messages", strings.NewReader(`{"text":"after that [[say:never]]","queue":true}`))
	wantStatus(t, resp, http.StatusAccepted)
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/archive", nil), http.StatusOK)
	sums, err := cs.sessions.List(session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, listed := findSummary(sums, s.ID); listed {
		t.Error("an archived session is still listed with the active ones")
	}
	wantStatus(t, cs.send(s.ID, "more"), http.StatusConflict)

	st.until("turn.end")
	path := filepath.Join(cs.dir, "session", "archived", s.ID+".json")
	var doc *session.Document
	waitFor(t, "the files to move into the archive", func() bool {
		data, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		doc, err = session.Decode(data, path, s.ID)
		return err == nil
	})
	requests := len(cs.fake.Requests())
	msgs := doc.Threads[0].Messages
	last := msgs[len(msgs)-1]
	if !doc.Archived || !last.Human || !strings.Contains(textOf(last), "after that") {
		t.Errorf("archived %v, last message %+v", doc.Archived, last)
	}
	if msgs[1].StopReason != "end_turn" || len(strings.Fields(textOf(msgs[1]))) != 200 {
		t.Errorf("the running turn did not finish: %q, %d words", msgs[1].StopReason, len(strings.Fields(textOf(msgs[1]))))
	}
	// Restoring and reading it again shows the same document: no late write.
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/restore", nil), http.StatusOK)
	again, _ := cs.sessions.Load(s.ID)
	if again.MessageCount() != len(msgs) || len(cs.fake.Requests()) != requests {
		t.Errorf("after archive: %d messages (was %d), %d model requests (was %d)", again.MessageCount(), len(msgs), len(cs.fake.Requests()), requests)
	}
}

func findSummary(sums []session.Summary, id string) (session.Summary, bool) {
	for _, s := range sums {
		if s.ID == id {
			return s, true
		}
	}
	return session.Summary{}, false
}

// waitFor polls cond until it holds, failing the test after a generous
// deadline (a guard against hanging, not a speed assertion).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
