package main

import (
	"strings"
	"testing"

	"myco/session"
)

func TestForkAndDeleteCommands(t *testing.T) {
	c := newCLI(t)
	id := c.create("default", "Parent")
	if _, err := c.store("default").Update(id, func(d *session.Document) error {
		for _, m := range []string{"q1", "q2"} {
			d.Threads[0].Messages = append(d.Threads[0].Messages,
				session.Message{ID: m, Role: "user", Human: true, Content: []session.Block{{Type: session.BlockText, Text: m}}},
				session.Message{ID: m + "a", Role: "assistant", Content: []session.Block{{Type: session.BlockText, Text: "ok"}}})
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	out, errOut, code := c.run("sessions", "fork", "@last", "--keep-turns", "1")
	if code != 0 || !strings.Contains(out, "forked "+id) || !strings.Contains(out, "(2 messages)") {
		t.Fatalf("fork @last: %d %q %q", code, out, errOut)
	}
	_, errOut, code = c.run("sessions", "fork", id, "--keep-turns", "5")
	if code != 1 || !strings.Contains(errOut, "the nearest is 2") {
		t.Errorf("fork past the end: %d %q", code, errOut)
	}
	// The fork is now the most recently active session.
	out, _, _ = c.run("sessions", "show", "@last")
	if !strings.Contains(out, "q1") || strings.Contains(out, "q2") {
		t.Errorf("show @last (the fork): %q", out)
	}

	_, errOut, code = c.run("sessions", "delete", id, "--yes")
	if code != 1 || !strings.Contains(errOut, "archive it first") {
		t.Errorf("delete an active session: %d %q", code, errOut)
	}
	c.run("sessions", "archive", id)
	_, errOut, code = c.run("sessions", "delete", id)
	if code != 1 || !strings.Contains(errOut, "pass --yes") {
		t.Errorf("delete without a terminal or --yes: %d %q", code, errOut)
	}
	out, errOut, code = c.run("sessions", "delete", id, "--yes")
	if code != 0 || !strings.Contains(out, "deleted "+id) {
		t.Fatalf("delete --yes: %d %q %q", code, out, errOut)
	}
	if _, err := c.store("default").Load(id); err == nil {
		t.Error("the session is still there")
	}
}

func TestConfirmed(t *testing.T) {
	for in, want := range map[string]bool{"y\n": true, "YES\n": true, "\n": false, "n\n": false, "": false, "yep\n": false} {
		if got := confirmed(strings.NewReader(in)); got != want {
			t.Errorf("confirmed(%q) = %v", in, got)
		}
	}
}
