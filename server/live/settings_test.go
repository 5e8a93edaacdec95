package live

import (
	"testing"

	"myco/profiles"
	"myco/server/event"
)

// TestSettingsReachAnOpenSession: a change of the settings holder reaches
// a session that is already open at its next tool call, without a new
// Manager (a restart): todo_write is refused, then offered; an edit goes
// ahead, then asks.
func TestSettingsReachAnOpenSession(t *testing.T) {
	e := newFileEnv(t, allowEdits)
	s := e.newSession(t)
	e.write(t, "a.txt", "one\n")

	todo := map[string]any{"items": []map[string]string{{"text": "a step", "state": "todo"}}}
	wantOutcome(t, run(t, s, "todo_write", todo), true, "todo_write is off")
	withSettings(&e.opts, func(st *profiles.Settings) { st.Todo = true })
	wantOutcome(t, run(t, s, "todo_write", todo), false)

	run(t, s, "read_file", map[string]any{"path": "a.txt"})
	wantOutcome(t, run(t, s, "edit_file", edit("a.txt", "one", "two")), false, "Edited")
	withSettings(&e.opts, func(st *profiles.Settings) { st.Approvals.Edit = profiles.ApprovalAsk })
	done := make(chan toolOutcome, 1)
	go func() { done <- run(t, s, "edit_file", edit("a.txt", "two", "three")) }()
	a := e.events.next(t, "tool.approval").data.(event.ToolApproval)
	if err := s.Approve(a.ToolUseID, DecisionOnce); err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, <-done, false, "Edited")
}
