package main

import (
	"testing"

	"myco/session"
)

// TestRunPlan: --plan starts the new session in plan mode, and puts a
// continued one in it before the turn.
func TestRunPlan(t *testing.T) {
	c := newRunCLI(t, nil)
	c.runOK("--plan", "-n", "planned", "think it through [[say:a plan]]")
	if doc := c.load("planned"); doc.Mode != session.ModePlan {
		t.Errorf("new session's mode %q, want %q", doc.Mode, session.ModePlan)
	}
	c.runOK("-n", "built", "go [[say:done]]")
	if doc := c.load("built"); doc.Mode != "" {
		t.Errorf("without --plan the mode is %q", doc.Mode)
	}
	c.runOK("--plan", "--session", "built", "now plan [[say:a plan]]")
	if doc := c.load("built"); doc.Mode != session.ModePlan {
		t.Errorf("continued session's mode %q, want %q", doc.Mode, session.ModePlan)
	}
}
