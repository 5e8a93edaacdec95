package crash

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"myco/e2e/internal/mycotest"
)

// A SIGKILL while two sub-agents run leaves every session loadable: each
// child keeps what it wrote, marked interrupted, and is listed with the
// sub-agents; the parent's task calls get outcomes that say what
// happened; and the parent takes its next message as usual.
func TestSubagentsSurviveKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills myco mid-turn")
	}
	h, ctx := startHarness(t)
	s := h.ss[0]
	c := h.srv.Client()
	st, _, err := c.OpenStream(ctx, s.id)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	task := func(description string) string {
		in, _ := json.Marshal(map[string]any{"description": description, "prompt": "⟦text:400⟧ ⟦delay:50ms⟧"})
		return "[[tool:task " + string(in) + "]]"
	}
	send := map[string]any{"text": s.nextTag("m") + " split it " + task("left half") + " " + task("right half")}
	if err := c.PostJSON(ctx, "/api/sessions/"+s.id+"/messages", send, http.StatusAccepted, nil); err != nil {
		t.Fatal(err)
	}
	// Both are writing: each child has words in its journal to keep.
	writing := map[string]bool{}
	for len(writing) < 2 {
		ev, err := st.Next(ctx, guard, func(ev mycotest.Event) bool { return ev.Name == "subagent" })
		if err != nil {
			t.Fatal(err)
		}
		var sub struct{ Session, Status string }
		if err := json.Unmarshal([]byte(ev.Data), &sub); err != nil {
			t.Fatal(err)
		}
		if sub.Status == "writing" {
			writing[sub.Session] = true
		}
	}
	// A crash may lose the last second of an answer (lostWindow): past
	// it, each child has words on disk.
	time.Sleep(lostWindow + 500*time.Millisecond)
	h.noteOrphans(h.srv.PID())
	h.srv.Kill()
	st.Close()
	defer h.waitOrphans()

	if h.srv, err = h.start(ctx, 1); err != nil {
		t.Fatal(err)
	}
	c = h.srv.Client()
	var listed []struct {
		ID       string `json:"id"`
		Parent   string `json:"parent"`
		Subagent bool   `json:"subagent"`
	}
	if err := c.GetJSON(ctx, "/api/sessions?subagents=1", &listed); err != nil {
		t.Fatal(err)
	}
	for child := range writing {
		found := false
		for _, l := range listed {
			found = found || (l.ID == child && l.Subagent && l.Parent == s.id)
		}
		if !found {
			t.Fatalf("child %s is not listed with the sub-agents of %s: %+v", child, s.id, listed)
		}
		// Opened, as its page opens it: the journal's partial answer is
		// recovered into the document.
		cst, _, err := c.OpenStream(ctx, child)
		if err != nil {
			t.Fatalf("child %s does not open after the kill: %v", child, err)
		}
		cst.Close()
		doc, err := getDocument(ctx, c, child)
		if err != nil {
			t.Fatalf("child %s does not load after the kill: %v", child, err)
		}
		msgs := doc.Threads[len(doc.Threads)-1].Messages
		last := msgs[len(msgs)-1]
		if last.Role != "assistant" || last.StopReason != "interrupted" || len(last.Content) == 0 || !strings.Contains(last.Content[0].Text, "alpha") {
			t.Fatalf("child %s's last message %+v: want its words kept, marked interrupted", child, last)
		}
	}
	// Opening the parent gives its calls their outcomes.
	st2, _, err := c.OpenStream(ctx, s.id)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	doc, err := getDocument(ctx, c, s.id)
	if err != nil {
		t.Fatal(err)
	}
	outcomes := 0
	for _, m := range doc.Threads[len(doc.Threads)-1].Messages {
		for _, b := range m.Content {
			if b.Type == "tool_result" {
				outcomes++
				if !strings.Contains(string(b.Content), "sub-agent ran") {
					t.Fatalf("task outcome %s: want it to say the sub-agent was cut short", b.Content)
				}
			}
		}
	}
	if outcomes != 2 {
		t.Fatalf("%d task outcomes after the kill, want 2", outcomes)
	}
	next := map[string]any{"text": s.nextTag("c") + " after kill [[say:" + checkReply + "]]"}
	var posted struct {
		Turn string `json:"turn"`
	}
	if err := c.PostJSON(ctx, "/api/sessions/"+s.id+"/messages", next, http.StatusAccepted, &posted); err != nil {
		t.Fatal(err)
	}
	if _, err := st2.Next(ctx, guard, func(ev mycotest.Event) bool {
		return ev.Name == "turn.end" && strings.Contains(ev.Data, posted.Turn)
	}); err != nil {
		t.Fatal(err)
	}
	doc, err = getDocument(ctx, c, s.id)
	if err != nil {
		t.Fatal(err)
	}
	// The message reached the model with the repaired outcomes (the fake
	// reads a user message that carries tool results as a tool round's,
	// so it quotes them rather than saying checkReply), and was answered.
	msgs := doc.Threads[len(doc.Threads)-1].Messages
	if last := msgs[len(msgs)-1]; last.Role != "assistant" || last.StopReason != "end_turn" {
		t.Fatalf("after the kill the parent's turn ended %+v, want an answer", last)
	}
	var body string
	for _, r := range h.fake.Requests() {
		if fromKey(r.Header, h.key) && strings.Contains(string(r.Body), s.tag()) {
			body = string(r.Body)
		}
	}
	if !strings.Contains(body, "after kill") || strings.Count(body, "sub-agent ran") != 2 {
		t.Fatal("the parent's request after the kill lacks the message or the two repaired outcomes")
	}
}
