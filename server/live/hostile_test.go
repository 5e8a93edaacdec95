package live

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"myco/session"
)

// within fails the test when fn has not returned by a generous deadline:
// not a speed check, a check that it returns at all.
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("%s did not return", what)
	}
}

// A FIFO named like a document once hung Open with the manager's mutex
// held: every other session, and Close (SIGTERM), waited on it for ever.
// Now Open refuses it as damaged, another session opens meanwhile and
// Close returns.
func TestOpenFIFODocumentHangsNothing(t *testing.T) {
	e := newFileEnv(t)
	good, err := e.store.Create(session.NewSession{Title: "good"})
	if err != nil {
		t.Fatal(err)
	}
	const fifoID = "0193c7b2-0000-7000-8000-0000000000f1"
	if err := syscall.Mkfifo(filepath.Join(e.profile, "session", fifoID+".json"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := NewManager(e.opts)
	var wg sync.WaitGroup
	var fifoErr error
	wg.Go(func() { _, fifoErr = m.Open(fifoID) })
	within(t, "Open of another session", func() {
		if _, err := m.Open(good.ID); err != nil {
			t.Errorf("Open(good) = %v", err)
		}
	})
	within(t, "Open of the FIFO", wg.Wait)
	if !errors.Is(fifoErr, session.ErrDamaged) || !strings.Contains(fifoErr.Error(), "named pipe") {
		t.Errorf("Open(FIFO) = %v, want damaged: a named pipe", fifoErr)
	}
	within(t, "Close", m.Close)
}

// Two Opens of one session at once get the same live session: the
// second waits for the first's placeholder rather than racing it for the
// writer lock (which it would lose with a LockedError).
func TestConcurrentOpensShareOneSession(t *testing.T) {
	e := newFileEnv(t)
	doc, err := e.store.Create(session.NewSession{Title: "shared"})
	if err != nil {
		t.Fatal(err)
	}
	m := NewManager(e.opts)
	defer m.Close()
	const n = 8
	got := make([]*Session, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { got[i], errs[i] = m.Open(doc.ID) })
	}
	within(t, "the Opens", wg.Wait)
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("Open %d: %v", i, errs[i])
		}
		if got[i] != got[0] {
			t.Errorf("Open %d returned another session", i)
		}
	}
}
