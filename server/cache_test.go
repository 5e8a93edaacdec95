package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"myco/e2e/fakellm"
	"myco/profiles"
	"myco/session"
)

// wire is an agent call as the provider reads it for its prompt cache: the
// tools, the system prompt and the messages, each as the bytes sent, with
// the cache markers taken out (they are not part of the cached prefix).
type wire struct {
	key    string
	tools  string
	system string
	msgs   []string
}

var cacheMarker = regexp.MustCompile(`,?"cache_control":\{[^}]*\}`)

func wireOf(t *testing.T, r fakellm.Recorded) wire {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(r.Body, &top); err != nil {
		t.Fatal(err)
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(top["messages"], &msgs); err != nil {
		t.Fatal(err)
	}
	w := wire{tools: string(top["tools"]), system: cacheMarker.ReplaceAllString(string(top["system"]), "")}
	json.Unmarshal(top["prompt_cache_key"], &w.key)
	for _, m := range msgs {
		w.msgs = append(w.msgs, cacheMarker.ReplaceAllString(string(m), ""))
	}
	return w
}

// agentCalls are the recorded calls that offer tools: the agent's turns,
// not titles or summaries.
func agentCalls(t *testing.T, fake *fakellm.Server) []wire {
	t.Helper()
	var out []wire
	for _, r := range fake.Requests() {
		if r.JSON != nil && r.JSON["tools"] != nil {
			out = append(out, wireOf(t, r))
		}
	}
	return out
}

// extends says how next fails to start with prev byte for byte ("" when
// it does): the same tools and system prompt, and every message prev sent,
// unchanged, before the new ones.
func extends(prev, next wire) string {
	switch {
	case next.tools != prev.tools:
		return "the tools changed:\n" + prev.tools + "\n" + next.tools
	case next.system != prev.system:
		return "the system prompt changed:\n" + prev.system + "\n" + next.system
	case len(next.msgs) <= len(prev.msgs):
		return "no new message"
	}
	for i, m := range prev.msgs {
		if next.msgs[i] != m {
			return "message " + strconv.Itoa(i) + " changed:\n" + m + "\n" + next.msgs[i]
		}
	}
	return ""
}

// turn sends text to session id and waits for the turn's end on st,
// failing the test if the turn fails.
func (cs *chatServer) turn(st *stream, id, text string) {
	cs.t.Helper()
	wantStatus(cs.t, cs.send(id, text), http.StatusAccepted)
	for _, ev := range st.until("turn.end") {
		if ev.name == "turn.error" {
			cs.t.Fatalf("turn failed: %s", ev.data)
		}
	}
}

// Every call of a session starts with the previous call's bytes, through
// tool rounds, a cd, a note, a standing goal, a restart of myco and a
// fork, so the provider's prompt cache reads all of it and the session
// pays full price only for what is new.
func TestRequestsStayByteStable(t *testing.T) {
	for _, provider := range []string{"anthropic", "openai"} {
		t.Run(provider, func(t *testing.T) {
			dir, fake := t.TempDir(), fakellm.Start(t)
			allow := func(s *profiles.Settings) { s.Approvals.Bash = profiles.ApprovalAllow }
			cs := startChatServer(t, dir, fake, provider, allow)
			s := cs.create("stable")
			st := cs.stream(t, s.ID)
			cs.turn(st, s.ID, `look around [[steps: tool:bash {"command":"cd / && pwd"} ;; tool:bash {"command":"ls"} ;; say:done]]`)
			cs.turn(st, s.ID, "and now?")
			wantStatus(t, cs.post("POST", s.ID, "/notes", `{"text":"the build is green","from":"ci"}`), http.StatusAccepted)
			cs.turn(st, s.ID, "what happened?")
			wantStatus(t, cs.post("POST", s.ID, "/goal", `{"text":"tidy the docs [[goal: working first pass ;; done all tidy]]"}`), http.StatusAccepted)
			st.untilGoal(session.GoalDone)
			before := len(agentCalls(t, fake))

			cs.stop()
			cs = startChatServer(t, dir, fake, provider, allow)
			st = cs.stream(t, s.ID)
			cs.turn(st, s.ID, "after the restart")

			resp := cs.do("POST", "/api/sessions/"+s.ID+"/fork", nil)
			wantStatus(t, resp, http.StatusCreated)
			fork := decode[struct{ ID string }](t, resp)
			fst := cs.stream(t, fork.ID)
			cs.turn(fst, fork.ID, "in the fork")

			calls := agentCalls(t, fake)
			if len(calls) < before+2 || before < 7 {
				t.Fatalf("%d agent calls (%d before the restart), want the script's", len(calls), before)
			}
			for i := 1; i < len(calls); i++ {
				if why := extends(calls[i-1], calls[i]); why != "" {
					t.Errorf("call %d of %d does not start with call %d: %s", i+1, len(calls), i, why)
				}
			}
			if provider == "openai" {
				last := calls[len(calls)-1]
				if calls[0].key != s.ID || last.key != s.ID {
					t.Errorf("prompt_cache_key %q … %q, want the session's ID, for its fork too", calls[0].key, last.key)
				}
			}
			// What changed outside the conversation reached the agent with
			// the person's words, and stays there.
			last := strings.Join(calls[len(calls)-1].msgs, "\n")
			for _, want := range []string{"This session was resumed in a new myco process", "This session is a fork", "Today is "} {
				if !strings.Contains(last, want) {
					t.Errorf("the fork's call does not carry %q", want)
				}
			}
			if !bytes.Contains([]byte(calls[0].tools), []byte("goal_status")) {
				t.Error("goal_status is not in the first call's tools: the tool set must not change when a goal starts")
			}
		})
	}
}
