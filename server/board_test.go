package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// boardGroups reads the board's rows by group: "needs", "working", "done"
// → the sessions listed there, in order.
func boardGroups(t *testing.T, ts *chatServer) map[string][]string {
	t.Helper()
	resp := ts.do("GET", "/partials/board", nil)
	wantStatus(t, resp, http.StatusOK)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	groups := map[string][]string{}
	html := string(body)
	for _, name := range []string{"needs", "working", "done"} {
		i := strings.Index(html, `data-testid="board-`+name+`"`)
		if i < 0 {
			continue
		}
		part := html[i:]
		if end := strings.Index(part, "</ul>"); end >= 0 {
			part = part[:end]
		}
		for _, row := range strings.Split(part, `data-session="`)[1:] {
			id, _, _ := strings.Cut(row, `"`)
			groups[name] = append(groups[name], id)
		}
	}
	return groups
}

// waitBoard polls the board until ok says it shows what a test waits for.
func waitBoard(t *testing.T, ts *chatServer, what string, ok func(map[string][]string) bool) map[string][]string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		g := boardGroups(t, ts)
		if ok(g) {
			return g
		}
		if time.Now().After(deadline) {
			t.Fatalf("the board never showed %s: %v", what, g)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func has(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// The board sorts the profile's sessions by what they need: an approval
// waiting and a failed turn need the person, a running turn works, and an
// answer nobody looked at is done since they last looked, until a tab
// shows it.
func TestBoardShowsWhatNeedsThePerson(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	asking := cs.create("asking")
	busy := cs.create("busy")
	failed := cs.create("failed")
	done := cs.create("done")
	wantStatus(t, cs.send(asking.ID, `look [[tool:bash {"command":"echo hi"}]]`), http.StatusAccepted)
	wantStatus(t, cs.send(busy.ID, "[[text:400]] [[delay:50ms]]"), http.StatusAccepted)
	wantStatus(t, cs.send(failed.ID, "[[fault:400]]"), http.StatusAccepted)
	wantStatus(t, cs.send(done.ID, "[[say:all done]]"), http.StatusAccepted)

	g := waitBoard(t, cs, "each session in its group", func(g map[string][]string) bool {
		return has(g["needs"], asking.ID) && has(g["needs"], failed.ID) && has(g["working"], busy.ID) && has(g["done"], done.ID)
	})
	for group, ids := range g {
		for _, id := range ids {
			if id == done.ID && group != "done" || id == busy.ID && group != "working" {
				t.Fatalf("session %s also in %s: %v", id, group, g)
			}
		}
	}
	// A tab that shows the done session is the person looking at it: it
	// leaves the board, and stays off it once the tab is closed.
	resp := cs.do("GET", "/api/sessions/"+done.ID+"/events", nil)
	wantStatus(t, resp, http.StatusOK)
	waitBoard(t, cs, "the looked-at session gone", func(g map[string][]string) bool { return !has(g["done"], done.ID) })
	resp.Body.Close()
	time.Sleep(100 * time.Millisecond) // the server notices the tab went
	if g := boardGroups(t, cs); has(g["done"], done.ID) {
		t.Fatalf("the session came back as news after its tab closed: %v", g)
	}
	// The home page carries the board.
	home := cs.do("GET", "/", nil)
	body, _ := io.ReadAll(home.Body)
	home.Body.Close()
	if !strings.Contains(string(body), `data-testid="board"`) || !strings.Contains(string(body), asking.ID) {
		t.Fatal("the home page has no board, or not the session that asks")
	}
}

// An untitled fork is named on the board as the listings name it, "Fork
// of" its parent, not Untitled.
func TestBoardNamesAForkAsTheListingDoes(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	parent := cs.create("Parent things")
	wantStatus(t, cs.send(parent.ID, "[[say:all done]]"), http.StatusAccepted)
	waitBoard(t, cs, "the parent done", func(g map[string][]string) bool { return has(g["done"], parent.ID) })
	resp := cs.do("POST", "/api/sessions/"+parent.ID+"/fork", nil)
	wantStatus(t, resp, http.StatusCreated)
	fork := decode[struct{ ID string }](t, resp)
	waitBoard(t, cs, "the fork done", func(g map[string][]string) bool { return has(g["done"], fork.ID) })
	board := cs.do("GET", "/partials/board", nil)
	body, _ := io.ReadAll(board.Body)
	board.Body.Close()
	html := string(body)
	i := strings.Index(html, `data-session="`+fork.ID+`"`)
	if i < 0 {
		t.Fatal("the fork's row is not on the board")
	}
	row := html[i:]
	if end := strings.Index(row, "</li>"); end >= 0 {
		row = row[:end]
	}
	if !strings.Contains(row, "Fork of Parent things") {
		t.Errorf("the fork's board row does not say %q:\n%s", "Fork of Parent things", row)
	}
}
