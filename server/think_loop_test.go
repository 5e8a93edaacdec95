package server_test

import (
	"net/http"
	"strings"
	"testing"

	"myco/profiles"
)

// TestThinkTurnedOnInToolLoop: /think turned on while a turn waits in its
// tool loop does not break the turn (Anthropic, and the fake, refuse
// thinking when the loop's last answer did not think): the rest of the
// turn goes without it, and the next turn thinks.
func TestThinkTurnedOnInToolLoop(t *testing.T) {
	t.Parallel()
	yes := true
	cs := newChatServer(t, "anthropic", func(s *profiles.Settings) {
		s.Models["anthropic/fake-model"] = profiles.Model{Thinking: &yes}
	})
	s := cs.create("")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, `[[tool:bash {"command":"echo mid-loop"}]]`), http.StatusAccepted)
	evs := st.until("tool.approval")
	ap := data(t, evs[len(evs)-1])
	wantStatus(t, cs.patch(s.ID, `{"think": "high"}`), http.StatusOK)
	wantStatus(t, cs.do("POST", "/api/sessions/"+s.ID+"/approvals/"+ap["tool_use_id"].(string), strings.NewReader(`{"decision":"once"}`)), http.StatusOK)
	for _, ev := range st.until("turn.end") {
		if ev.name == "turn.error" {
			t.Fatalf("the turn failed once /think was on: %s", ev.data)
		}
	}
	for _, r := range cs.fake.Requests() {
		if strings.Contains(string(r.Body), "tool_result") && r.Thinking().Type == "enabled" {
			t.Errorf("the tool loop's next call asked for thinking: %+v", r.Thinking())
		}
	}

	before := len(cs.fake.Requests())
	wantStatus(t, cs.send(s.ID, `[[think:now I think]] [[say:done]]`), http.StatusAccepted)
	for _, ev := range st.until("turn.end") {
		if ev.name == "turn.error" {
			t.Fatalf("the next turn failed: %s", ev.data)
		}
	}
	thought := false
	for _, r := range cs.fake.Requests()[before:] {
		thought = thought || (strings.Contains(string(r.Body), "now I think") && r.Thinking().Type == "enabled")
	}
	if !thought {
		t.Error("the turn after /think did not ask for thinking")
	}
}
