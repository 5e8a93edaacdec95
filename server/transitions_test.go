package server_test

// One test per transition of the turn engine (the table in
// server/live/doc.go), then the races of issue 9, each run many times and
// checked against the engine's invariants: one turn at a time, no message
// lost or doubled, every tool call with its outcome, idle at the end.
//
// A gate between myco and the fake model server holds the model calls a
// test names until it lets them go, so a test acts while the session is in
// a given state without waiting on the clock.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"myco/e2e/fakellm"
	"myco/profiles"
	"myco/server"
	"myco/server/llm"
	"myco/session"
	"myco/web"
)

// Kinds of model call, as the gate tells them apart.
const (
	callChat    = "chat"    // a turn's call: it offers tools
	callSummary = "summary" // a compaction's summary
	callTitle   = "title"   // a new session's title
)

// gate is a proxy in front of the fake model server. hold arms it for the
// next call of a kind: that call waits until the test lets it go (or its
// client gives up, as on a stop).
type gate struct {
	url  string
	mu   sync.Mutex
	arms []*heldCall
	all  []*heldCall
}

// heldCall is one armed hold.
type heldCall struct {
	kind    string
	arrived chan struct{}
	release chan struct{}
	once    sync.Once
}

func startGate(t *testing.T, target string) *gate {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.FlushInterval = -1 // stream the fake's events as they come
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		if h := g.take(callKind(body)); h != nil {
			close(h.arrived)
			select {
			case <-h.release:
			case <-r.Context().Done():
				return // the client gave up: a stop
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	g.url = srv.URL
	t.Cleanup(func() {
		g.mu.Lock()
		for _, h := range g.all {
			h.let()
		}
		g.mu.Unlock()
		srv.Close()
	})
	return g
}

// callKind tells a turn's call (with tools) from a title or a summary.
func callKind(body []byte) string {
	switch {
	case bytes.Contains(body, []byte(`"tools"`)):
		return callChat
	case bytes.Contains(body, []byte("short title")):
		return callTitle
	}
	return callSummary
}

// hold makes the next call of kind wait for let.
func (g *gate) hold(kind string) *heldCall {
	h := &heldCall{kind: kind, arrived: make(chan struct{}), release: make(chan struct{})}
	g.mu.Lock()
	g.arms = append(g.arms, h)
	g.all = append(g.all, h)
	g.mu.Unlock()
	return h
}

func (g *gate) take(kind string) *heldCall {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, h := range g.arms {
		if h.kind == kind {
			g.arms = slices.Delete(g.arms, i, i+1)
			return h
		}
	}
	return nil
}

// wait returns once the held call has reached the gate.
func (h *heldCall) wait(t *testing.T) {
	t.Helper()
	select {
	case <-h.arrived:
	case <-time.After(30 * time.Second):
		t.Fatalf("no %s call reached the gate", h.kind)
	}
}

// let lets the held call go on to the fake.
func (h *heldCall) let() { h.once.Do(func() { close(h.release) }) }

// engine is a chat server whose model calls pass the gate, and whose
// Server the test holds (to shut it down).
type engine struct {
	*chatServer
	gate *gate
	srv  *server.Server
}

// newEngine starts a server like newChatServer's (anthropic, the fake
// model), with the model calls through a gate and retry the wait before
// each of the two retries of a transient failure.
func newEngine(t *testing.T, retry time.Duration, mutate ...func(*profiles.Settings)) *engine {
	t.Helper()
	fake := fakellm.Start(t)
	g := startGate(t, fake.URL)
	settings := profiles.DefaultSettings()
	settings.DefaultModel = "anthropic/fake-model"
	settings.TitleModel = "anthropic/fake-title"
	settings.Providers = map[string]profiles.Provider{"anthropic": {BaseURL: g.url, APIKeyEnv: "FAKE_KEY"}}
	for _, m := range mutate {
		m(&settings)
	}
	getenv := func(k string) string {
		if k == "FAKE_KEY" {
			return "sk-test"
		}
		return ""
	}
	dir := t.TempDir()
	ss, err := session.Open(filepath.Join(dir, "session"), session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	im, err := session.OpenImages(filepath.Join(dir, "images"))
	if err != nil {
		t.Fatal(err)
	}
	opts := server.Options{
		Profile: "test", Sessions: ss, Images: im, Token: testToken, Cwd: dir,
		DefaultModel: settings.DefaultModel, Settings: profiles.NewLiveSettings(settings),
		Models:        llm.NewRegistry(settings, getenv, im),
		WatchInterval: 50 * time.Millisecond, Heartbeat: 100 * time.Millisecond,
		RetryDelays: []time.Duration{retry, retry},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(opts, ln)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go srv.Serve(ctx, ln)
	t.Cleanup(func() {
		cancel()
		sctx, c := context.WithTimeout(context.Background(), 5*time.Second)
		defer c()
		srv.Shutdown(sctx)
	})
	ts := &testServer{t: t, url: srv.URL(), host: strings.TrimPrefix(srv.URL(), "http://"), dir: dir, sessions: ss, images: im}
	return &engine{chatServer: &chatServer{testServer: ts, fake: fake}, gate: g, srv: srv}
}

func bashAllowed(s *profiles.Settings) { s.Approvals.Bash = profiles.ApprovalAllow }

// call sends a request without failing the test (it may run in any
// goroutine) and returns the status and the body; status 0 is a failed
// request.
func (ts *testServer) call(method, path, body string) (int, string) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, ts.url+path, rd)
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func messageBody(text string, queue bool) string {
	b, _ := json.Marshal(map[string]any{"text": text, "queue": queue})
	return string(b)
}

// untilStatus collects events up to and including the status event that
// says want.
func untilStatus(st *stream, want string) []sseEvent {
	st.t.Helper()
	var got []sseEvent
	deadline := time.Now().Add(60 * time.Second) // a guard against a session that never settles
	for {
		evs := st.until("status")
		got = append(got, evs...)
		if data(st.t, evs[len(evs)-1])["status"] == want {
			return got
		}
		if time.Now().After(deadline) {
			st.t.Fatalf("no status %q; got %v", want, trace(st.t, got))
		}
	}
}

// untilTurnRests collects events until the status that follows the
// turn's end: idle, or archived for a session archived while its turn ran
// (its tabs stay read-only). seen are the events already taken from st,
// which may hold the turn's end.
func untilTurnRests(st *stream, seen []sseEvent) []sseEvent {
	st.t.Helper()
	ended := slices.ContainsFunc(seen, func(ev sseEvent) bool { return ev.name == "turn.end" })
	var got []sseEvent
	for {
		name := "status"
		if !ended {
			name = "turn.end"
		}
		got = append(got, st.until(name)...)
		if ended {
			return got
		}
		ended = true
	}
}

// untilTurnsEnd collects events until n turns ended and the session is
// idle (a released slot handed to a queued message says no idle).
func untilTurnsEnd(st *stream, n int) []sseEvent {
	st.t.Helper()
	var got []sseEvent
	for range n {
		got = append(got, st.until("turn.end")...)
	}
	return append(got, untilStatus(st, "idle")...)
}

// trace is the story the events tell, in order: statuses (a repeat of the
// same one dropped), turns, messages by role, tools and compactions. Deltas
// and gauges are left out.
func trace(t *testing.T, evs []sseEvent) []string {
	t.Helper()
	var out []string
	for _, ev := range evs {
		var s string
		switch ev.name {
		case "status":
			s = "status:" + data(t, ev)["status"].(string)
		case "message.end":
			s = "message.end:" + data(t, ev)["role"].(string)
		case "turn.end":
			s = "turn.end:" + data(t, ev)["stop_reason"].(string)
		case "compaction.end":
			s = fmt.Sprintf("compaction.end:%v", data(t, ev)["ok"])
		case "turn.start", "turn.error", "tool.start", "tool.approval", "tool.end", "compaction.start", "thread.new", "queued", "message.discard":
			s = ev.name
		default:
			continue
		}
		if len(out) > 0 && strings.HasPrefix(s, "status:") && out[len(out)-1] == s {
			continue
		}
		out = append(out, s)
	}
	return out
}

func wantTrace(t *testing.T, evs []sseEvent, want ...string) {
	t.Helper()
	if got := trace(t, evs); !slices.Equal(got, want) {
		t.Errorf("events:\n got  %v\n want %v", got, want)
	}
}

// oneTurnAtATime checks that no turn starts before the one before it
// ended, and that each turn.end names the turn that started; it returns
// the turns' messages (turn.start's message) in order.
func oneTurnAtATime(t *testing.T, evs []sseEvent) []string {
	t.Helper()
	var running string
	var started []string
	for _, ev := range evs {
		switch ev.name {
		case "turn.start":
			d := data(t, ev)
			if running != "" {
				t.Errorf("turn %v started while turn %s ran", d["turn"], running)
			}
			running = d["turn"].(string)
			started = append(started, d["message"].(string))
		case "turn.end":
			d := data(t, ev)
			if d["turn"] != running {
				t.Errorf("turn.end of %v, but the turn running is %q", d["turn"], running)
			}
			running = ""
		case "compaction.start":
			// A manual compaction holds the slot like a turn; a mid-turn
			// one runs inside its turn. Neither may start while another
			// manual compaction runs: checked by compaction.end pairing.
		}
	}
	if running != "" {
		t.Errorf("turn %s never ended", running)
	}
	return started
}

// settled loads the session's document once it stands still: two loads in
// a row agree (a fold of the journal may be writing it in the background).
func settled(t *testing.T, ss *session.Store, id string) *session.Document {
	t.Helper()
	var last []byte
	for i := 0; ; i++ {
		doc, err := ss.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		b, err := session.Encode(doc)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(b, last) {
			return doc
		}
		if i > 200 {
			t.Fatalf("the document of %s keeps changing", id)
		}
		last = b
	}
}

// own is a thread's messages without the copies it carried from its
// predecessor.
func own(th session.Thread) []session.Message {
	return th.Messages[min(th.Carried, len(th.Messages)):]
}

// wellFormed checks the document's invariants: every tool call is
// answered by the next message, every outcome answers a call of the
// message before, and nothing waits in the queue.
func wellFormed(t *testing.T, doc *session.Document) {
	t.Helper()
	for ti, th := range doc.Threads {
		msgs := th.Messages
		for i, m := range msgs {
			var uses, results []string
			for _, b := range m.Content {
				switch b.Type {
				case session.BlockToolUse:
					uses = append(uses, b.ID)
				case session.BlockToolResult:
					results = append(results, b.ToolUseID)
				}
			}
			if len(uses) > 0 && m.ReplacedBy == "" {
				if i+1 >= len(msgs) || !slices.Equal(toolResults(msgs[i+1]), uses) {
					t.Errorf("thread %d message %d: tool calls %v without their outcomes", ti, i, uses)
				}
			}
			if len(results) > 0 && (i == 0 || !slices.Equal(toolCalls(msgs[i-1]), results)) {
				t.Errorf("thread %d message %d: outcomes %v answer no call before them", ti, i, results)
			}
		}
	}
	if len(doc.Queued) != 0 {
		t.Errorf("%d messages still queued: %+v", len(doc.Queued), doc.Queued)
	}
}

func toolCalls(m session.Message) []string {
	var ids []string
	for _, b := range m.Content {
		if b.Type == session.BlockToolUse {
			ids = append(ids, b.ID)
		}
	}
	return ids
}

func toolResults(m session.Message) []string {
	var ids []string
	for _, b := range m.Content {
		if b.Type == session.BlockToolResult {
			ids = append(ids, b.ToolUseID)
		}
	}
	return ids
}

// humanTexts lists the person's messages of the document in order, each
// once (carried copies left out).
func humanTexts(doc *session.Document) []string {
	var out []string
	for _, th := range doc.Threads {
		for _, m := range own(th) {
			if m.Human {
				out = append(out, textOf(m))
			}
		}
	}
	return out
}

// chatCalls counts the turns' model calls the fake received (titles and
// summaries left out).
func chatCalls(fake *fakellm.Server) int {
	n := 0
	for _, r := range fake.Requests() {
		if callKind(r.Body) == callChat {
			n++
		}
	}
	return n
}

// idleNow checks, through a fresh event stream's snapshot, that the
// session is idle with nothing pending.
func idleNow(t *testing.T, ts *testServer, id string) {
	t.Helper()
	resp := ts.do("GET", "/api/sessions/"+id+"/events", nil)
	wantStatus(t, resp, http.StatusOK)
	events := make(chan sseEvent, 64)
	go readEvents(t, resp.Body, events)
	snap := data(t, nextEvent(t, events, "snapshot"))
	if snap["status"] != "idle" || snap["turn"] != nil || len(snap["approvals"].([]any)) != 0 || len(snap["queued"].([]any)) != 0 {
		t.Errorf("not idle: snapshot %v", snap)
	}
	resp.Body.Close()
}

// stillWorks sends one more message and checks it is answered: nothing of
// the last turn is left holding the session.
func stillWorks(t *testing.T, ts *testServer, st *stream, id string) {
	t.Helper()
	wantStatus(t, ts.send(id, "[[say:still here]]"), http.StatusAccepted)
	evs := untilStatus(st, "idle")
	if !slices.Contains(trace(t, evs), "turn.end:end_turn") {
		t.Errorf("the next message did not run: %v", trace(t, evs))
	}
}

// lastToolResult finds the outcome of the session's last tool call.
func lastToolResult(t *testing.T, doc *session.Document) session.Block {
	t.Helper()
	for ti := len(doc.Threads) - 1; ti >= 0; ti-- {
		msgs := doc.Threads[ti].Messages
		for i := len(msgs) - 1; i >= 0; i-- {
			for _, b := range msgs[i].Content {
				if b.Type == session.BlockToolResult {
					return b
				}
			}
		}
	}
	t.Fatal("no tool result in the document")
	return session.Block{}
}

func resultText(b session.Block) string {
	var s string
	if json.Unmarshal(b.Content, &s) != nil {
		return string(b.Content)
	}
	return s
}

// ---- one test per transition ----

// idle → thinking (submit) → release → idle.
func TestTransitionSubmit(t *testing.T) {
	t.Parallel()
	e := newEngine(t, 10*time.Millisecond)
	s := e.create("submit")
	st := e.stream(t, s.ID)
	resp := e.send(s.ID, "hello [[say:hi there]]")
	wantStatus(t, resp, http.StatusAccepted)
	turn := decode[map[string]string](t, resp)["turn"]
	evs := untilStatus(st, "idle")
	wantTrace(t, evs, "message.end:user", "turn.start", "status:thinking", "status:writing", "message.end:assistant", "turn.end:end_turn", "status:idle")
	started := oneTurnAtATime(t, evs)
	doc := settled(t, e.sessions, s.ID)
	wellFormed(t, doc)
	msgs := doc.Threads[0].Messages
	if len(msgs) != 2 || !msgs[0].Human || textOf(msgs[1]) != "hi there" || msgs[1].StopReason != "end_turn" {
		t.Fatalf("thread %+v", msgs)
	}
	for _, ev := range evs {
		if ev.name == "turn.start" && data(t, ev)["turn"] != turn {
			t.Errorf("turn.start %s, the 202 said turn %s", ev.data, turn)
		}
	}
	if len(started) != 1 || started[0] != msgs[0].ID {
		t.Errorf("turn.start names messages %v, want the person's %s", started, msgs[0].ID)
	}
	if n := chatCalls(e.fake); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
}

// idle → thinking (retry): the answer it replaces stays, marked, and the
// model no longer sees it. A retry is refused while a turn runs, and when
// nothing was sent yet.
func TestTransitionRetry(t *testing.T) {
	t.Parallel()
	e := newEngine(t, 10*time.Millisecond)
	s := e.create("retry")
	st := e.stream(t, s.ID)
	wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/retry", nil), http.StatusBadRequest)

	wantStatus(t, e.send(s.ID, "again [[say:same answer]]"), http.StatusAccepted)
	untilStatus(st, "idle")
	held := e.gate.hold(callChat)
	resp := e.do("POST", "/api/sessions/"+s.ID+"/retry", nil)
	wantStatus(t, resp, http.StatusAccepted)
	turn := decode[map[string]string](t, resp)["turn"]
	held.wait(t)
	wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/retry", nil), http.StatusConflict)
	held.let()
	evs := untilStatus(st, "idle")
	// The replaced answer is sent again as it now stands (marked), then
	// the retry's turn runs.
	wantTrace(t, evs, "message.end:assistant", "turn.start", "status:thinking", "status:writing", "message.end:assistant", "turn.end:end_turn", "status:idle")
	doc := settled(t, e.sessions, s.ID)
	wellFormed(t, doc)
	msgs := doc.Threads[0].Messages
	if len(msgs) != 3 || !msgs[0].Human || msgs[1].ReplacedBy != msgs[2].ID || msgs[2].ReplacedBy != "" || textOf(msgs[2]) != "same answer" {
		t.Fatalf("after a retry: %+v", msgs)
	}
	if humanTexts(doc)[0] != "again [[say:same answer]]" || len(humanTexts(doc)) != 1 {
		t.Errorf("the retry sent the message again: %q", humanTexts(doc))
	}
	for _, ev := range evs {
		if ev.name == "turn.start" {
			if d := data(t, ev); d["turn"] != turn || d["message"] != msgs[0].ID {
				t.Errorf("turn.start %v, want turn %s for message %s", d, turn, msgs[0].ID)
			}
		}
	}
	reqs := e.fake.Requests()
	last := reqs[len(reqs)-1]
	if callKind(last.Body) != callChat || len(last.JSON["messages"].([]any)) != 1 {
		t.Errorf("the retry's call sent %v messages, want the person's alone", len(last.JSON["messages"].([]any)))
	}
}

// thinking → tool → thinking: the model asks for a command, it runs, and
// the round's outcome goes back to the model.
func TestTransitionTool(t *testing.T) {
	t.Parallel()
	e := newEngine(t, 10*time.Millisecond, bashAllowed)
	s := e.create("tool")
	st := e.stream(t, s.ID)
	wantStatus(t, e.send(s.ID, `[[tool:bash {"command":"echo tool-ran"}]]`), http.StatusAccepted)
	evs := untilStatus(st, "idle")
	wantTrace(t, evs, "message.end:user", "turn.start", "status:thinking", "status:writing", "message.end:assistant",
		"tool.start", "status:tool", "tool.end", "message.end:user", "status:thinking", "status:writing", "message.end:assistant",
		"turn.end:end_turn", "status:idle")
	doc := settled(t, e.sessions, s.ID)
	wellFormed(t, doc)
	res := lastToolResult(t, doc)
	if !strings.Contains(resultText(res), "tool-ran") || res.IsError || res.Interrupted {
		t.Errorf("tool result %+v", res)
	}
	if got := textOf(lastMessage(t, e.sessions, s.ID)); !strings.Contains(got, "tool-ran") {
		t.Errorf("the answer %q does not quote the outcome", got)
	}
	if n := chatCalls(e.fake); n != 2 {
		t.Errorf("%d model calls, want 2 (the call, then the round's outcome)", n)
	}
}

// tool → approval → tool (allow) or on to thinking (deny).
func TestTransitionApproval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		decision string
		trace    []string
		output   string
		isError  bool
	}{
		{"once", []string{"status:tool", "tool.end", "message.end:user", "status:thinking"}, "approved-ran", false},
		// A denial runs nothing: its outcome is recorded and the next model
		// call follows, without the tool state in between. (doc.go's table
		// says "allow or deny → tool".)
		{"deny", []string{"tool.end", "message.end:user", "status:thinking"}, "denied", true},
	}
	e := newEngine(t, 10*time.Millisecond)
	for _, tt := range tests {
		t.Run(tt.decision, func(t *testing.T) {
			s := e.create(tt.decision)
			st := e.stream(t, s.ID)
			wantStatus(t, e.send(s.ID, `[[tool:bash {"command":"echo approved-ran"}]]`), http.StatusAccepted)
			evs := st.until("tool.approval")
			before := trace(t, evs)
			if want := []string{"message.end:user", "turn.start", "status:thinking", "status:writing", "message.end:assistant", "tool.start", "status:approval", "tool.approval"}; !slices.Equal(before, want) {
				t.Errorf("before the decision:\n got  %v\n want %v", before, want)
			}
			id := data(t, evs[len(evs)-1])["tool_use_id"].(string)
			wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/approvals/"+id, strings.NewReader(`{"decision":"`+tt.decision+`"}`)), http.StatusOK)
			wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/approvals/"+id, strings.NewReader(`{"decision":"once"}`)), http.StatusConflict)
			evs = untilStatus(st, "idle")
			got := trace(t, evs)
			if len(got) < len(tt.trace) || !slices.Equal(got[:len(tt.trace)], tt.trace) {
				t.Errorf("after the decision:\n got  %v\n want %v…", got, tt.trace)
			}
			doc := settled(t, e.sessions, s.ID)
			wellFormed(t, doc)
			res := lastToolResult(t, doc)
			if !strings.Contains(resultText(res), tt.output) || res.IsError != tt.isError || res.Interrupted {
				t.Errorf("tool result %+v", res)
			}
		})
	}
}

// thinking → retrying → thinking: a transient failure is retried.
func TestTransitionRetrying(t *testing.T) {
	t.Parallel()
	e := newEngine(t, 10*time.Millisecond)
	s := e.create("retrying")
	st := e.stream(t, s.ID)
	wantStatus(t, e.send(s.ID, "[[fault:529x1]] [[say:made it]]"), http.StatusAccepted)
	evs := untilStatus(st, "idle")
	wantTrace(t, evs, "message.end:user", "turn.start", "status:thinking", "message.discard", "status:retrying", "status:thinking", "status:writing",
		"message.end:assistant", "turn.end:end_turn", "status:idle")
	doc := settled(t, e.sessions, s.ID)
	wellFormed(t, doc)
	if msgs := doc.Threads[0].Messages; len(msgs) != 2 || textOf(msgs[1]) != "made it" {
		t.Errorf("thread %+v", msgs)
	}
	if n := chatCalls(e.fake); n != 2 {
		t.Errorf("%d model calls, want the failed one and its retry", n)
	}
}

// tool → compacting → thinking: over the threshold between tool rounds,
// the turn compacts and goes on in the successor thread; after its answer
// it compacts once more (compacting → release).
func TestTransitionMidTurnCompaction(t *testing.T) {
	t.Parallel()
	e := newEngine(t, 10*time.Millisecond, compactAt(5000))
	s := e.create("midturn")
	st := e.stream(t, s.ID)
	wantStatus(t, e.send(s.ID, `[[steps: tool:bash {"command":"echo one"} ;; say:all done]] [[usage:in=6000,out=10]]`), http.StatusAccepted)
	evs := untilStatus(st, "idle")
	wantTrace(t, evs, "message.end:user", "turn.start", "status:thinking", "status:writing", "message.end:assistant",
		"tool.start", "status:tool", "tool.end", "message.end:user",
		"compaction.start", "status:compacting", "thread.new", "compaction.end:true",
		"message.end:user", // the note that asks the agent to go on
		"status:thinking", "status:writing", "message.end:assistant",
		"compaction.start", "status:compacting", "thread.new", "compaction.end:true",
		"turn.end:end_turn", "status:idle")
	oneTurnAtATime(t, evs)
	doc := settled(t, e.sessions, s.ID)
	wellFormed(t, doc)
	if len(doc.Threads) != 3 {
		t.Fatalf("%d threads, want 3 (one compaction between rounds, one after the answer)", len(doc.Threads))
	}
	if got := textOf(own(doc.Threads[1])[len(own(doc.Threads[1]))-1]); got != "all done" {
		t.Errorf("the turn did not go on to its answer in the successor: %q", got)
	}
	if got := humanTexts(doc); len(got) != 1 {
		t.Errorf("the person's messages %q", got)
	}
}

// idle → compacting → idle: a manual compaction holds the slot and runs
// no turn.
func TestTransitionManualCompaction(t *testing.T) {
	t.Parallel()
	e := newEngine(t, 10*time.Millisecond)
	s := e.create("manual")
	st := e.stream(t, s.ID)
	wantStatus(t, e.send(s.ID, "[[say:ok]]"), http.StatusAccepted)
	untilStatus(st, "idle")
	wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/compact", nil), http.StatusOK)
	evs := untilStatus(st, "idle")
	wantTrace(t, evs, "compaction.start", "status:compacting", "thread.new", "compaction.end:true", "status:idle")
	doc := settled(t, e.sessions, s.ID)
	wellFormed(t, doc)
	if len(doc.Threads) != 2 || !strings.HasPrefix(doc.Threads[1].Summary, "Summary:") {
		t.Fatalf("threads %+v", doc.Threads)
	}
	if n := chatCalls(e.fake); n != 1 {
		t.Errorf("%d turn calls, want only the first turn's", n)
	}
}

// any busy state → stopping → idle: a stop ends the turn at once from
// every busy state, keeps every call with an outcome, and the session
// takes the next message.
func TestTransitionStop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		retry  time.Duration
		mutate func(*profiles.Settings)
		// reach starts the work and returns once the session is in the
		// state; it returns the events so far and how the stop is to end
		// the work it interrupts ("" for a manual compaction).
		reach func(t *testing.T, e *engine, st *stream, id string) []sseEvent
		state string
		end   string
	}{
		{"thinking", time.Millisecond, nil, func(t *testing.T, e *engine, st *stream, id string) []sseEvent {
			h := e.gate.hold(callChat)
			wantStatus(t, e.send(id, "[[say:never]]"), http.StatusAccepted)
			h.wait(t)
			return untilStatus(st, "thinking")
		}, "thinking", "turn.end:interrupted"},
		{"retrying", time.Hour, nil, func(t *testing.T, e *engine, st *stream, id string) []sseEvent {
			wantStatus(t, e.send(id, "[[fault:529]]"), http.StatusAccepted)
			return untilStatus(st, "retrying")
		}, "retrying", "turn.end:interrupted"},
		{"tool", time.Millisecond, bashAllowed, func(t *testing.T, e *engine, st *stream, id string) []sseEvent {
			wantStatus(t, e.send(id, `[[tool:bash {"command":"sleep 30; echo never"}]]`), http.StatusAccepted)
			return untilStatus(st, "tool")
		}, "tool", "turn.end:interrupted"},
		{"approval", time.Millisecond, nil, func(t *testing.T, e *engine, st *stream, id string) []sseEvent {
			wantStatus(t, e.send(id, `[[tool:bash {"command":"echo never"}]]`), http.StatusAccepted)
			return st.until("tool.approval")
		}, "approval", "turn.end:interrupted"},
		{"compacting mid-turn", time.Millisecond, compactAt(5000), func(t *testing.T, e *engine, st *stream, id string) []sseEvent {
			h := e.gate.hold(callSummary)
			wantStatus(t, e.send(id, `[[steps: tool:bash {"command":"echo one"} ;; say:never]] [[usage:in=6000,out=10]]`), http.StatusAccepted)
			h.wait(t)
			return untilStatus(st, "compacting")
		}, "compacting", "turn.end:interrupted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mutate []func(*profiles.Settings)
			if tt.mutate != nil {
				mutate = append(mutate, tt.mutate)
			}
			e := newEngine(t, tt.retry, mutate...)
			s := e.create(tt.name)
			st := e.stream(t, s.ID)
			evs := tt.reach(t, e, st, s.ID)
			wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/stop", nil), http.StatusOK)
			evs = append(evs, untilStatus(st, "idle")...)
			wantStopped(t, evs, tt.state, tt.end)
			oneTurnAtATime(t, evs)
			doc := settled(t, e.sessions, s.ID)
			wellFormed(t, doc)
			for _, th := range doc.Threads {
				for _, m := range th.Messages {
					if strings.Contains(textOf(m), "never") && !m.Human {
						t.Errorf("the stopped work went on: %+v", m)
					}
				}
			}
			if tt.name == "compacting mid-turn" && len(doc.Threads) != 1 {
				t.Errorf("a stopped compaction left %d threads", len(doc.Threads))
			}
			idleNow(t, e.testServer, s.ID)
			if tt.name != "retrying" {
				// (The fake merges the two person's messages in a row that
				// a stopped unanswered turn leaves, so it would fail the
				// next call again: the fault is in the merged text.)
				stillWorks(t, e.testServer, st, s.ID)
			}
		})
	}
}

// wantStopped checks that the events show the state, then stopping, and
// after it nothing but the work's end and idle: no other state, no new
// turn, no tool run.
func wantStopped(t *testing.T, evs []sseEvent, state, end string) {
	t.Helper()
	got := trace(t, evs)
	i, j := slices.Index(got, "status:"+state), slices.Index(got, "status:stopping")
	if i < 0 || j < i || got[len(got)-1] != "status:idle" || (end != "" && got[len(got)-2] != end) {
		t.Errorf("events %v: want %s, then stopping, %s, idle", got, state, end)
		return
	}
	for _, s := range got[j+1 : len(got)-1] {
		if strings.HasPrefix(s, "status:") || s == "turn.start" || s == "tool.start" || s == "compaction.start" {
			t.Errorf("events %v: %s after the stop", got, s)
		}
	}
}

// compacting (manual) → stopping → idle: the summary call is cancelled and
// nothing changes.
func TestTransitionStopManualCompaction(t *testing.T) {
	t.Parallel()
	e := newEngine(t, time.Millisecond)
	s := e.create("stop compaction")
	st := e.stream(t, s.ID)
	wantStatus(t, e.send(s.ID, "[[say:ok]]"), http.StatusAccepted)
	untilStatus(st, "idle")
	h := e.gate.hold(callSummary)
	compacted := make(chan int, 1)
	go func() {
		code, body := e.call("POST", "/api/sessions/"+s.ID+"/compact", "")
		t.Logf("compact answered %d %s", code, body)
		compacted <- code
	}()
	h.wait(t)
	evs := untilStatus(st, "compacting")
	wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/stop", nil), http.StatusOK)
	evs = append(evs, untilStatus(st, "idle")...)
	wantTrace(t, evs, "compaction.start", "status:compacting", "status:stopping", "compaction.end:false", "status:idle")
	if code := <-compacted; code != http.StatusConflict {
		// Not 502: the model did not fail, the person stopped it.
		t.Errorf("a compaction the person stopped answered %d, want 409", code)
	}
	doc := settled(t, e.sessions, s.ID)
	wellFormed(t, doc)
	if len(doc.Threads) != 1 {
		t.Errorf("a stopped compaction left %d threads", len(doc.Threads))
	}
	idleNow(t, e.testServer, s.ID)
	stillWorks(t, e.testServer, st, s.ID)
}

// release hands the slot to the next queued message: each queued message
// runs once, in order, with no idle in between.
func TestTransitionReleaseHandsOverTheQueue(t *testing.T) {
	t.Parallel()
	e := newEngine(t, 10*time.Millisecond)
	s := e.create("queue")
	st := e.stream(t, s.ID)
	h := e.gate.hold(callChat)
	wantStatus(t, e.send(s.ID, "one [[say:answer one]]"), http.StatusAccepted)
	h.wait(t)
	for _, text := range []string{"two [[say:answer two]]", "three [[say:answer three]]"} {
		resp := e.do("POST", "/api/sessions/"+s.ID+"/messages", strings.NewReader(messageBody(text, true)))
		wantStatus(t, resp, http.StatusAccepted)
		if q := decode[map[string]string](t, resp); q["queued"] == "" || q["turn"] != "" {
			t.Errorf("answer to a queued message %v", q)
		}
	}
	h.let()
	evs := untilTurnsEnd(st, 3)
	started := oneTurnAtATime(t, evs)
	got := trace(t, evs)
	if n := strings.Count(strings.Join(got, " "), "status:idle"); n != 1 || got[len(got)-1] != "status:idle" {
		t.Errorf("idle between handed-over turns: %v", got)
	}
	doc := settled(t, e.sessions, s.ID)
	wellFormed(t, doc)
	var pairs []string
	msgs := doc.Threads[0].Messages
	for _, m := range msgs {
		pairs = append(pairs, m.Role+":"+textOf(m))
	}
	want := []string{"user:one [[say:answer one]]", "assistant:answer one", "user:two [[say:answer two]]", "assistant:answer two", "user:three [[say:answer three]]", "assistant:answer three"}
	if !slices.Equal(pairs, want) {
		t.Fatalf("thread:\n got  %q\n want %q", pairs, want)
	}
	if len(started) != 3 || started[0] != msgs[0].ID || started[1] != msgs[2].ID || started[2] != msgs[4].ID {
		t.Errorf("turns started for %v", started)
	}
	if n := chatCalls(e.fake); n != 3 {
		t.Errorf("%d model calls, want 3", n)
	}
}

// A message queued during a manual compaction runs after it, in the
// successor thread; everything else sent meanwhile is refused.
func TestTransitionQueueDuringCompaction(t *testing.T) {
	t.Parallel()
	e := newEngine(t, 10*time.Millisecond)
	s := e.create("compaction queue")
	st := e.stream(t, s.ID)
	wantStatus(t, e.send(s.ID, "first [[say:ok]]"), http.StatusAccepted)
	untilStatus(st, "idle")
	h := e.gate.hold(callSummary)
	compacted := make(chan int, 1)
	go func() {
		code, _ := e.call("POST", "/api/sessions/"+s.ID+"/compact", "")
		compacted <- code
	}()
	h.wait(t)
	wantStatus(t, e.send(s.ID, "refused"), http.StatusConflict)
	wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/retry", nil), http.StatusConflict)
	wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/compact", nil), http.StatusConflict)
	wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/messages", strings.NewReader(messageBody("queued [[say:after]]", true))), http.StatusAccepted)
	h.let()
	if code := <-compacted; code != http.StatusOK {
		t.Errorf("compact answered %d", code)
	}
	evs := untilTurnsEnd(st, 1)
	got := trace(t, evs)
	end := slices.Index(got, "compaction.end:true")
	if end < 0 || end+1 >= len(got) || got[end+1] == "status:idle" || slices.Index(got, "turn.start") < end {
		t.Errorf("events %v: want the queued turn right after the compaction", got)
	}
	doc := settled(t, e.sessions, s.ID)
	wellFormed(t, doc)
	if len(doc.Threads) != 2 {
		t.Fatalf("%d threads", len(doc.Threads))
	}
	if got := humanTexts(doc); !slices.Equal(got, []string{"first [[say:ok]]", "queued [[say:after]]"}) {
		t.Errorf("the person's messages %q", got)
	}
	if m := own(doc.Threads[1]); len(m) != 2 || textOf(m[1]) != "after" {
		t.Errorf("successor's own messages %+v", m)
	}
}

// archive while busy: the turn finishes, then the files move; nothing new
// is accepted meanwhile or after.
func TestTransitionArchiveWhileBusy(t *testing.T) {
	t.Parallel()
	e := newEngine(t, 10*time.Millisecond)
	s := e.create("archive")
	st := e.stream(t, s.ID)
	h := e.gate.hold(callChat)
	wantStatus(t, e.send(s.ID, "[[say:finished]]"), http.StatusAccepted)
	h.wait(t)
	wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/archive", nil), http.StatusOK)
	wantStatus(t, e.send(s.ID, "refused"), http.StatusConflict)
	wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/messages", strings.NewReader(messageBody("refused too", true))), http.StatusConflict)
	wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/retry", nil), http.StatusConflict)
	if archived, _ := e.sessions.IsArchived(s.ID); archived {
		t.Error("the files moved while the turn ran")
	}
	h.let()
	evs := st.until("turn.end")
	evs = append(evs, untilStatus(st, "archived")...)
	// The tabs stay read-only: the end of the turn says archived again,
	// not idle (which would offer a composer whose messages are refused).
	wantTrace(t, evs, "message.end:user", "turn.start", "status:thinking", "status:archived", "message.end:assistant", "turn.end:end_turn", "status:archived")
	waitArchived(t, e.testServer, s.ID)
	doc := settled(t, e.sessions, s.ID)
	wellFormed(t, doc)
	if !doc.Archived || textOf(doc.Threads[0].Messages[len(doc.Threads[0].Messages)-1]) != "finished" || len(humanTexts(doc)) != 1 {
		t.Errorf("archived %v, messages %+v", doc.Archived, doc.Threads[0].Messages)
	}
	wantStatus(t, e.send(s.ID, "after"), http.StatusConflict)
}

// waitArchived waits for the session's files to be in session/archived/
// and gone from session/.
func waitArchived(t *testing.T, ts *testServer, id string) {
	t.Helper()
	waitFor(t, "the files to move into the archive", func() bool {
		_, errA := os.Stat(filepath.Join(ts.dir, "session", "archived", id+".json"))
		_, errS := os.Stat(filepath.Join(ts.dir, "session", id+".json"))
		return errA == nil && os.IsNotExist(errS)
	})
}

// restore of a pending archive: the mark goes, the turn goes on, the
// session takes messages again and its files never move.
func TestTransitionRestorePendingArchive(t *testing.T) {
	t.Parallel()
	e := newEngine(t, 10*time.Millisecond)
	s := e.create("restore")
	st := e.stream(t, s.ID)
	h := e.gate.hold(callChat)
	wantStatus(t, e.send(s.ID, "[[say:finished]]"), http.StatusAccepted)
	h.wait(t)
	wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/archive", nil), http.StatusOK)
	wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/restore", nil), http.StatusOK)
	wantStatus(t, e.send(s.ID, "refused: a turn runs"), http.StatusConflict)
	wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/messages", strings.NewReader(messageBody("queued [[say:second]]", true))), http.StatusAccepted)
	h.let()
	evs := untilTurnsEnd(st, 2)
	got := trace(t, evs)
	if i := slices.Index(got, "status:archived"); i < 0 || got[i+1] != "status:thinking" {
		t.Errorf("events %v: want archived, then thinking again on restore", got)
	}
	if len(oneTurnAtATime(t, evs)) != 2 {
		t.Errorf("turns %v", got)
	}
	doc := settled(t, e.sessions, s.ID)
	wellFormed(t, doc)
	if archived, _ := e.sessions.IsArchived(s.ID); archived || doc.Archived {
		t.Errorf("restored, yet archived: files %v, mark %v", archived, doc.Archived)
	}
	sums, err := e.sessions.List(session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := findSummary(sums, s.ID); !ok {
		t.Error("a restored session is not listed")
	}
	stillWorks(t, e.testServer, st, s.ID)
}

// Restoring a live session that is not archived is refused, and leaves its
// running turn alone.
func TestRestoreOfABusySessionNotArchivedLeavesItsTurn(t *testing.T) {
	t.Parallel()
	e := newEngine(t, 10*time.Millisecond)
	s := e.create("not archived")
	st := e.stream(t, s.ID)
	h := e.gate.hold(callChat)
	wantStatus(t, e.send(s.ID, "[[say:finished]]"), http.StatusAccepted)
	h.wait(t)
	wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/restore", nil), http.StatusConflict)
	h.let()
	evs := untilStatus(st, "idle")
	// (It once went through Exclusive, which closed the live session,
	// stopping its turn, before Store.Restore refused.)
	if got := trace(t, evs); !slices.Contains(got, "turn.end:end_turn") {
		t.Errorf("a refused restore cut the turn: %v", got)
	}
	doc := settled(t, e.sessions, s.ID)
	wellFormed(t, doc)
	if got := textOf(doc.Threads[0].Messages[len(doc.Threads[0].Messages)-1]); got != "finished" {
		t.Errorf("the turn's answer %q, want finished", got)
	}
}

// close: archiving an idle live session closes it at once (its lock goes
// with it); shutting down stops the turn and keeps a queued message as the
// person's, without running it.
func TestTransitionClose(t *testing.T) {
	t.Parallel()
	t.Run("archive idle", func(t *testing.T) {
		e := newEngine(t, 10*time.Millisecond)
		s := e.create("idle archive")
		st := e.stream(t, s.ID)
		wantStatus(t, e.send(s.ID, "[[say:ok]]"), http.StatusAccepted)
		untilStatus(st, "idle")
		wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/archive", nil), http.StatusOK)
		if archived, _ := e.sessions.IsArchived(s.ID); !archived {
			t.Fatal("an idle session was not archived at once")
		}
		wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/restore", nil), http.StatusOK)
		other, err := session.Open(filepath.Join(e.dir, "session"), session.Options{})
		if err != nil {
			t.Fatal(err)
		}
		l, err := other.Lock(s.ID, session.Owner{PID: 1})
		if err != nil {
			t.Fatalf("the closed session still holds its lock: %v", err)
		}
		l.Unlock()
	})
	t.Run("shutdown", func(t *testing.T) {
		e := newEngine(t, 10*time.Millisecond)
		s := e.create("shutdown")
		e.stream(t, s.ID)
		h := e.gate.hold(callChat)
		wantStatus(t, e.send(s.ID, "running [[say:never]]"), http.StatusAccepted)
		h.wait(t)
		wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/messages", strings.NewReader(messageBody("waiting [[say:never either]]", true))), http.StatusAccepted)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := e.srv.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		doc := settled(t, e.sessions, s.ID)
		wellFormed(t, doc)
		if got := humanTexts(doc); !slices.Equal(got, []string{"running [[say:never]]", "waiting [[say:never either]]"}) {
			t.Errorf("the person's messages after shutdown %q", got)
		}
		for _, m := range doc.Threads[0].Messages {
			if !m.Human && strings.Contains(textOf(m), "never") {
				t.Errorf("a turn ran on: %+v", m)
			}
		}
		if n := chatCalls(e.fake); n != 0 {
			t.Errorf("%d model calls reached the fake; the queued message must not run", n)
		}
		l, err := e.sessions.Lock(s.ID, session.Owner{PID: 1})
		if err != nil {
			t.Fatalf("the closed session still holds its lock: %v", err)
		}
		l.Unlock()
	})
}

// ---- races, each run many times ----

// raceRuns is how many times each race runs: 20, or 6 with -short (each
// race's points and decisions still all come once).
func raceRuns() int {
	if testing.Short() {
		return 6
	}
	return 20
}

// Stop during an approval, racing with the person's decision: whichever
// wins, the turn ends once, the call has one outcome, nothing is left
// pending, and the session takes the next message.
func TestRaceStopDuringApproval(t *testing.T) {
	t.Parallel()
	e := newEngine(t, 10*time.Millisecond)
	for i := range raceRuns() {
		decision := []string{"once", "deny", "session"}[i%3]
		t.Run(fmt.Sprintf("%d-%s", i, decision), func(t *testing.T) {
			s := e.create(fmt.Sprintf("approval race %d", i))
			st := e.stream(t, s.ID)
			wantStatus(t, e.send(s.ID, fmt.Sprintf(`[[tool:bash {"command":"echo ran-%d"}]]`, i)), http.StatusAccepted)
			evs := st.until("tool.approval")
			id := data(t, evs[len(evs)-1])["tool_use_id"].(string)
			var stopped, approved int
			start := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				<-start
				stopped, _ = e.call("POST", "/api/sessions/"+s.ID+"/stop", "")
			})
			wg.Go(func() {
				<-start
				approved, _ = e.call("POST", "/api/sessions/"+s.ID+"/approvals/"+id, `{"decision":"`+decision+`"}`)
			})
			close(start)
			wg.Wait()
			if (stopped != http.StatusOK && stopped != http.StatusConflict) || (approved != http.StatusOK && approved != http.StatusConflict) {
				t.Fatalf("stop %d, approval %d", stopped, approved)
			}
			if stopped != http.StatusOK && approved != http.StatusOK {
				t.Fatalf("both refused: stop %d, approval %d", stopped, approved)
			}
			evs = append(evs, untilStatus(st, "idle")...)
			if n := len(oneTurnAtATime(t, evs)); n != 1 {
				t.Errorf("%d turns", n)
			}
			doc := settled(t, e.sessions, s.ID)
			wellFormed(t, doc)
			res, out := lastToolResult(t, doc), ""
			out = resultText(res)
			switch {
			case approved != http.StatusOK: // the stop came first
				if !strings.HasPrefix(out, "Not run: the person stopped the turn.") || !res.Interrupted {
					t.Errorf("stopped before the decision, the outcome is %+v", res)
				}
			case strings.HasPrefix(out, "Not run"), strings.Contains(out, "denied"),
				strings.Contains(out, fmt.Sprintf("ran-%d", i)), strings.Contains(out, "[stopped by the person"):
			default:
				t.Errorf("outcome %q", out)
			}
			if approved == http.StatusOK && stopped == http.StatusConflict && slices.Contains(trace(t, evs), "status:stopping") {
				t.Errorf("a refused stop still stopped: %v", trace(t, evs))
			}
			idleNow(t, e.testServer, s.ID)
			stillWorks(t, e.testServer, st, s.ID)
		})
	}
}

// A message sent while a manual compaction may be running: the two race
// for the slot. Whichever wins, the other waits (queued) or is refused
// (409), they never overlap, and the message is kept once.
func TestRaceSubmitDuringCompaction(t *testing.T) {
	t.Parallel()
	e := newEngine(t, 10*time.Millisecond)
	for i := range raceRuns() {
		queue := i%2 == 0
		t.Run(fmt.Sprintf("%d-queue=%v", i, queue), func(t *testing.T) {
			s := e.create(fmt.Sprintf("compaction race %d", i))
			st := e.stream(t, s.ID)
			first := fmt.Sprintf("first %d [[say:ok]]", i)
			wantStatus(t, e.send(s.ID, first), http.StatusAccepted)
			evs := untilStatus(st, "idle")
			text := fmt.Sprintf("racing %d [[say:answered %d]]", i, i)
			var compacted, sent int
			var sentBody string
			start := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				<-start
				compacted, _ = e.call("POST", "/api/sessions/"+s.ID+"/compact", "")
			})
			wg.Go(func() {
				<-start
				sent, sentBody = e.call("POST", "/api/sessions/"+s.ID+"/messages", messageBody(text, queue))
			})
			close(start)
			wg.Wait()
			switch {
			case compacted != http.StatusOK && compacted != http.StatusConflict,
				sent != http.StatusAccepted && (queue || sent != http.StatusConflict),
				compacted == http.StatusConflict && sent != http.StatusAccepted:
				t.Fatalf("compact %d, message %d %s", compacted, sent, sentBody)
			}
			turns, compactions := 1, 0
			if sent == http.StatusAccepted {
				turns++
			}
			if compacted == http.StatusOK {
				compactions++
			}
			evs = append(evs, untilCounts(st, turns-1, compactions)...)
			oneTurnAtATime(t, evs)
			noOverlap(t, evs)
			doc := settled(t, e.sessions, s.ID)
			wellFormed(t, doc)
			want := []string{first}
			if sent == http.StatusAccepted {
				want = append(want, text)
			}
			if got := humanTexts(doc); !slices.Equal(got, want) {
				t.Errorf("the person's messages %q, want %q", got, want)
			}
			if len(doc.Threads) != 1+compactions {
				t.Errorf("%d threads after %d compactions", len(doc.Threads), compactions)
			}
			if strings.Contains(sentBody, "queued") && compacted == http.StatusOK {
				// Queued behind the compaction: it ran in the successor.
				if m := own(doc.Threads[len(doc.Threads)-1]); len(m) != 2 || textOf(m[0]) != text {
					t.Errorf("the queued message did not run after the compaction: %+v", m)
				}
			}
			idleNow(t, e.testServer, s.ID)
		})
	}
}

// untilCounts collects events until turns more turns and compactions
// manual compactions have ended and the session is idle again.
func untilCounts(st *stream, turns, compactions int) []sseEvent {
	st.t.Helper()
	var got []sseEvent
	for turns > 0 || compactions > 0 {
		select {
		case ev, ok := <-st.events:
			if !ok {
				st.t.Fatalf("stream ended; got %v", names(got))
			}
			got = append(got, ev)
			switch ev.name {
			case "turn.end":
				turns--
			case "compaction.end":
				compactions--
			}
		case <-time.After(30 * time.Second):
			st.t.Fatalf("waiting for %d turns and %d compactions; got %v", turns, compactions, names(got))
		}
	}
	return append(got, untilStatus(st, "idle")...)
}

// noOverlap checks that a manual compaction (one outside any turn) never
// runs while a turn or another compaction does.
func noOverlap(t *testing.T, evs []sseEvent) {
	t.Helper()
	inTurn, inCompaction := false, false
	for _, ev := range evs {
		switch ev.name {
		case "turn.start":
			if inCompaction {
				t.Errorf("a turn started during a compaction: %v", trace(t, evs))
			}
			inTurn = true
		case "turn.end":
			inTurn = false
		case "compaction.start":
			if inCompaction {
				t.Errorf("two compactions at once: %v", trace(t, evs))
			}
			inCompaction = !inTurn
		case "compaction.end":
			inCompaction = false
		}
	}
}

// Archive during a tool run, at every point of the turn: the command is
// not interrupted, its outcome is recorded, the turn ends with its answer,
// then the files move into session/archived/ and nothing new is taken.
func TestRaceArchiveDuringToolRun(t *testing.T) {
	t.Parallel()
	e := newEngine(t, 10*time.Millisecond, bashAllowed)
	points := []string{"", "turn.start", "tool.start", "tool.end", "message.end", "turn.end"}
	for i := range raceRuns() {
		point := points[i%len(points)]
		t.Run(fmt.Sprintf("%d-after-%s", i, point), func(t *testing.T) {
			s := e.create(fmt.Sprintf("archive race %d", i))
			st := e.stream(t, s.ID)
			wantStatus(t, e.send(s.ID, fmt.Sprintf(`[[tool:bash {"command":"sleep 0.1; echo done-%d"}]]`, i)), http.StatusAccepted)
			var evs []sseEvent
			if point != "" {
				evs = st.until(point)
				if point == "message.end" { // the answer after the tool round
					evs = append(evs, st.until("tool.end")...)
					evs = append(evs, st.until("message.end")...)
					evs = append(evs, st.until("message.end")...)
				}
			}
			switch code, body := e.call("POST", "/api/sessions/"+s.ID+"/archive", ""); {
			case code != http.StatusOK:
				// (Once: 409 "already archived" when the turn ended just
				// as the archive came, though it did archive.)
				t.Errorf("archive answered %d %s", code, body)
			}
			if code, _ := e.call("POST", "/api/sessions/"+s.ID+"/messages", messageBody("refused", true)); code != http.StatusConflict {
				t.Errorf("a message to an archived session answered %d", code)
			}
			evs = append(evs, untilTurnRests(st, evs)...)
			if n := len(oneTurnAtATime(t, evs)); n != 1 {
				t.Errorf("%d turns", n)
			}
			waitArchived(t, e.testServer, s.ID)
			doc := settled(t, e.sessions, s.ID)
			wellFormed(t, doc)
			res := lastToolResult(t, doc)
			if out := resultText(res); !strings.Contains(out, fmt.Sprintf("done-%d", i)) || res.IsError || res.Interrupted {
				t.Errorf("the command's outcome %+v", res)
			}
			if got := textOf(lastMessageOf(doc)); !strings.Contains(got, fmt.Sprintf("done-%d", i)) {
				t.Errorf("the turn's answer %q does not quote the outcome", got)
			}
			if !doc.Archived || len(humanTexts(doc)) != 1 {
				t.Errorf("archived %v, the person's messages %q", doc.Archived, humanTexts(doc))
			}
			wantStatus(t, e.send(s.ID, "after"), http.StatusConflict)
		})
	}
}

func lastMessageOf(doc *session.Document) session.Message {
	msgs := doc.Threads[len(doc.Threads)-1].Messages
	return msgs[len(msgs)-1]
}

// Many submissions at once: without queue exactly one starts a turn and
// the rest get 409; with queue all are accepted and each runs once, one
// turn at a time, each followed by its own answer.
func TestRaceSimultaneousSubmissions(t *testing.T) {
	t.Parallel()
	const n = 6
	e := newEngine(t, 10*time.Millisecond)
	for i := range raceRuns() {
		queue := i%2 == 1
		t.Run(fmt.Sprintf("%d-queue=%v", i, queue), func(t *testing.T) {
			s := e.create(fmt.Sprintf("submit race %d", i))
			st := e.stream(t, s.ID)
			before := chatCalls(e.fake)
			// The first turn's model call waits until every submission
			// is answered: a turn that ended first would rightly let a
			// later submission start another.
			h := e.gate.hold(callChat)
			codes := make([]int, n)
			texts := make([]string, n)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for k := range n {
				texts[k] = fmt.Sprintf("m%d-%d [[say:a%d-%d]]", i, k, i, k)
				wg.Go(func() {
					<-start
					codes[k], _ = e.call("POST", "/api/sessions/"+s.ID+"/messages", messageBody(texts[k], queue))
				})
			}
			close(start)
			wg.Wait()
			h.wait(t)
			h.let()
			var accepted []string
			for k, c := range codes {
				switch c {
				case http.StatusAccepted:
					accepted = append(accepted, texts[k])
				case http.StatusConflict:
					if queue {
						t.Errorf("a queued submission answered 409")
					}
				default:
					t.Errorf("submission answered %d", c)
				}
			}
			if !queue && len(accepted) != 1 {
				t.Fatalf("%d submissions accepted without queue, want 1", len(accepted))
			}
			if queue && len(accepted) != n {
				t.Fatalf("%d of %d queued submissions accepted", len(accepted), n)
			}
			evs := untilTurnsEnd(st, len(accepted))
			started := oneTurnAtATime(t, evs)
			doc := settled(t, e.sessions, s.ID)
			wellFormed(t, doc)
			msgs := doc.Threads[0].Messages
			var humans []string
			for j, m := range msgs {
				if !m.Human {
					continue
				}
				humans = append(humans, textOf(m))
				want := strings.Replace(strings.Fields(textOf(m))[0], "m", "a", 1)
				if j+1 >= len(msgs) || textOf(msgs[j+1]) != want {
					t.Errorf("message %q is not followed by its answer %q", textOf(m), want)
				}
				if len(started) > len(humans)-1 && started[len(humans)-1] != m.ID {
					t.Errorf("turn %d ran for %s, the thread has %s there", len(humans), started[len(humans)-1], m.ID)
				}
			}
			if !sameSet(humans, accepted) || len(started) != len(accepted) {
				t.Errorf("kept %q (%d turns), accepted %q", humans, len(started), accepted)
			}
			if got := chatCalls(e.fake) - before; got != len(accepted) {
				t.Errorf("%d model calls for %d messages", got, len(accepted))
			}
			idleNow(t, e.testServer, s.ID)
		})
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// Restore racing with the end of the turn whose archive is pending:
// whichever comes first, a restore that answered 200 leaves the session
// active, and it takes messages again.
func TestRaceRestoreAsTheTurnEnds(t *testing.T) {
	t.Parallel()
	e := newEngine(t, 10*time.Millisecond)
	for i := range raceRuns() {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			s := e.create(fmt.Sprintf("restore race %d", i))
			st := e.stream(t, s.ID)
			h := e.gate.hold(callChat)
			wantStatus(t, e.send(s.ID, "[[say:finished]]"), http.StatusAccepted)
			h.wait(t)
			wantStatus(t, e.do("POST", "/api/sessions/"+s.ID+"/archive", nil), http.StatusOK)
			var restored int
			var body string
			start := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				<-start
				h.let()
			})
			wg.Go(func() {
				<-start
				restored, body = e.call("POST", "/api/sessions/"+s.ID+"/restore", "")
			})
			if i%2 == 1 {
				// Odd runs restore just after the turn's end, racing with
				// the archive that release then finishes.
				h.let()
				st.until("turn.end")
			}
			close(start)
			wg.Wait()
			if restored != http.StatusOK {
				t.Fatalf("restore answered %d %s", restored, body)
			}
			untilStatus(st, "idle")
			// A message runs to its end only when nothing closes the session
			// under it: an archive that went ahead after the restore would.
			code, body := e.call("POST", "/api/sessions/"+s.ID+"/messages", messageBody("after [[say:again]]", false))
			if code != http.StatusAccepted {
				t.Errorf("after a restore that answered 200, a message answered %d %s", code, body)
			}
			if code == http.StatusAccepted {
				// (A restore that came after the release says idle once more.)
				evs := st.until("turn.end")
				if got := trace(t, evs); got[len(got)-1] != "turn.end:end_turn" {
					t.Errorf("the turn after a restore was cut: %v", got)
				}
				untilStatus(st, "idle")
			}
			if archived, _ := e.sessions.IsArchived(s.ID); archived {
				t.Errorf("the restore answered 200, yet the files moved into the archive")
			}
		})
	}
}

// TestPageRendersTurnState: a page loaded while a turn runs shows the
// turn's state and the Stop button in its first paint, from the server,
// and the status events carry the chip as the page renders it.
func TestPageRendersTurnState(t *testing.T) {
	t.Parallel()
	e := newEngine(t, 10*time.Millisecond)
	s := e.create("page state")
	st := e.stream(t, s.ID)
	h := e.gate.hold(callChat)
	wantStatus(t, e.send(s.ID, "[[say:held]]"), http.StatusAccepted)
	h.wait(t)
	page := parseDoc(t, e.do("GET", "/s/"+s.ID, nil))
	chip := page.Find(`[data-testid="turn-status"]`)
	if got, _ := chip.Attr("data-status"); got != "thinking" || chip.Text() != "Thinking…" {
		t.Errorf("chip mid-turn %q %q, want thinking", got, chip.Text())
	}
	if _, hidden := page.Find(`[data-testid="stop-button"]`).Attr("hidden"); hidden {
		t.Error("Stop hidden on a page rendered mid-turn")
	}
	h.let()
	for _, ev := range untilStatus(st, "idle") {
		if ev.name != "status" {
			continue
		}
		d := data(t, ev)
		if want := web.StatusChipHTML(d["status"].(string), ""); d["html"] != want {
			t.Errorf("status %v: html %q, want %q", d["status"], d["html"], want)
		}
	}
	page = parseDoc(t, e.do("GET", "/s/"+s.ID, nil))
	if got, _ := page.Find(`[data-testid="turn-status"]`).Attr("data-status"); got != "idle" {
		t.Errorf("chip after the turn %q, want idle", got)
	}
}
