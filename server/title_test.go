package server_test

import (
	"net/http"
	"strings"
	"testing"

	"myco/session"
)

// TestAutomaticTitleRule checks that the title the model proposes is held
// to the one title rule (session.CleanTitle), once stripped of what only a
// model's reply carries (quotes, a heading's marks, a final period).
func TestAutomaticTitleRule(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	tests := []struct {
		name  string
		reply string // what the title model answers
		want  string
	}{
		{"dressed as a quoted heading", `## "Fix the flaky test."`, "Fix the flaky test"},
		{"cut on a character, not a byte", strings.Repeat("é", session.TitleMax+10), strings.Repeat("é", session.TitleMax)},
		{"inner spaces collapse", "Fix   the\ttest", "Fix the test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := cs.create("")
			st := cs.stream(t, s.ID)
			text := "hello [[title:" + tt.reply + "]]"
			wantStatus(t, cs.send(s.ID, text), http.StatusAccepted)
			// The first words name it until the automatic title comes.
			if got, want := data(t, nextEvent(t, st.events, "title"))["title"], session.FirstWords(text); got != want {
				t.Errorf("first title event %q, want the first words %q", got, want)
			}
			if got := data(t, nextEvent(t, st.events, "title"))["title"]; got != tt.want {
				t.Errorf("title event %q, want %q", got, tt.want)
			}
			doc, err := cs.sessions.Load(s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Title != tt.want || doc.Provisional() {
				t.Errorf("stored title %q (from %q), want %q", doc.Title, doc.TitleFrom, tt.want)
			}
		})
	}
}

// A fork is titled from what is new in it: the title model reads the
// fork's own first exchange, not the one it inherited from its parent.
func TestForkTitledFromItsOwnTurn(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	fork, fst := forkOfTitledParent(t, cs)
	wantForkTitledFromItsOwnTurn(t, cs, fork, fst)
}

// A fork compacted before its first turn carries messages of its parent
// into its new thread: they are still not the fork's own, and its title
// comes from what the person wrote in it.
func TestCompactedForkTitledFromItsOwnTurn(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	fork, fst := forkOfTitledParent(t, cs)
	wantStatus(t, cs.do("POST", "/api/sessions/"+fork+"/compact", strings.NewReader("{}")), http.StatusOK)
	doc, err := cs.sessions.Load(fork)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Threads) != 2 || doc.Threads[1].Carried == 0 {
		t.Fatalf("the fork's compaction carried nothing (%d threads): the test needs carried messages", len(doc.Threads))
	}
	wantForkTitledFromItsOwnTurn(t, cs, fork, fst)
}

// forkOfTitledParent makes a parent titled "Parent things" by its first
// turn, forks it, and returns the fork and its event stream.
func forkOfTitledParent(t *testing.T, cs *chatServer) (string, *stream) {
	t.Helper()
	parent := cs.create("")
	st := cs.stream(t, parent.ID)
	wantStatus(t, cs.send(parent.ID, "hello [[title:Parent things]]"), http.StatusAccepted)
	if got := data(t, nextAutoTitle(t, st.events))["title"]; got != "Parent things" {
		t.Fatalf("parent title %q", got)
	}
	resp := cs.do("POST", "/api/sessions/"+parent.ID+"/fork", nil)
	wantStatus(t, resp, http.StatusCreated)
	fork := decode[struct{ ID string }](t, resp)
	return fork.ID, cs.stream(t, fork.ID)
}

// wantForkTitledFromItsOwnTurn sends the fork its first message and wants
// the title from it. The fake titles a session by its excerpt's first
// words when no [[title]] directive is in it: the parent's start would
// give "Parent things".
func wantForkTitledFromItsOwnTurn(t *testing.T, cs *chatServer, fork string, fst *stream) {
	t.Helper()
	wantStatus(t, cs.send(fork, "rename the parser module"), http.StatusAccepted)
	if got, _ := data(t, nextAutoTitle(t, fst.events))["title"].(string); !strings.Contains(got, "rename the parser") {
		t.Errorf("fork title %q, want one from its own first exchange", got)
	}
}

// A session is named by its first words at once; a title model that
// cannot answer leaves them, and a title the agent gives is never
// replaced by the automatic one.
func TestTitleFromFirstWords(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	long := "Why does the parser in internal/scan drop the last token when the input ends without a newline? It used to work."

	s := cs.create("")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, long+` [[title:""]]`), http.StatusAccepted) // a title model that answers nothing
	want := "Why does the parser in internal/scan drop the last token…"
	if got := data(t, nextEvent(t, st.events, "title"))["title"]; got != want {
		t.Errorf("title event %q, want %q", got, want)
	}
	nextEvent(t, st.events, "turn.end")
	doc, err := cs.sessions.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != want || !doc.Provisional() {
		t.Errorf("stored %q (from %q), want the first words kept", doc.Title, doc.TitleFrom)
	}

	// The agent names it during the turn: the automatic title keeps off.
	s2 := cs.create("")
	st2 := cs.stream(t, s2.ID)
	wantStatus(t, cs.send(s2.ID, `name it [[tool:session_meta {"action":"set_title","title":"Parser fix"}]] [[title:Automatic]]`), http.StatusAccepted)
	nextEvent(t, st2.events, "turn.end")
	doc, err = cs.sessions.Load(s2.ID)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "Parser fix" || doc.Provisional() {
		t.Errorf("stored %q (from %q), want the agent's title", doc.Title, doc.TitleFrom)
	}
}
