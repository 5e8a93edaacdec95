package live

import (
	"errors"
	"path/filepath"
	"strings"
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

// TestStoredKeyIsOutOfTheAgentsReach: a key the Settings page stores lives
// in the profile folder, which the file tools refuse and plan mode's
// sandbox hides, like the rest of myco's data.
func TestStoredKeyIsOutOfTheAgentsReach(t *testing.T) {
	e := newFileEnv(t, allowEdits)
	s := e.newSession(t)
	if err := profiles.SaveKey(e.profile, "anthropic", "sk-ant-stored"); err != nil {
		t.Fatal(err)
	}
	path, err := profiles.KeyFilePath(e.profile, "anthropic")
	if err != nil {
		t.Fatal(err)
	}
	out := run(t, s, "read_file", map[string]any{"path": path})
	wantOutcome(t, out, true, "is denied")
	if strings.Contains(out.output, "sk-ant-stored") {
		t.Errorf("read_file showed the key: %s", out.output)
	}
	hidden := false
	for _, p := range s.m.hiddenFromPlans() {
		hidden = hidden || strings.HasPrefix(path, p+string(filepath.Separator))
	}
	if !hidden {
		t.Errorf("plan mode's sandbox hides %v, not the key file %s", s.m.hiddenFromPlans(), path)
	}
}

// TestUndoFollowsTheSettings: undo turned off in the settings stops the
// snapshots and /undo at once; turned on again, the next turn is undoable.
func TestUndoFollowsTheSettings(t *testing.T) {
	e := newUndoEnv(t)
	off := false
	withSettings(&e.opts, func(st *profiles.Settings) { st.Undo = &off })
	s := e.newSession(t)
	turn(t, e, s, "first [[say:hello]]")
	if _, err := s.PlanUndo(); !errors.Is(err, ErrUndoOff) {
		t.Errorf("PlanUndo with undo off: %v, want ErrUndoOff", err)
	}
	withSettings(&e.opts, func(st *profiles.Settings) { st.Undo = nil })
	turn(t, e, s, "second [[say:again]]")
	if _, err := s.PlanUndo(); err != nil {
		t.Errorf("PlanUndo after undo was turned on and a turn ran: %v", err)
	}
}
