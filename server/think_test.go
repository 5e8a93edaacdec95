package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"myco/e2e/fakellm"
	"myco/profiles"
	"myco/session"
)

func (ts *testServer) patch(id, body string) *http.Response {
	ts.t.Helper()
	return ts.do("PATCH", "/api/sessions/"+id, strings.NewReader(body))
}

// TestThinkHighInToolLoop is the check: /think high sends the
// provider's thinking parameter, the thinking streams and is stored, and
// goes back with its signature in the next request of the tool loop (the
// fake refuses it otherwise, as the API does).
func TestThinkHighInToolLoop(t *testing.T) {
	t.Parallel()
	yes := true
	cs := newChatServer(t, "anthropic", func(s *profiles.Settings) {
		s.Approvals.Bash = profiles.ApprovalAllow
		// Not a claude- model: settings say it reasons.
		s.Models["anthropic/fake-model"] = profiles.Model{Thinking: &yes}
	})
	s := cs.create("")
	wantStatus(t, cs.patch(s.ID, `{"think": "high"}`), http.StatusOK)
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, `[[think:I will look at the folder first]] [[tool:bash {"command":"echo hi"}]]`), http.StatusAccepted)
	evs := st.until("turn.end")
	thought := ""
	for _, ev := range evs {
		if ev.name == "thinking.delta" {
			thought += data(t, ev)["text"].(string)
		}
		if ev.name == "turn.error" {
			t.Fatalf("turn failed: %s", ev.data)
		}
	}
	if thought != "I will look at the folder first" {
		t.Errorf("thinking.delta carried %q", thought)
	}
	reqs := cs.fake.Requests()
	var chats []fakellm.Recorded
	for _, r := range reqs {
		if !strings.Contains(string(r.Body), "title") || strings.Contains(string(r.Body), "[[think:") {
			chats = append(chats, r)
		}
	}
	if len(chats) < 2 {
		t.Fatalf("%d model calls, want the tool round and the answer after it", len(chats))
	}
	for i, r := range chats[:2] {
		if p := r.Thinking(); p.Type != "enabled" || p.BudgetTokens != 16384 || p.MaxTokens <= p.BudgetTokens {
			t.Errorf("call %d thinking = %+v, want enabled with 16384", i, p)
		}
	}
	if sig := fakellm.Signature(thought); !strings.Contains(string(chats[1].Body), sig) {
		t.Errorf("the second call does not carry the signature %s", sig)
	}
	doc, err := cs.sessions.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	first := doc.Threads[0].Messages[1]
	if b := first.Content[0]; b.Type != session.BlockThinking || b.Thinking != thought || b.Signature == "" || b.DurationMS < 1 {
		t.Errorf("stored answer starts with %+v, want the signed thinking", b)
	}
	if doc.Think != "high" {
		t.Errorf("header think = %q", doc.Think)
	}
}

// TestThinkAndPersonalityPatch: the levels and personas a PATCH takes,
// what it refuses (a 400 naming the valid ones), and what the model gets.
func TestThinkAndPersonalityPatch(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "openai", func(s *profiles.Settings) {
		s.Personalities = map[string]string{"terse": "Answer in as few words as you can.", "pirate": "Talk like a pirate."}
		s.Think = "low"
	})
	s := cs.create("")
	tests := []struct {
		body, wantErr string
		status        int
	}{
		{`{"think": "hard"}`, "off, low, medium, high, xhigh, max, default", 400},
		{`{"personality": "poet"}`, "pirate, terse", 400},
		{`{"think": "medium", "personality": "terse"}`, "", 200},
	}
	for _, tt := range tests {
		resp := cs.patch(s.ID, tt.body)
		wantStatus(t, resp, tt.status)
		if tt.wantErr != "" {
			var body map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&body)
			if b, _ := json.Marshal(body); !strings.Contains(string(b), tt.wantErr) {
				t.Errorf("%s: answer %s, want it to name %q", tt.body, b, tt.wantErr)
			}
		}
		resp.Body.Close()
	}
	var view map[string]any
	resp := cs.do("GET", "/api/sessions/"+s.ID+"/steering", nil)
	wantStatus(t, resp, 200)
	_ = json.NewDecoder(resp.Body).Decode(&view)
	resp.Body.Close()
	if view["think"] != "medium" || view["effective"] != "medium" || view["personality"] != "terse" || view["supported"] != false {
		t.Errorf("steering = %v", view)
	}
	// The page shows the chip in its first HTML, in the words the API
	// gives the tab for redrawing it.
	const chip = "think medium (not supported) · terse"
	if view["chip"] != chip {
		t.Errorf("chip = %q, want %q", view["chip"], chip)
	}
	page := cs.do("GET", "/s/"+s.ID, nil)
	wantStatus(t, page, 200)
	html, _ := io.ReadAll(page.Body)
	page.Body.Close()
	if want := `<p class="steering" data-testid="steering"><span class="steering-chip" data-testid="steering-chip">` + chip + `</span>`; !strings.Contains(string(html), want) {
		t.Errorf("the page does not render the chip %q", want)
	}

	// The fake model is not known to reason: the level is kept, not sent.
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "hello"), http.StatusAccepted)
	st.until("turn.end")
	last := cs.fake.Requests()[0]
	if p := last.Thinking(); p.ReasoningEffort != "" {
		t.Errorf("reasoning_effort %q sent to a model without reasoning", p.ReasoningEffort)
	}
	if !strings.Contains(string(last.Body), "Answer in as few words as you can.") {
		t.Error("the persona is not in the system prompt")
	}

	// default follows the settings again; off drops the persona.
	wantStatus(t, cs.patch(s.ID, `{"think": "default", "personality": "off"}`), http.StatusOK)
	doc, _ := cs.sessions.Load(s.ID)
	if doc.Think != "" || doc.Personality != "" {
		t.Errorf("after default/off: think %q personality %q", doc.Think, doc.Personality)
	}
}

// TestThinkOpenAIReasoning: a model settings mark as thinking gets
// reasoning_effort, and a compatible server's reasoning_content is kept.
func TestThinkOpenAIReasoning(t *testing.T) {
	t.Parallel()
	yes := true
	cs := newChatServer(t, "openai", func(s *profiles.Settings) {
		s.Models["openai/fake-model"] = profiles.Model{Thinking: &yes}
	})
	s := cs.create("")
	wantStatus(t, cs.patch(s.ID, `{"think": "max"}`), http.StatusOK)
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "[[think:step by step]] [[say:done]]"), http.StatusAccepted)
	st.until("turn.end")
	if p := cs.fake.Requests()[0].Thinking(); p.ReasoningEffort != "high" {
		t.Errorf("reasoning_effort = %q, want high", p.ReasoningEffort)
	}
	m := lastMessage(t, cs.sessions, s.ID)
	if b := m.Content[0]; b.Type != session.BlockThinking || b.Thinking != "step by step" {
		t.Errorf("stored %+v", m.Content)
	}
}
