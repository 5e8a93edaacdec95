package main

import (
	"context"
	"strings"
	"testing"

	"myco/session"
)

// myco sessions compact, with no server running, starts one for the call
// (the summary is a model call), compacts, and leaves nothing behind.
func TestSessionsCompact(t *testing.T) {
	c := newRunCLI(t, nil)
	c.runOK("-n", "talk", "first question")
	c.runOK("--session", "talk", "second question")
	out, errOut, code := c.myco(context.Background(), "", "sessions", "compact", "talk", "--focus", "the question")
	if code != 0 {
		t.Fatalf("compact: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "compacted ") || !strings.Contains(out, "thread 2") {
		t.Errorf("compact said %q", out)
	}
	c.assertNoServer()
	var found bool
	sums, err := c.store("default").List(session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sums {
		if s.Name != "talk" {
			continue
		}
		found = true
		doc, err := c.store("default").Load(s.ID)
		if err != nil {
			t.Fatal(err)
		}
		last := doc.Threads[len(doc.Threads)-1]
		if len(doc.Threads) != 2 || !strings.HasPrefix(last.Summary, "Summary:") || len(doc.Threads[0].Messages) < 4 {
			t.Fatalf("threads %d, summary %q: want the first kept whole and a summarised successor", len(doc.Threads), last.Summary)
		}
	}
	if !found {
		t.Fatal("no session named talk")
	}
}

// archive, restore and delete take several IDs: each is tried, and one
// that fails is reported without stopping the others.
func TestSessionsSeveralIDs(t *testing.T) {
	c := newCLI(t)
	a, b := c.create("default", "one"), c.create("default", "two")
	out, errOut, code := c.run("sessions", "archive", a, "nosuchid", b)
	if code == 0 || !strings.Contains(errOut, "nosuchid") {
		t.Fatalf("archive with one unknown ID: exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "archived "+a) || !strings.Contains(out, "archived "+b) {
		t.Errorf("archive said %q, want both archived", out)
	}
	out, _, code = c.run("sessions", "restore", a, b)
	if code != 0 || strings.Count(out, "restored ") != 2 {
		t.Errorf("restore: exit %d, %q", code, out)
	}
	c.run("sessions", "archive", a, b)
	out, _, code = c.run("sessions", "delete", "--yes", a, b)
	if code != 0 || strings.Count(out, "deleted ") != 2 {
		t.Errorf("delete: exit %d, %q", code, out)
	}
}
