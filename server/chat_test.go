package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myco/e2e/fakellm"
	"myco/profiles"
	"myco/server"
	"myco/server/llm"
	"myco/session"
)

// chatServer is a server whose models are the fake model server, reached
// through the real SDK clients.
type chatServer struct {
	*testServer
	fake *fakellm.Server
}

func newChatServer(t *testing.T, provider string, mutate ...func(*profiles.Settings)) *chatServer {
	t.Helper()
	return startChatServer(t, t.TempDir(), fakellm.Start(t), provider, mutate...)
}

// startChatServer starts a chat server over the stores in dir, whose model
// is fake: a test restarts a server by starting another on the same dir.
func startChatServer(t *testing.T, dir string, fake *fakellm.Server, provider string, mutate ...func(*profiles.Settings)) *chatServer {
	t.Helper()
	settings := profiles.DefaultSettings()
	settings.DefaultModel = provider + "/fake-model"
	settings.TitleModel = provider + "/fake-title"
	base := fake.URL
	if provider == "openai" {
		base += "/v1"
	}
	settings.Providers = map[string]profiles.Provider{provider: {BaseURL: base, APIKeyEnv: "FAKE_KEY"}}
	for _, m := range mutate {
		m(&settings)
	}
	getenv := func(k string) string {
		if k == "FAKE_KEY" {
			return "sk-test"
		}
		return ""
	}
	ts := startServer(t, dir, func(o *server.Options) {
		o.DefaultModel, o.Settings = settings.DefaultModel, profiles.NewLiveSettings(settings)
		o.Models = llm.NewRegistry(settings, getenv, o.Images)
		o.RetryDelays = []time.Duration{10 * time.Millisecond, 10 * time.Millisecond}
	})
	return &chatServer{testServer: ts, fake: fake}
}

// stream is an open event stream of one session.
type stream struct {
	t      *testing.T
	events chan sseEvent
}

func (ts *testServer) stream(t *testing.T, id string) *stream {
	t.Helper()
	resp := ts.do("GET", "/api/sessions/"+id+"/events", nil)
	wantStatus(t, resp, 200)
	st := &stream{t: t, events: make(chan sseEvent, 4096)}
	go readEvents(t, resp.Body, st.events)
	nextEvent(t, st.events, "snapshot")
	return st
}

// until collects events up to and including the first one named name.
func (st *stream) until(name string) []sseEvent {
	st.t.Helper()
	var got []sseEvent
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-st.events:
			if !ok {
				st.t.Fatalf("stream ended before %q; got %v", name, names(got))
			}
			got = append(got, ev)
			if ev.name == name {
				return got
			}
		case <-timeout:
			st.t.Fatalf("no %q event; got %v", name, names(got))
		}
	}
}

func names(evs []sseEvent) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.name)
	}
	return out
}

func data(t *testing.T, ev sseEvent) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(ev.data), &m); err != nil {
		t.Fatalf("event %s data %q: %v", ev.name, ev.data, err)
	}
	return m
}

func (ts *testServer) send(id, text string) *http.Response {
	ts.t.Helper()
	body, _ := json.Marshal(map[string]any{"text": text})
	return ts.do("POST", "/api/sessions/"+id+"/messages", strings.NewReader(string(body)))
}

func deltas(evs []sseEvent, t *testing.T) (n int, text string) {
	for _, ev := range evs {
		if ev.name == "text.delta" {
			n++
			text += data(t, ev)["text"].(string)
		}
	}
	return n, text
}

func lastMessage(t *testing.T, ss *session.Store, id string) session.Message {
	t.Helper()
	doc, err := ss.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	msgs := doc.Threads[len(doc.Threads)-1].Messages
	return msgs[len(msgs)-1]
}

func textOf(m session.Message) string {
	var s string
	for _, b := range m.Content {
		if b.Type == session.BlockText {
			s += b.Text
		}
	}
	return s
}

func TestChatStreamsAndSaves(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"anthropic", "openai"} {
		t.Run(provider, func(t *testing.T) {
			cs := newChatServer(t, provider)
			s := cs.create("")
			st := cs.stream(t, s.ID)
			resp := cs.send(s.ID, "Tell me [[text:60]] [[chunk:3]] [[delay:2ms]] [[usage:in=1200,out=60,cache_read=3000,cache_write=400]]")
			wantStatus(t, resp, http.StatusAccepted)
			// The person's message is durable when 202 arrives.
			doc, _ := cs.sessions.Load(s.ID)
			if m := doc.Threads[0].Messages[0]; !m.Human || !strings.Contains(textOf(m), "Tell me") {
				t.Fatalf("first message %+v", m)
			}
			evs := st.until("turn.end")
			n, streamed := deltas(evs, t)
			if n < 5 {
				t.Errorf("%d text.delta events; the reply should arrive progressively", n)
			}
			final := lastMessage(t, cs.sessions, s.ID)
			if final.Role != "assistant" || textOf(final) != streamed || final.Usage == nil || final.Usage.InputTokens != 1200 {
				t.Errorf("stored %+v (usage %+v), streamed %q", textOf(final), final.Usage, streamed)
			}
			// The cache figures are kept (OpenAI has no cache writes), and
			// the model as the session names it, which prices the answer.
			wantWrite := map[string]int64{"anthropic": 400, "openai": 0}[provider]
			if u := final.Usage; u == nil || u.CacheReadInputTokens != 3000 || u.CacheCreationInputTokens != wantWrite {
				t.Errorf("stored usage %+v, want cache read 3000, write %d", final.Usage, wantWrite)
			}
			if final.Model != provider+"/fake-model" {
				t.Errorf("stored model %q, want %s/fake-model", final.Model, provider)
			}
			end := data(t, evs[len(evs)-1])
			// The live total is the document's, as the page counts it.
			doc, _ = cs.sessions.Load(s.ID)
			if su := end["session_usage"].(map[string]any); su["input_tokens"] != float64(doc.Usage().InputTokens) {
				t.Errorf("turn.end session_usage %v, document %+v", su, doc.Usage())
			}
			if end["stop_reason"] != "end_turn" || end["usage"].(map[string]any)["output_tokens"] != float64(60) {
				t.Errorf("turn.end %v", end)
			}
			// turn.end's line is the one the page renders from the document.
			line, _ := end["html"].(string)
			if !strings.Contains(line, `data-testid="turn-usage"`) || !strings.Contains(line, "cache read 3,000") {
				t.Errorf("turn.end html %q, want the turn's usage line", line)
			}
			page := cs.do("GET", "/s/"+s.ID, nil)
			wantStatus(t, page, http.StatusOK)
			body, _ := io.ReadAll(page.Body)
			if !strings.Contains(string(body), strings.TrimSpace(line)) {
				t.Errorf("the page lacks turn.end's line %q", line)
			}
			card := cs.do("GET", "/s/"+s.ID+"/usage", nil)
			wantStatus(t, card, http.StatusOK)
			if body, _ := io.ReadAll(card.Body); !strings.Contains(string(body), "cache read 3,000") {
				t.Errorf("/usage %s, want the turn's figures", body)
			}
			// An untitled session gets a title from the model after its first answer.
			if ev := nextEvent(t, st.events, "title"); !strings.Contains(ev.data, "Tell me") {
				t.Errorf("title %s", ev.data)
			}
		})
	}
}

func TestToolApprovalRunsDenyIsTold(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("tools")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, `[[tool:bash {"command":"echo hello-from-shell"}]]`), http.StatusAccepted)
	evs := st.until("tool.approval")
	ap := data(t, evs[len(evs)-1])
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/approvals/"+ap["tool_use_id"].(string), strings.NewReader(`{"decision":"once"}`)), 200)
	evs = st.until("tool.end")
	if out := data(t, evs[len(evs)-1]); !strings.Contains(out["output"].(string), "hello-from-shell") || out["is_error"] != false {
		t.Errorf("tool.end %v", out)
	}
	evs = st.until("turn.end")
	if _, text := deltas(evs, t); !strings.Contains(text, "hello-from-shell") {
		t.Errorf("the model's answer %q does not quote the tool's outcome", text)
	}

	wantStatus(t, cs.send(s.ID, `[[tool:bash {"command":"rm -rf /tmp/nothing-here"}]]`), http.StatusAccepted)
	evs = st.until("tool.approval")
	ap = data(t, evs[len(evs)-1])
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/approvals/"+ap["tool_use_id"].(string), strings.NewReader(`{"decision":"deny"}`)), 200)
	evs = st.until("turn.end")
	if _, text := deltas(evs, t); !strings.Contains(text, "denied") {
		t.Errorf("the model was not told of the denial: %q", text)
	}
}

func TestApprovalForSessionAndSettingsAllow(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic", func(s *profiles.Settings) { s.Approvals.Bash = profiles.ApprovalAllow })
	s := cs.create("allowed")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, `[[tool:bash {"command":"pwd"}]]`), http.StatusAccepted)
	evs := st.until("turn.end")
	for _, ev := range evs {
		if ev.name == "tool.approval" {
			t.Fatal("asked for approval although settings allow bash")
		}
	}
	if !strings.Contains(strings.Join(names(evs), ","), "tool.end") {
		t.Errorf("no tool ran: %v", names(evs))
	}
}

func TestShellKeepsCwdBetweenCommands(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic", func(s *profiles.Settings) { s.Approvals.Bash = profiles.ApprovalAllow })
	s := cs.create("cwd")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, `[[steps: tool:bash {"command":"mkdir -p sub && cd sub && export MYCO_X=42"} ;; tool:bash {"command":"pwd; echo $MYCO_X"} ;; say:done]]`), http.StatusAccepted)
	var outs []string
	for _, ev := range st.until("turn.end") {
		if ev.name == "tool.end" {
			outs = append(outs, data(t, ev)["output"].(string))
		}
	}
	if len(outs) != 2 || !strings.Contains(outs[1], filepath.Join(cs.dir, "sub")) || !strings.Contains(outs[1], "42") {
		t.Errorf("outputs %q", outs)
	}
}

func TestStopKeepsPartialInterrupted(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("stop")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "[[text:3000]] [[delay:5ms]]"), http.StatusAccepted)
	for i := 0; i < 5; i++ {
		nextEvent(t, st.events, "text.delta")
	}
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/stop", nil), 200)
	evs := st.until("turn.end")
	if end := data(t, evs[len(evs)-1]); end["stop_reason"] != session.StopInterrupted {
		t.Errorf("turn.end %v", end)
	}
	m := lastMessage(t, cs.sessions, s.ID)
	if m.StopReason != session.StopInterrupted || len(textOf(m)) == 0 || strings.Count(textOf(m), " ") > 2900 {
		t.Errorf("kept %q marked %q", textOf(m)[:min(60, len(textOf(m)))], m.StopReason)
	}
}

func TestStopKillsRunningCommand(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic", func(s *profiles.Settings) { s.Approvals.Bash = profiles.ApprovalAllow })
	s := cs.create("kill")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, `[[tool:bash {"command":"sleep 30; echo never"}]]`), http.StatusAccepted)
	nextEvent(t, st.events, "tool.start")
	start := time.Now()
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/stop", nil), 200)
	evs := st.until("turn.end")
	if time.Since(start) > 20*time.Second {
		t.Errorf("stop took %s: the command was not killed", time.Since(start))
	}
	for _, ev := range evs {
		if ev.name == "tool.end" && strings.Contains(ev.data, "never") {
			t.Errorf("the command ran on: %s", ev.data)
		}
	}
	doc, _ := cs.sessions.Load(s.ID)
	msgs := doc.Threads[0].Messages
	last := msgs[len(msgs)-1]
	if len(last.Content) != 1 || last.Content[0].Type != session.BlockToolResult || !last.Content[0].IsError {
		t.Errorf("the stopped call has no recorded outcome: %+v", last)
	}
}

func TestTransientErrorsRetriedThenFinalFailureSaysWhy(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("retry")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "[[fault:529x2]] [[say:made it]]"), http.StatusAccepted)
	evs := st.until("turn.end")
	retries := 0
	for _, ev := range evs {
		if ev.name == "status" && data(t, ev)["status"] == "retrying" {
			retries++
		}
	}
	if retries != 2 || textOf(lastMessage(t, cs.sessions, s.ID)) != "made it" {
		t.Errorf("%d retries shown, answer %q", retries, textOf(lastMessage(t, cs.sessions, s.ID)))
	}

	wantStatus(t, cs.send(s.ID, "[[fault:500]]"), http.StatusAccepted)
	evs = st.until("turn.end")
	var failed string
	for _, ev := range evs {
		if ev.name == "turn.error" {
			failed = data(t, ev)["error"].(string)
		}
	}
	if !strings.Contains(failed, "500") {
		t.Errorf("final failure %q does not say what failed", failed)
	}

	wantStatus(t, cs.send(s.ID, "[[text:200]] [[fault:cutx1]]"), http.StatusAccepted)
	evs = st.until("turn.end")
	if !strings.Contains(strings.Join(names(evs), ","), "message.discard") {
		t.Errorf("a cut stream's partial message was not discarded before the retry: %v", names(evs))
	}
	if m := lastMessage(t, cs.sessions, s.ID); m.StopReason != "end_turn" || strings.Count(textOf(m), " ") < 150 {
		t.Errorf("after a cut stream the retry gave %q (%s)", textOf(m), m.StopReason)
	}
}

func TestReconnectMidTurnGetsPartial(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("reconnect")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "[[text:400]] [[delay:3ms]]"), http.StatusAccepted)
	for i := 0; i < 10; i++ {
		nextEvent(t, st.events, "text.delta")
	}
	resp := cs.do("GET", "/api/sessions/"+s.ID+"/events", nil)
	second := make(chan sseEvent, 4096)
	go readEvents(t, resp.Body, second)
	snap := data(t, nextEvent(t, second, "snapshot"))
	p, _ := snap["partial"].(map[string]any)
	if p == nil || snap["status"] != "writing" || p["text"] == "" || !strings.Contains(snap["status_html"].(string), ">Writing…</span>") {
		t.Fatalf("snapshot mid-turn %v", snap)
	}
	text := p["text"].(string)
	for {
		ev := <-second
		if ev.name == "text.delta" {
			text += data(t, ev)["text"].(string)
		}
		if ev.name == "turn.end" {
			break
		}
	}
	if want := textOf(lastMessage(t, cs.sessions, s.ID)); text != want {
		t.Errorf("reconnected tab has %d chars, the answer %d", len(text), len(want))
	}
}

func TestQueueWhileTurnRuns(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("queue")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "[[text:300]] [[delay:3ms]]"), http.StatusAccepted)
	nextEvent(t, st.events, "text.delta")
	wantStatus(t, cs.send(s.ID, "second"), http.StatusConflict)
	resp := cs.do("POST", "/api/sessions/"+s.ID+"/messages", strings.NewReader(`{"text":"[[say:second answer]]","queue":true}`))
	wantStatus(t, resp, http.StatusAccepted)
	q := decode[map[string]string](t, resp)
	if q["queued"] == "" {
		t.Errorf("queued answer %v", q)
	}
	// Durable before the 202: the queued message is in the document.
	if doc, _ := cs.sessions.Load(s.ID); len(doc.Queued) != 1 || doc.Queued[0].ID != q["queued"] {
		t.Errorf("queued in the document: %+v", doc.Queued)
	}
	st.until("turn.end")
	st.until("turn.end")
	if got := textOf(lastMessage(t, cs.sessions, s.ID)); got != "second answer" {
		t.Errorf("queued message answered %q", got)
	}
	if doc, _ := cs.sessions.Load(s.ID); len(doc.Queued) != 0 {
		t.Errorf("the sent message is still queued: %+v", doc.Queued)
	}
}

func TestImageReachesModelAndMissingBlobFailsFirst(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("image")
	st := cs.stream(t, s.ID)
	resp := cs.do("POST", "/api/images", strings.NewReader(string(pngBytes(t))), "Content-Type", "image/png")
	ref := decode[session.ImageRef](t, resp)
	body, _ := json.Marshal(map[string]any{"text": "what is this?", "images": []string{ref.SHA256}})
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/messages", strings.NewReader(string(body))), http.StatusAccepted)
	st.until("turn.end")
	reqs := cs.fake.Requests()
	if len(reqs) == 0 || !strings.Contains(string(reqs[0].Body), `"type":"image"`) || !strings.Contains(string(reqs[0].Body), `"media_type":"image/png"`) {
		t.Errorf("no image block reached the model")
	}

	cs.fake.Reset()
	missing := strings.Repeat("cd", 32)
	body, _ = json.Marshal(map[string]any{"text": "and this?", "images": []string{missing}})
	resp = cs.do("POST", "/api/sessions/"+s.ID+"/messages", strings.NewReader(string(body)))
	wantStatus(t, resp, http.StatusNotFound)
	if e := decode[map[string]string](t, resp); !strings.Contains(e["error"], missing) {
		t.Errorf("error %q does not name the image", e["error"])
	}
	if n := len(cs.fake.Requests()); n != 0 {
		t.Errorf("%d model requests after a missing image", n)
	}
}

func TestLiveSessionHoldsTheLock(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("held")
	cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "[[say:hi]]"), http.StatusAccepted)
	other, _ := session.Open(filepath.Join(cs.dir, "session"), session.Options{})
	_, err := other.Lock(s.ID, session.Owner{PID: 1})
	var le *session.LockedError
	if !errorsAs(err, &le) || le.Owner.URL != cs.url {
		t.Fatalf("another process could lock the live session: %v", err)
	}
}

func TestNoProviderSaysHowToConfigure(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	s := ts.create("none")
	resp := ts.do("GET", "/api/sessions/"+s.ID+"/events", nil)
	events := make(chan sseEvent, 16)
	go readEvents(t, resp.Body, events)
	snap := data(t, nextEvent(t, events, "snapshot"))
	if !strings.Contains(snap["provider_help"].(string), "ANTHROPIC_API_KEY") {
		t.Errorf("snapshot %v", snap)
	}
	wantStatus(t, ts.send(s.ID, "hello"), http.StatusAccepted)
	ev := nextEvent(t, events, "turn.error")
	if !strings.Contains(ev.data, "no provider") {
		t.Errorf("turn.error %s", ev.data)
	}
}

var _ = bufio.NewReader
var _ = io.EOF

// Every fault of the fake server, through the real SDK client and the turn
// loop: transient ones are retried (each retry shown) until they pass, the
// rest end the turn with an error that says what failed.
func TestTurnFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		directive string
		retries   int
		ok        bool
	}{
		{"429 once", "[[fault:429x1]]", 1, true},
		{"529 twice", "[[fault:529x2]]", 2, true},
		{"500 once", "[[fault:500x1]]", 1, true},
		{"stream cut once", "[[fault:cutx1]]", 1, true},
		{"overloaded error event once", "[[fault:errorx1]]", 1, true},
		{"429 always", "[[fault:429]]", 2, false},
		{"malformed event", "[[fault:malformed]]", 0, false},
	}
	cs := newChatServer(t, "anthropic")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := cs.create(tt.name)
			st := cs.stream(t, s.ID)
			wantStatus(t, cs.send(s.ID, tt.directive+" [[say:recovered]]"), http.StatusAccepted)
			evs := st.until("turn.end")
			retries, failed := 0, ""
			for _, ev := range evs {
				switch {
				case ev.name == "status" && data(t, ev)["status"] == "retrying":
					retries++
				case ev.name == "turn.error":
					failed = data(t, ev)["error"].(string)
				}
			}
			if retries != tt.retries {
				t.Errorf("%d retries shown, want %d", retries, tt.retries)
			}
			got := textOf(lastMessage(t, cs.sessions, s.ID))
			if tt.ok && (got != "recovered" || failed != "") {
				t.Errorf("answer %q, error %q", got, failed)
			}
			if !tt.ok && failed == "" {
				t.Errorf("no turn.error; answer %q", got)
			}
		})
	}
}

// A turn goes on in the server when its only tab goes away, and a tab
// opened later finds it finished.
func TestTurnGoesOnWithoutItsTab(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("tabless")
	req, _ := http.NewRequest("GET", cs.url+"/api/sessions/"+s.ID+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan sseEvent, 1024)
	go readEvents(t, resp.Body, first)
	nextEvent(t, first, "snapshot")
	wantStatus(t, cs.send(s.ID, "[[text:200]] [[delay:3ms]]"), http.StatusAccepted)
	nextEvent(t, first, "text.delta")
	cancel() // the tab closes mid-turn

	resp = cs.do("GET", "/api/sessions/"+s.ID+"/events", nil)
	later := make(chan sseEvent, 4096)
	go readEvents(t, resp.Body, later)
	if snap := data(t, nextEvent(t, later, "snapshot")); snap["status"] != "idle" {
		nextEvent(t, later, "turn.end")
	}
	if m := lastMessage(t, cs.sessions, s.ID); m.StopReason != "end_turn" || strings.Count(textOf(m), " ") < 150 {
		t.Errorf("after the tab closed the turn ended %q with %q", m.StopReason, textOf(m))
	}
}

// A running command's output reaches the tabs as it is printed, before the
// command ends (tool.output), and the outcome still has all of it.
func TestCommandOutputStreamsBeforeItEnds(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic", func(s *profiles.Settings) { s.Approvals.Bash = profiles.ApprovalAllow })
	s := cs.create("live output")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, `[[tool:bash {"command":"echo first-line; sleep 1; echo second-line"}]]`), http.StatusAccepted)
	evs := st.until("tool.end")
	var streamed strings.Builder
	sawFirstEarly := false
	for _, ev := range evs {
		if ev.name == "tool.output" {
			streamed.WriteString(data(t, ev)["text"].(string))
			sawFirstEarly = sawFirstEarly || strings.Contains(streamed.String(), "first-line") && !strings.Contains(streamed.String(), "second-line")
		}
	}
	if !sawFirstEarly {
		t.Errorf("no tool.output carried the first line on its own before the command ended; streamed %q", streamed.String())
	}
	if !strings.Contains(streamed.String(), "second-line") {
		t.Errorf("streamed output %q lacks the second line", streamed.String())
	}
	if end := data(t, evs[len(evs)-1]); !strings.Contains(end["output"].(string), "first-line\nsecond-line") {
		t.Errorf("tool.end output %v", end["output"])
	}
}
