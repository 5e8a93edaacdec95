package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
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

// cacheSession is a session on a chat server whose model is a fake with a
// simulated prompt cache and whose bash calls need no approval, for the
// tests that restart myco under it and fork it.
type cacheSession struct {
	t        *testing.T
	dir      string
	provider string
	fake     *fakellm.Server
	cs       *chatServer
	id       string
	st       *stream
	mutate   []func(*profiles.Settings)
}

func allowBash(s *profiles.Settings) { s.Approvals.Bash = profiles.ApprovalAllow }

func startCacheSession(t *testing.T, provider, title string, mutate ...func(*profiles.Settings)) *cacheSession {
	t.Helper()
	c := &cacheSession{t: t, dir: t.TempDir(), provider: provider, fake: fakellm.Start(t)}
	// The project's instructions are part of the system prompt, read once
	// per live session: a restart and a fork read the same bytes.
	if err := os.WriteFile(filepath.Join(c.dir, "AGENTS.md"), []byte("Run the tests with go test ./..."), 0o644); err != nil {
		t.Fatal(err)
	}
	c.mutate = append([]func(*profiles.Settings){allowBash}, mutate...)
	c.cs = startChatServer(t, c.dir, c.fake, provider, c.mutate...)
	c.id = c.cs.create(title).ID
	c.st = c.cs.stream(t, c.id)
	return c
}

// turn runs one turn of the session.
func (c *cacheSession) turn(text string) { c.cs.turn(c.st, c.id, text) }

// restart stops myco and starts it again over the same folder, as a
// person's restart would, with the session's stream open again.
func (c *cacheSession) restart() {
	c.cs.stop()
	c.cs = startChatServer(c.t, c.dir, c.fake, c.provider, c.mutate...)
	c.st = c.cs.stream(c.t, c.id)
}

// fork forks the session at its head and runs one turn of text in the
// fork; it returns the fork's ID.
func (c *cacheSession) fork(text string) string {
	c.t.Helper()
	resp := c.cs.do("POST", "/api/sessions/"+c.id+"/fork", nil)
	wantStatus(c.t, resp, http.StatusCreated)
	fork := decode[struct{ ID string }](c.t, resp)
	c.cs.turn(c.cs.stream(c.t, fork.ID), fork.ID, text)
	return fork.ID
}

// Every call of a session starts with the previous call's bytes, through
// tool rounds, a cd, a note, a standing goal, a restart of myco and a
// fork, so the provider's prompt cache reads all of it and the session
// pays full price only for what is new.
func TestRequestsStayByteStable(t *testing.T) {
	t.Parallel()
	// OpenAI's explicit breakpoints sit on every user message and tool
	// result, so they too must never move.
	breakpoints := func(s *profiles.Settings) {
		on := true
		s.Models = map[string]profiles.Model{"openai/fake-model": {CacheBreakpoints: &on}}
	}
	for _, variant := range []struct {
		name, provider string
		mutate         []func(*profiles.Settings)
	}{{"anthropic", "anthropic", nil}, {"openai", "openai", nil}, {"openai breakpoints", "openai", []func(*profiles.Settings){breakpoints}}} {
		provider := variant.provider
		t.Run(variant.name, func(t *testing.T) {
			c := startCacheSession(t, provider, "stable", variant.mutate...)
			c.turn(`look around [[steps: tool:bash {"command":"cd / && pwd"} ;; tool:bash {"command":"ls"} ;; say:done]]`)
			c.turn("and now?")
			wantStatus(t, c.cs.post("POST", c.id, "/notes", `{"text":"the build is green","from":"ci"}`), http.StatusAccepted)
			c.turn("what happened?")
			wantStatus(t, c.cs.post("POST", c.id, "/goal", `{"text":"tidy the docs [[goal: working first pass ;; done all tidy]]"}`), http.StatusAccepted)
			c.st.untilGoal(session.GoalDone)
			// goal_status said done mid-turn; the turn's answer comes after.
			c.st.until("turn.end")
			before := len(agentCalls(t, c.fake))

			c.restart()
			c.turn("after the restart")
			c.fork("in the fork")

			calls := agentCalls(t, c.fake)
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
				if calls[0].key != c.id || last.key != c.id {
					t.Errorf("prompt_cache_key %q … %q, want the session's ID, for its fork too", calls[0].key, last.key)
				}
				// Each user message and tool result ends with a breakpoint
				// when the settings ask for them, and none is sent otherwise.
				marks := strings.Count(strings.Join(last.msgs, ""), `"prompt_cache_breakpoint":{"mode":"explicit"}`)
				if wantMarks := variant.mutate != nil; wantMarks != (marks > 0) || wantMarks && marks < 8 {
					t.Errorf("%d breakpoints in the last call", marks)
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
			if first := calls[0].system + strings.Join(calls[0].msgs, ""); !strings.Contains(first, "go test ./...") {
				t.Errorf("the first call does not carry AGENTS.md: %s", first)
			}
			if !bytes.Contains([]byte(calls[0].tools), []byte("goal_status")) {
				t.Error("goal_status is not in the first call's tools: the tool set must not change when a goal starts")
			}
		})
	}
}
