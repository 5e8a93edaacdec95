package live

import (
	"errors"
	"strings"
	"testing"

	"myco/server/event"
)

// Stop kills the person's running !command (which a snapshot shows
// running, then with its outcome) as it kills the agent's, even
// with no turn running; with nothing running it is still ErrNoTurn.
func TestStopKillsARunningCommand(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	if _, err := s.Stop(); !errors.Is(err, ErrNoTurn) {
		t.Fatalf("Stop with nothing running = %v, want ErrNoTurn", err)
	}
	id, err := s.RunCommand("echo started; while :; do sleep 0.05; done")
	if err != nil {
		t.Fatal(err)
	}
	for {
		ev := e.events.next(t, "tool.output")
		if o := ev.data.(event.ToolOutput); o.ToolUseID == id && strings.Contains(o.Text, "started") {
			break
		}
	}
	// A tab that connects now gets the running command's card.
	if notes := s.Snapshot().Notes; len(notes) != 1 || notes[0].ID != id || notes[0].Exit != nil || notes[0].Command == "" {
		t.Fatalf("snapshot notes while running: %+v", notes)
	}
	if _, err := s.Stop(); err != nil {
		t.Fatalf("Stop during a command = %v", err)
	}
	for {
		ev := e.events.next(t, "note")
		if n := ev.data.(event.Note); n.ID == id && n.Exit != nil {
			if !strings.Contains(n.Text, "[stopped by the person; the command was killed]") {
				t.Fatalf("outcome %q, want it stopped", n.Text)
			}
			break
		}
	}
	if _, err := s.Stop(); !errors.Is(err, ErrNoTurn) {
		t.Errorf("Stop after the command ended = %v, want ErrNoTurn", err)
	}
	// Then its outcome, waiting for the next message.
	if notes := s.Snapshot().Notes; len(notes) != 1 || notes[0].ID != id || notes[0].Exit == nil {
		t.Errorf("snapshot notes after the command: %+v", notes)
	}
}
