package server_test

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"myco/profiles"
	"myco/session"
)

// compactAt sets a tiny context window and threshold for the fake model,
// so the fake's reported usage crosses it.
func compactAt(threshold int) func(*profiles.Settings) {
	return func(s *profiles.Settings) {
		s.Approvals.Bash = profiles.ApprovalAllow
		s.Models = map[string]profiles.Model{"anthropic/fake-model": {ContextWindow: 100000, AutoCompactAt: &threshold}}
	}
}

func countEvents(evs []sseEvent, name string) int {
	n := 0
	for _, ev := range evs {
		if ev.name == name {
			n++
		}
	}
	return n
}

func threadJSON(t *testing.T, ss *session.Store, id string, i int) string {
	t.Helper()
	doc, err := ss.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(doc.Threads[i])
	return string(b)
}

func TestAutoCompactionMidLoopThenContinues(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic", compactAt(5000))
	s := cs.create("loop")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, `[[steps: tool:bash {"command":"echo one"} ;; tool:bash {"command":"echo two"} ;; say:all done]] [[usage:in=6000,out=10]]`), http.StatusAccepted)
	evs := st.until("turn.end")
	starts := countEvents(evs, "compaction.start")
	if starts < 2 {
		t.Errorf("%d compactions in a long loop over the threshold, want one per boundary: %v", starts, names(evs))
	}
	doc, _ := cs.sessions.Load(s.ID)
	if len(doc.Threads) < 2 {
		t.Fatalf("%d threads", len(doc.Threads))
	}
	last := doc.Threads[len(doc.Threads)-1]
	if last.CompactedFrom == nil || !strings.HasPrefix(last.Summary, "Summary:") {
		t.Errorf("successor %+v", last)
	}
	if got := textOf(last.Messages[len(last.Messages)-1]); got != "all done" {
		t.Errorf("the turn did not go on to its answer after compacting: %q", got)
	}
	// No carried part starts with a tool outcome whose call was left behind.
	for i, th := range doc.Threads[1:] {
		if len(th.Messages) > 0 && th.Messages[0].Role == "user" && hasResults(th.Messages[0]) {
			t.Errorf("thread %d starts with tool results cut from their call", i+1)
		}
	}
}

func hasResults(m session.Message) bool {
	for _, b := range m.Content {
		if b.Type == session.BlockToolResult {
			return true
		}
	}
	return false
}

// sentMessage is a stored message as its message.end event announced it,
// with the text the test sent or made the fake answer.
type sentMessage struct{ id, role, text string }

// announced returns the messages announced by message.end in evs, in order.
func announced(t *testing.T, evs []sseEvent) []sentMessage {
	t.Helper()
	var out []sentMessage
	for _, ev := range evs {
		if ev.name == "message.end" {
			d := data(t, ev)
			id, _ := d["message"].(string)
			role, _ := d["role"].(string)
			out = append(out, sentMessage{id: id, role: role})
		}
	}
	return out
}

// nothingRuns checks that the idle session starts nothing by itself: a
// title change made now reaches the stream with no turn or compaction
// before it, and the model was not called since it had been called
// requests times. Events of one session reach the stream in the order they
// were published, so anything begun before the change shows up first.
func nothingRuns(t *testing.T, cs *chatServer, st *stream, id string, requests int) {
	t.Helper()
	wantStatus(t, cs.do("PATCH", "/api/sessions/"+id, strings.NewReader(`{"title":"x"}`)), http.StatusOK)
	evs := st.until("title")
	for _, ev := range evs {
		if ev.name == "turn.start" || ev.name == "compaction.start" {
			t.Errorf("%s by itself on an idle session: %v", ev.name, names(evs))
		}
	}
	if n := len(cs.fake.Requests()); n != requests {
		t.Errorf("%d model calls on an idle session", n-requests)
	}
}

func TestAutoCompactionAfterAnswerOncePerSubmissionPredecessorUnchanged(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic", compactAt(5000))
	s := cs.create("answer")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.do("PATCH", "/api/sessions/"+s.ID,
		strings.NewReader(`{"links":[{"url":"https://go.dev","title":"Go"}],"scratchpad":"keep me"}`)), http.StatusOK)
	first, second := "first [[say:ok]] [[usage:in=100,out=5]]", "second [[say:big]] [[usage:in=6000,out=5]]"
	wantStatus(t, cs.send(s.ID, first), http.StatusAccepted)
	sent := announced(t, st.until("turn.end"))
	wantStatus(t, cs.send(s.ID, second), http.StatusAccepted)
	evs := st.until("turn.end")
	requests := len(cs.fake.Requests())
	sent = append(sent, announced(t, evs)...)
	if n := countEvents(evs, "compaction.end"); n != 1 {
		t.Fatalf("%d compactions after one answer: %v", n, names(evs))
	}

	// The predecessor holds exactly the two submissions and their answers.
	want := []sentMessage{{role: "user", text: first}, {role: "assistant", text: "ok"}, {role: "user", text: second}, {role: "assistant", text: "big"}}
	if len(sent) != len(want) {
		t.Fatalf("%d messages announced, want %d: %+v", len(sent), len(want), sent)
	}
	for i, m := range sent {
		if m.role != want[i].role {
			t.Errorf("message %d announced as %q, want %q", i, m.role, want[i].role)
		}
		want[i].id = m.id
	}
	doc, err := cs.sessions.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []sentMessage
	for _, m := range doc.Threads[0].Messages {
		got = append(got, sentMessage{id: m.ID, role: m.Role, text: textOf(m)})
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(sentMessage{})); diff != "" {
		t.Errorf("thread 0 (-announced +stored):\n%s", diff)
	}
	// The title, links and scratchpad carry through.
	if doc.Title != "answer" || doc.Scratchpad != "keep me" ||
		len(doc.Links) != 1 || doc.Links[0].URL != "https://go.dev" || doc.Links[0].Title != "Go" {
		t.Errorf("after compaction: title %q, scratchpad %q, links %+v", doc.Title, doc.Scratchpad, doc.Links)
	}

	// The manual and reopen rule: nothing runs by itself afterwards.
	nothingRuns(t, cs, st, s.ID, requests)

	before := threadJSON(t, cs.sessions, s.ID, 0)
	wantStatus(t, cs.send(s.ID, "third [[say:small]] [[usage:in=100,out=5]]"), http.StatusAccepted)
	st.until("turn.end")
	if got := threadJSON(t, cs.sessions, s.ID, 0); got != before {
		t.Errorf("the predecessor changed:\n%s\n%s", before, got)
	}
	if got := textOf(lastMessage(t, cs.sessions, s.ID)); got != "small" {
		t.Errorf("the next answer %q did not go to the successor", got)
	}
	doc, _ = cs.sessions.Load(s.ID)
	if len(doc.Threads) != 2 || *doc.Threads[1].CompactedFrom != 0 || doc.Threads[1].Carried == 0 || len(doc.Threads[0].Messages) != 4 {
		t.Fatalf("threads %d, successor %+v", len(doc.Threads), doc.Threads[len(doc.Threads)-1])
	}
	// The successor starts with copies of the predecessor's last messages.
	pred, succ := doc.Threads[0].Messages, doc.Threads[1]
	if succ.Carried > len(pred) || succ.Carried > len(succ.Messages) {
		t.Fatalf("carried %d of %d messages into a thread of %d", succ.Carried, len(pred), len(succ.Messages))
	}
	if diff := cmp.Diff(pred[len(pred)-succ.Carried:], succ.Messages[:succ.Carried]); diff != "" {
		t.Errorf("carried messages are not copies (-predecessor +successor):\n%s", diff)
	}
}

func TestFailedCompactionTurnsAutoOffUntilManualSuccess(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic", compactAt(5000))
	s := cs.create("fail")
	st := cs.stream(t, s.ID)
	// Three failures: the first call and both retries.
	wantStatus(t, cs.send(s.ID, "hello [[summary_fault:500x3]] [[say:ok]] [[usage:in=6000,out=5]]"), http.StatusAccepted)
	evs := st.until("turn.end")
	var ctxEv map[string]any
	for _, ev := range evs {
		if ev.name == "compaction.end" && data(t, ev)["ok"] != false {
			t.Errorf("compaction.end %s, want a failure", ev.data)
		}
		if ev.name == "context" {
			ctxEv = data(t, ev)
		}
	}
	if ctxEv["auto"] != false || !strings.Contains(ctxEv["off_reason"].(string), "failed") {
		t.Errorf("context after a failed compaction %v", ctxEv)
	}
	doc, _ := cs.sessions.Load(s.ID)
	if len(doc.Threads) != 1 {
		t.Errorf("a failed compaction left %d threads", len(doc.Threads))
	}

	// Off: the next answer over the threshold does not compact.
	wantStatus(t, cs.send(s.ID, "again [[say:ok]] [[usage:in=6000,out=5]]"), http.StatusAccepted)
	if n := countEvents(st.until("turn.end"), "compaction.start"); n != 0 {
		t.Errorf("%d compactions while auto compaction is off", n)
	}
	// A manual compaction succeeds (the fault was once) and turns it on.
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/compact", nil), 200)
	st.until("compaction.end")
	ctxEvs := st.until("context")
	if ev := data(t, ctxEvs[len(ctxEvs)-1]); ev["auto"] != true {
		t.Errorf("after a manual success: %v", ev)
	}
	wantStatus(t, cs.send(s.ID, "more [[say:ok]] [[usage:in=6000,out=5]]"), http.StatusAccepted)
	if n := countEvents(st.until("turn.end"), "compaction.start"); n != 1 {
		t.Errorf("%d compactions after a manual success turned it back on", n)
	}
}

// One transient failure of the summary call is retried like any model
// call: automatic compaction succeeds and stays on.
func TestCompactionSummaryIsRetried(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic", compactAt(5000))
	s := cs.create("retried")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "hello [[summary_fault:529x1]] [[say:ok]] [[usage:in=6000,out=5]]"), http.StatusAccepted)
	evs := st.until("turn.end")
	ok := false
	for _, ev := range evs {
		if ev.name == "compaction.end" {
			ok = data(t, ev)["ok"] == true
		}
	}
	if !ok {
		t.Errorf("compaction after one transient failure did not succeed: %v", names(evs))
	}
	if doc, _ := cs.sessions.Load(s.ID); len(doc.Threads) != 2 {
		t.Errorf("%d threads, want the successor", len(doc.Threads))
	}
}

func TestIneffectiveCompactionTurnsAutoOff(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic", compactAt(500))
	s := cs.create("ineffective")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "hello [[summary_words:3000]] [[say:ok]] [[usage:in=600,out=5]]"), http.StatusAccepted)
	evs := st.until("turn.end")
	if countEvents(evs, "compaction.end") != 1 {
		t.Fatalf("events %v", names(evs))
	}
	wantStatus(t, cs.send(s.ID, "again [[say:ok]] [[usage:in=600,out=5]]"), http.StatusAccepted)
	evs = st.until("turn.end")
	if n := countEvents(evs, "compaction.start"); n != 0 {
		t.Errorf("%d compactions after an ineffective one", n)
	}
	for _, ev := range evs {
		if ev.name != "context" {
			continue
		}
		if !strings.Contains(ev.data, "over the threshold") {
			t.Errorf("context %s does not say why auto compaction is off", ev.data)
		}
		// The gauge the tab swaps in is the page's, saying the same.
		html, _ := data(t, ev)["html"].(string)
		if !strings.Contains(html, `data-auto="off"`) || !strings.Contains(html, "Automatic compaction is off: ") ||
			!strings.Contains(html, "over the threshold") {
			t.Errorf("context event's gauge does not say auto compaction is off and why: %q", html)
		}
	}
}

func TestZeroThresholdIsOffAndReopenWaits(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic", compactAt(0))
	s := cs.create("zero")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "hi [[say:ok]] [[usage:in=900000,out=5]]"), http.StatusAccepted)
	if n := countEvents(st.until("turn.end"), "compaction.start"); n != 0 {
		t.Errorf("auto_compact_at 0 compacted %d times", n)
	}
}

func TestCompactionNeverReadsImageBytes(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic", compactAt(5000))
	s := cs.create("images")
	st := cs.stream(t, s.ID)
	resp := cs.do("POST", "/api/images", strings.NewReader(string(pngBytes(t))), "Content-Type", "image/png")
	ref := decode[session.ImageRef](t, resp)
	body, _ := json.Marshal(map[string]any{"text": "look [[say:seen]]", "images": []string{ref.SHA256}})
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/messages", strings.NewReader(string(body))), http.StatusAccepted)
	st.until("turn.end")
	// The blob becomes unreadable: compaction and history still work.
	path, _ := cs.images.Path(ref.SHA256)
	os.WriteFile(path, []byte("corrupt"), 0o600)
	cs.fake.Reset()
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/compact", nil), 200)
	reqs := cs.fake.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "[image sha256:"+ref.SHA256+" image/png]") {
		t.Fatalf("summary request does not name the image: %d requests", len(reqs))
	}
	if strings.Contains(string(reqs[0].Body), `"type":"image"`) {
		t.Error("the summary request carried image bytes")
	}
	// History expansion names the image too, without reading it.
	wantStatus(t, cs.send(s.ID, `[[steps: tool:session_history {"action":"expand","thread":0} ;; say:ok]]`), http.StatusAccepted)
	evs := st.until("turn.end")
	var out string
	for _, ev := range evs {
		if ev.name == "tool.end" {
			out = ev.data
		}
	}
	if !strings.Contains(out, "[image sha256:"+ref.SHA256) || strings.Contains(out, `"is_error":true`) {
		t.Errorf("history expansion with an unreadable blob: %s", out)
	}
}

func TestReopenWaitsAndResetsAutoCompaction(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic", compactAt(5000))
	s := cs.create("reopen")
	st := cs.stream(t, s.ID)
	// Three failures: the first call and both retries.
	wantStatus(t, cs.send(s.ID, "hello [[summary_fault:500x3]] [[say:ok]] [[usage:in=6000,out=5]]"), http.StatusAccepted)
	st.until("turn.end") // the compaction failed: auto is off for this live session
	// Archive and restore close the live session; the next message opens it anew.
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/archive", nil), 200)
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/restore", nil), 200)
	requests := len(cs.fake.Requests())
	st2 := cs.stream(t, s.ID)
	// Opening the page opens the live session anew, which waits for input.
	wantStatus(t, cs.do("GET", "/s/"+s.ID, nil), http.StatusOK)
	nothingRuns(t, cs, st2, s.ID, requests)
	wantStatus(t, cs.send(s.ID, "again [[say:ok]] [[usage:in=6000,out=5]]"), http.StatusAccepted)
	if n := countEvents(st2.until("turn.end"), "compaction.end"); n != 1 {
		t.Errorf("after reopening, auto compaction ran %d times, want 1", n)
	}
}

func TestShellCwdSurvivesCompaction(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic", compactAt(5000))
	s := cs.create("cwd")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, `[[steps: tool:bash {"command":"mkdir -p deep && cd deep"} ;; say:ok]]`), http.StatusAccepted)
	st.until("turn.end")
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/compact", nil), 200)
	wantStatus(t, cs.send(s.ID, `[[steps: tool:bash {"command":"pwd"} ;; say:ok]]`), http.StatusAccepted)
	var ends []string
	for _, ev := range st.until("turn.end") {
		if ev.name == "tool.end" {
			ends = append(ends, ev.data)
		}
	}
	if len(ends) != 1 || !strings.Contains(ends[0], "/deep") {
		t.Errorf("tool.end events after compaction, want one in /deep: %q", ends)
	}
}

// /compact TEXT: what the person asks the summary to keep goes into the
// summary request's instructions (the fake echoes its <keep> tag); the
// button's compaction, with no body, asks nothing more.
func TestCompactFocusReachesTheSummary(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("focus")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "the port is 8123 [[say:noted]]"), http.StatusAccepted)
	st.until("turn.end")
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/compact", strings.NewReader(`{"focus":"the port number"}`)), http.StatusOK)
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/compact", nil), http.StatusOK)
	doc, _ := cs.sessions.Load(s.ID)
	if len(doc.Threads) != 3 {
		t.Fatalf("%d threads, want 3", len(doc.Threads))
	}
	if got := doc.Threads[1].Summary; !strings.HasSuffix(got, "keep: the port number") {
		t.Errorf("summary with a focus %q", got)
	}
	if got := doc.Threads[2].Summary; strings.Contains(got, "keep:") {
		t.Errorf("summary without a focus %q", got)
	}
}

// Switched to a model whose context window is smaller than the
// conversation, the session compacts before the next turn's first call
// (saying why), instead of sending a request the provider would refuse.
func TestSmallerModelCompactsFirst(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic", func(s *profiles.Settings) {
		s.Models = map[string]profiles.Model{
			"anthropic/fake-model":  {ContextWindow: 200000},
			"anthropic/small-model": {ContextWindow: 20000},
		}
	})
	s := cs.create("switch")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "a long talk [[usage:in=30000,out=10]]"), http.StatusAccepted)
	if evs := st.until("turn.end"); countEvents(evs, "compaction.start") != 0 {
		t.Fatal("compacted on the big model")
	}
	wantStatus(t, cs.patch(s.ID, `{"model":"anthropic/small-model"}`), http.StatusOK)
	wantStatus(t, cs.send(s.ID, "go on"), http.StatusAccepted)
	evs := st.until("turn.end")
	var reason string
	for _, ev := range evs {
		if ev.name == "compaction.start" {
			reason, _ = data(t, ev)["reason"].(string)
			break
		}
	}
	if !strings.Contains(reason, "smaller window") {
		t.Fatalf("compaction reason %q, want the smaller model's; events %v", reason, names(evs))
	}
	doc, err := cs.sessions.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Threads) != 2 {
		t.Fatalf("%d threads, want the compacted successor", len(doc.Threads))
	}
	last := doc.Threads[1].Messages
	if got := textOf(last[len(last)-1]); !strings.Contains(got, "go on") {
		t.Errorf("the new thread ends with %q, want the answer to the person's message", got)
	}
}
