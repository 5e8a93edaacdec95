package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"myco/session"
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

// Ten sends at once, each with its own store (as ten processes have): each
// holds the session's lock for a moment to write its note, and the others
// wait for it rather than failing. Every one succeeds and all ten notes land.
func TestSendConcurrent(t *testing.T) {
	const n = 10
	c := newCLI(t)
	id := c.create("default", "busy")
	errs := make(chan string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out, errOut bytes.Buffer
			getenv := func(k string) string {
				if k == "MYCO_HOME" {
					return c.home
				}
				return ""
			}
			err := run(context.Background(), []string{"send", id, fmt.Sprintf("note %d", i)}, getenv, nil, &out, &errOut)
			if code := exitCode(err, &errOut); code != 0 {
				errs <- fmt.Sprintf("send %d: exit %d: %s", i, code, errOut.String())
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	doc, err := c.store("default").Load(id)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, note := range doc.PendingNotes() {
		got = append(got, note.Text)
	}
	slices.Sort(got)
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("note %d", i))
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("notes %q, want %q", got, want)
	}
}

// A session another process keeps holding is waited for, then refused with
// the holder named; any other error is not retried.
func TestRetryLocked(t *testing.T) {
	c := newCLI(t)
	id := c.create("default", "held")
	holder, err := c.store("default").Lock(id, session.Owner{PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Unlock()
	tries := 0
	err = retryLocked(context.Background(), 20*time.Millisecond, func() error {
		tries++
		return storeNote(c.store("default"), id, "", "waits")
	})
	if !errors.Is(err, session.ErrLocked) || !strings.Contains(err.Error(), "locked by pid 4242") || !strings.Contains(err.Error(), "waited 20ms") || tries < 2 {
		t.Errorf("after %d tries: %v", tries, err)
	}
	tries = 0
	other := errors.New("not a lock")
	if err := retryLocked(context.Background(), time.Hour, func() error { tries++; return other }); err != other || tries != 1 {
		t.Errorf("after %d tries: %v", tries, err)
	}
}
