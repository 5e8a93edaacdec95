package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"myco/e2e/fakellm"
	"myco/profiles"
	"myco/session"
)

// newSubagentEnv is a goal env whose settings allow limits sub-agents.
func newSubagentEnv(t *testing.T, limits profiles.Subagents) (*fileEnv, *fakellm.Server) {
	t.Helper()
	e, fake := newGoalEnv(t)
	st := profiles.DefaultSettings()
	st.Subagents = limits
	st.Approvals.Bash = profiles.ApprovalAllow
	e.opts.Settings = profiles.NewLiveSettings(st)
	return e, fake
}

// taskCall is a [[tool:task …]] directive whose sub-agent's message is
// prompt (⟦…⟧ in it are the sub-agent's own directives).
func taskCall(t *testing.T, description, prompt string, fork bool) string {
	t.Helper()
	in, err := json.Marshal(map[string]any{"description": description, "prompt": prompt, "fork": fork})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("[[tool:task %s]]", in)
}

// results are the outcomes of the tool calls of s's latest thread, by
// call ID.
func results(s *Session) map[string]session.Block {
	out := map[string]session.Block{}
	s.w.View(func(d *session.Document) {
		for _, m := range d.Threads[len(d.Threads)-1].Messages {
			for _, b := range m.Content {
				if b.Type == session.BlockToolResult {
					out[b.ToolUseID] = b
				}
			}
		}
	})
	return out
}

func resultText(t *testing.T, b session.Block) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(b.Content, &s); err != nil {
		t.Fatalf("result content %s: %v", b.Content, err)
	}
	return s
}

// Two task calls of one round run at once, each a session of its own
// marked as the parent's sub-agent, listed apart from the person's; each
// answer is its call's outcome, and reaches the parent's model.
func TestSubagentsRunAtOnce(t *testing.T) {
	e, _ := newSubagentEnv(t, profiles.Subagents{MaxDepth: 2, MaxRunning: 4})
	s := e.newSession(t)
	// Each sub-agent writes 30 words 30 ms apart: long enough to be seen
	// running together.
	text := taskCall(t, "look left", "⟦text:30⟧ ⟦delay:30ms⟧", false) + " " + taskCall(t, "look right", "⟦say:right side is clear⟧ ⟦delay:300ms⟧", false)
	done := make(chan TurnResult, 1)
	go func() {
		r, err := s.Run(context.Background(), text)
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	deadline := time.After(30 * time.Second)
	for len(s.m.Subagents()) < 2 {
		select {
		case r := <-done:
			t.Fatalf("the turn ended (%+v) before two sub-agents were seen running at once", r)
		case <-deadline:
			t.Fatal("two sub-agents never ran at once")
		case <-time.After(5 * time.Millisecond):
		}
	}
	running := s.m.Subagents()
	for _, sub := range running {
		if sub.Parent != s.ID() || sub.Session == "" {
			t.Fatalf("running sub-agent %+v: want one of %s with its session", sub, s.ID())
		}
	}
	r := <-done
	if r.Failed() {
		t.Fatalf("turn %+v", r)
	}
	if n := len(s.m.Subagents()); n != 0 {
		t.Fatalf("%d sub-agents still listed after the turn", n)
	}
	res := results(s)
	if len(res) != 2 {
		t.Fatalf("%d tool results, want 2", len(res))
	}
	var children []string
	for _, b := range res {
		if b.IsError || b.Session == "" {
			t.Fatalf("task outcome %+v: want an answer with its session", b)
		}
		children = append(children, b.Session)
		out := resultText(t, b)
		doc, err := e.store.Load(b.Session)
		if err != nil {
			t.Fatal(err)
		}
		if !doc.IsSubagent() || doc.Parent.Session != s.ID() || doc.Parent.Call != b.ToolUseID {
			t.Fatalf("child's parent %+v: want the sub-agent of call %s of %s", doc.Parent, b.ToolUseID, s.ID())
		}
		want := map[string]string{"look left": "alpha bravo", "look right": "right side is clear"}[doc.Title]
		if want == "" || !strings.Contains(out, want) {
			t.Fatalf("child %q answered %q, want %q in it", doc.Title, out, want)
		}
	}
	// The parent's model read both answers.
	if !strings.Contains(r.Answer, "right side is clear") || !strings.Contains(r.Answer, "alpha bravo") {
		t.Fatalf("parent's answer %q does not quote both sub-agents", r.Answer)
	}
	// Listed under their parent, not among the person's sessions.
	own, err := e.store.List(session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	subs, err := e.store.List(session.ListOptions{Subagents: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range children {
		if slices.ContainsFunc(own, func(s session.Summary) bool { return s.ID == id }) {
			t.Fatalf("sub-agent %s listed among the person's sessions", id)
		}
		if !slices.ContainsFunc(subs, func(s session.Summary) bool { return s.ID == id && s.Subagent && s.Parent != "" }) {
			t.Fatalf("sub-agent %s missing from the sub-agents' listing", id)
		}
	}
}

// A forked sub-agent starts from the parent's history: its first request
// repeats the parent's last one byte for byte up to the sub-agent's
// prompt (system, tools, messages), so it reads the parent's cache.
func TestForkedSubagentSharesThePrefix(t *testing.T) {
	e, fake := newSubagentEnv(t, profiles.Subagents{MaxDepth: 2, MaxRunning: 4})
	s := e.newSession(t)
	if r, err := s.Run(context.Background(), "remember the word heron [[text:400]]"); err != nil || r.Failed() {
		t.Fatalf("first turn %+v %v", r, err)
	}
	r, err := s.Run(context.Background(), "sum it up "+taskCall(t, "wrap up", "⟦say:the word was heron⟧", true))
	if err != nil || r.Failed() {
		t.Fatalf("turn %+v %v", r, err)
	}
	reqs := fake.Requests()
	var parent, child *fakellm.Recorded
	for i := range reqs {
		body := string(reqs[i].Body)
		switch {
		case child == nil && strings.Contains(body, "the word was heron") && !strings.Contains(body, `"tool_result"`):
			child = &reqs[i]
		case parent == nil && strings.Contains(body, "sum it up") && !strings.Contains(body, `"tool_use"`):
			parent = &reqs[i]
		}
	}
	if parent == nil || child == nil {
		t.Fatalf("requests: parent %v, child %v", parent != nil, child != nil)
	}
	var p, c struct {
		System   json.RawMessage   `json:"system"`
		Tools    json.RawMessage   `json:"tools"`
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(parent.Body, &p); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(child.Body, &c); err != nil {
		t.Fatal(err)
	}
	if string(p.System) != string(c.System) || string(p.Tools) != string(c.Tools) {
		t.Fatal("the child's system prompt or tools differ from the parent's: its prefix is not the parent's")
	}
	// Every message before the parent's last (which carries the cache
	// breakpoint) is the same bytes.
	n := len(p.Messages) - 1
	if len(c.Messages) < n+1 {
		t.Fatalf("child sent %d messages, parent %d", len(c.Messages), len(p.Messages))
	}
	for i := range n {
		if string(p.Messages[i]) != string(c.Messages[i]) {
			t.Fatalf("message %d differs:\nparent %s\nchild  %s", i, p.Messages[i], c.Messages[i])
		}
	}
	if child.Usage == nil || child.Usage.CacheReadInputTokens == 0 {
		t.Fatalf("child's first call usage %+v: want a read of the parent's cache", child.Usage)
	}
	res := results(s)
	for _, b := range res {
		doc, err := e.store.Load(b.Session)
		if err != nil {
			t.Fatal(err)
		}
		if !doc.IsSubagent() || doc.Parent.Message == "" {
			t.Fatalf("forked child's parent %+v", doc.Parent)
		}
	}
}

// The limits: a sub-agent deeper than max_depth, or more at once than
// max_running, is refused with why, and the turn goes on.
func TestSubagentLimits(t *testing.T) {
	nested := taskCall(t, "outer", "⟦tool:task {\"description\":\"inner\",\"prompt\":\"hi\"}⟧", false)
	two := taskCall(t, "first", "⟦say:one⟧ ⟦delay:100ms⟧", false) + " " + taskCall(t, "second", "⟦say:two⟧", false)
	tests := []struct {
		name   string
		limits profiles.Subagents
		text   string
		want   string // in some task outcome the parent recorded
	}{
		{"depth", profiles.Subagents{MaxDepth: 1, MaxRunning: 4}, nested, "Sub-agents nest at most 1 deep"},
		{"off", profiles.Subagents{MaxDepth: 0, MaxRunning: 4}, taskCall(t, "x", "hi", false), "Sub-agents are off"},
		{"running", profiles.Subagents{MaxDepth: 2, MaxRunning: 1}, two, "1 already run for this session"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newSubagentEnv(t, tc.limits)
			s := e.newSession(t)
			r, err := s.Run(context.Background(), tc.text)
			if err != nil || r.Failed() {
				t.Fatalf("turn %+v %v", r, err)
			}
			var outs []string
			for _, b := range results(s) {
				outs = append(outs, resultText(t, b))
			}
			if !slices.ContainsFunc(outs, func(o string) bool { return strings.Contains(o, tc.want) }) {
				t.Fatalf("outcomes %q, want one saying %q", outs, tc.want)
			}
		})
	}
}

// Stopping the parent's turn stops its sub-agent: the child keeps what
// it had, marked interrupted, and the call's outcome says it was stopped.
func TestStoppingTheParentStopsItsSubagent(t *testing.T) {
	e, _ := newSubagentEnv(t, profiles.Subagents{MaxDepth: 2, MaxRunning: 4})
	s := e.newSession(t)
	done := make(chan TurnResult, 1)
	go func() {
		r, _ := s.Run(context.Background(), taskCall(t, "slow", "⟦text:200⟧ ⟦delay:50ms⟧", false))
		done <- r
	}()
	// Stopped once it is writing: the card says so, and it has words to keep.
	deadline := time.After(30 * time.Second)
	for subs := s.m.Subagents(); len(subs) == 0 || subs[0].Status != StatusWriting; subs = s.m.Subagents() {
		select {
		case <-deadline:
			t.Fatal("the sub-agent never started writing")
		case <-time.After(5 * time.Millisecond):
		}
	}
	child := s.m.Subagents()[0].Session
	if _, err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.Stop != session.StopInterrupted {
		t.Fatalf("parent's turn %+v, want interrupted", r)
	}
	var out string
	for _, b := range results(s) {
		out = resultText(t, b)
	}
	if !strings.Contains(out, "was stopped before it answered") || !strings.Contains(out, child) {
		t.Fatalf("task outcome %q, want it stopped, naming session %s", out, child)
	}
	if _, ok := s.m.Get(child); ok {
		t.Fatal("the stopped sub-agent's session is still open")
	}
	doc, err := e.store.Load(child)
	if err != nil {
		t.Fatal(err)
	}
	msgs := doc.Threads[0].Messages
	if len(msgs) == 0 || !strings.Contains(textOfBlocks(msgs[0].Content), "[[text:200]]") {
		t.Fatalf("child's messages %+v, want its prompt kept", msgs)
	}
	if last := msgs[len(msgs)-1]; last.Role != "assistant" || last.StopReason != session.StopInterrupted {
		t.Fatalf("child's last message %+v, want its answer marked interrupted", last)
	}
}

// A sub-agent of a session in plan mode plans too: it starts in plan
// mode, where its shell may only read (bash allowed in settings, and the
// sub-agent asked to write a file, forked or not: nothing is written).
func TestSubagentInheritsPlanMode(t *testing.T) {
	realSandbox(t)
	e, _ := newSubagentEnv(t, profiles.Subagents{MaxDepth: 2, MaxRunning: 4})
	s := e.newSession(t)
	if mode, err := s.SetMode(ModePlan); err != nil || mode != ModePlan {
		t.Fatalf("SetMode(plan) = %q, %v", mode, err)
	}
	target := filepath.Join(e.work, "made.txt")
	write := `⟦tool:bash {"command":"touch ` + target + ` && echo wrote"}⟧`
	r, err := s.Run(context.Background(), taskCall(t, "scout", write, false)+" "+taskCall(t, "forked scout", write, true))
	if err != nil || r.Failed() {
		t.Fatalf("turn %+v %v", r, err)
	}
	res := results(s)
	if len(res) != 2 {
		t.Fatalf("%d outcomes, want 2", len(res))
	}
	for _, b := range res {
		doc, err := e.store.Load(b.Session)
		if err != nil {
			t.Fatal(err)
		}
		if doc.Mode != ModePlan {
			t.Fatalf("child's mode %q, want plan", doc.Mode)
		}
		if out := resultText(t, b); !strings.Contains(out, "read-only sandbox") || !strings.Contains(out, "cannot touch") {
			t.Fatalf("child's answer %q: want its write refused by the read-only sandbox", out)
		}
	}
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a sub-agent of a plan wrote a file: %v", err)
	}
}

// Archiving the parent stops its sub-agents: they work for nobody now.
func TestArchivingTheParentStopsItsSubagents(t *testing.T) {
	e, _ := newSubagentEnv(t, profiles.Subagents{MaxDepth: 2, MaxRunning: 4})
	s := e.newSession(t)
	done := make(chan TurnResult, 1)
	go func() {
		r, _ := s.Run(context.Background(), taskCall(t, "slow", "⟦text:200⟧ ⟦delay:50ms⟧", false))
		done <- r
	}()
	deadline := time.After(30 * time.Second)
	for len(s.m.Subagents()) == 0 {
		select {
		case <-deadline:
			t.Fatal("the sub-agent never started")
		case <-time.After(5 * time.Millisecond):
		}
	}
	child := s.m.Subagents()[0].Session
	if _, err := s.Archive(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the parent's turn went on after its archive: the sub-agent was not stopped")
	}
	if _, ok := s.m.Get(child); ok {
		t.Fatal("the sub-agent's session is still open")
	}
	for _, b := range results(s) {
		if out := resultText(t, b); !b.Interrupted || !strings.Contains(out, "stopped") {
			t.Fatalf("task outcome %q (interrupted %v), want it stopped", out, b.Interrupted)
		}
	}
	// The archive finishes once the turn has ended (its files move in the
	// background): wait for it, so the test's folder is not removed under
	// the move.
	for archived := false; !archived; {
		select {
		case <-deadline:
			t.Fatal("the archive never finished")
		case <-time.After(10 * time.Millisecond):
		}
		archived, _ = e.store.IsArchived(s.ID())
		if _, open := s.m.Get(s.ID()); open {
			archived = false
		}
	}
}
