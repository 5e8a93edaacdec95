package crash

import (
	"net/http"
	"strings"
	"testing"

	"myco/e2e/internal/mycotest"
)

// A steer answered 202 survives a SIGKILL that comes right after the
// answer, and reaches the model once after the restart (issue 18: it was
// held in memory, and 5 of 5 were lost).
func TestSteerSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills myco mid-turn")
	}
	h, ctx := startHarness(t)
	srv := h.srv
	s := h.ss[0]
	c := srv.Client()
	st, _, err := c.OpenStream(ctx, s.id)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// A tool round that runs long enough for the steer to wait for it.
	send := map[string]any{"text": s.nextTag("m") + ` tool [[tool:bash {"command":"sleep 2"}]]`}
	if err := c.PostJSON(ctx, "/api/sessions/"+s.id+"/messages", send, http.StatusAccepted, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Next(ctx, guard, func(ev mycotest.Event) bool { return ev.Name == "tool.start" }); err != nil {
		t.Fatal(err)
	}
	steer := s.nextTag("st") + " mind the flaky test"
	var answer map[string]string
	if err := c.PostJSON(ctx, "/api/sessions/"+s.id+"/steer", map[string]string{"text": steer}, http.StatusAccepted, &answer); err != nil {
		t.Fatal(err)
	}
	if answer["steer"] == "" {
		t.Fatalf("steer answered %v while the tool round ran; want {steer}", answer)
	}
	h.noteOrphans(srv.PID())
	srv.Kill()
	st.Close()
	defer h.waitOrphans()

	if h.srv, err = h.start(ctx, 1); err != nil {
		t.Fatal(err)
	}
	c = h.srv.Client()
	st2, _, err := c.OpenStream(ctx, s.id) // opens the session: its queue is kept
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	doc, err := getDocument(ctx, c, s.id)
	if err != nil {
		t.Fatal(err)
	}
	if n := keptTimes(doc, steer); n != 1 {
		t.Fatalf("after the kill the steer is in the session %d time(s), want once; queued %+v", n, doc.Queued)
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
	var last string
	for _, r := range h.fake.Requests() {
		if fromKey(r.Header, h.key) && strings.Contains(string(r.Body), s.tag()) {
			last = string(r.Body)
		}
	}
	if last == "" {
		t.Fatal("the fake got no request for the message sent after the restart")
	}
	if n := strings.Count(last, "mind the flaky test"); n != 1 {
		t.Errorf("the model was sent the steer %d time(s) after the restart, want once:\n%s", n, clip(last))
	}
}

// keptTimes counts the person's messages of the latest thread and the
// queued messages that hold text.
func keptTimes(doc *document, text string) int {
	n := 0
	if len(doc.Threads) > 0 {
		for _, m := range doc.Threads[len(doc.Threads)-1].Messages {
			if m.Human && strings.HasPrefix(m.text(), text) {
				n++
			}
		}
	}
	for _, q := range doc.Queued {
		if strings.HasPrefix(q.Text, text) {
			n++
		}
	}
	return n
}
