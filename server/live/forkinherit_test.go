package live

import (
	"testing"

	"myco/server/event"
	"myco/session"
)

// A fork opened in the process where its parent is open keeps the
// approvals the person gave the parent for the session, also when it was
// made at an earlier point; a fork of a session not open here has none.
func TestForkKeepsSessionApprovals(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	done := make(chan toolOutcome, 1)
	go func() { done <- run(t, s, "write_file", map[string]any{"path": "a.txt", "content": "a\n"}) }()
	a := e.events.next(t, "tool.approval").data.(event.ToolApproval)
	if err := s.Approve(a.ToolUseID, DecisionSession); err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, <-done, false, "Created")

	fork, err := e.store.Fork(s.ID(), session.ForkOptions{ByTurns: true, KeepTurns: 0})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := s.m.Open(fork.ID)
	if err != nil {
		t.Fatal(err)
	}
	// No approval asked: the write goes ahead at once.
	wantOutcome(t, run(t, fs, "write_file", map[string]any{"path": "b.txt", "content": "b\n"}), false, "Created")

	// Opened by another process (a new Manager), it starts with none.
	other, err := e.store.Fork(s.ID(), session.ForkOptions{ByTurns: true})
	if err != nil {
		t.Fatal(err)
	}
	os := e.open(t, other.ID)
	os.mu.Lock()
	n := len(os.allowed)
	os.mu.Unlock()
	if n != 0 {
		t.Errorf("a fork opened elsewhere has approvals %v", os.allowed)
	}
}
