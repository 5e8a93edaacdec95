package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// With no server running, a note is written into the session's document,
// where it waits for the session to be opened; TEXT may come on stdin.
func TestSendWithoutServer(t *testing.T) {
	c := newCLI(t)
	id := c.create("default", "work")
	if out, errOut, code := c.run("send", "--from", "nightly build", id[:8], "tests failed"); code != 0 {
		t.Fatalf("send: %d %s %s", code, out, errOut)
	}
	var out, errOut bytes.Buffer
	getenv := func(k string) string {
		if k == "MYCO_HOME" {
			return c.home
		}
		return ""
	}
	if err := run(context.Background(), []string{"send", id}, getenv, strings.NewReader("from stdin\n"), &out, &errOut); err != nil {
		t.Fatalf("send from stdin: %v %s", err, errOut.String())
	}
	doc, err := c.store("default").Load(id)
	if err != nil {
		t.Fatal(err)
	}
	notes := doc.PendingNotes()
	if len(notes) != 2 || notes[0].From != "nightly build" || notes[0].Text != "tests failed" || notes[1].Text != "from stdin" {
		t.Fatalf("notes = %+v", notes)
	}
	if _, _, code := c.run("send", id, "  "); code == 0 {
		t.Error("an empty note was accepted")
	}
}
