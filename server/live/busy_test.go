package live

import (
	"sync/atomic"
	"testing"
	"time"

	"myco/server/event"
	"myco/session"
)

// busyAtEnd records whether the manager was busy when each turn.end was
// published.
type busyAtEnd struct {
	m    atomic.Pointer[Manager]
	busy chan bool
}

func (b *busyAtEnd) Publish(_ string, ev event.Event) {
	if _, ok := ev.(event.TurnEnd); ok {
		b.busy <- b.m.Load().Busy()
	}
}

// The manager stays busy until a turn's end is told: a `myco run` whose
// server waits for other turns before it stops (waitIdle) must not stop
// it between the turn freeing its slot and its turn.end going out, which
// the run sharing the server waits for.
func TestBusyUntilTurnEndIsPublished(t *testing.T) {
	hook := &busyAtEnd{busy: make(chan bool, 1)}
	e := newFileEnv(t, func(o *Options) { o.Events = hook })
	doc, err := e.store.Create(session.NewSession{Title: "busy", Cwd: e.work})
	if err != nil {
		t.Fatal(err)
	}
	m := NewManager(e.opts)
	hook.m.Store(m)
	t.Cleanup(m.Close)
	s, err := m.Open(doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Submit("hello", nil, false); err != nil {
		t.Fatal(err)
	}
	if !<-hook.busy {
		t.Error("the manager was idle when turn.end was published: a stopping server could cut it")
	}
	for deadline := time.Now().Add(10 * time.Second); m.Busy(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("still busy 10 s after turn.end")
		}
	}
}
