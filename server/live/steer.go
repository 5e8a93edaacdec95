package live

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"myco/server/event"
	"myco/session"
)

// ErrQueuedGone means a queued message can no longer be changed: its turn
// has started (it is in the conversation now) or it was cancelled.
var ErrQueuedGone = errors.New("that message is no longer queued: its turn has started, or it was cancelled")

// steering holds the guidance sent with /steer while a turn runs, until
// the turn's next model call takes it in. It lives in memory only: a steer
// is for the turn running in this process, and the person sees it listed
// with the queue until it goes in. s.mu guards it.
type steering struct {
	// open is the turn that takes steers now; nil once it has made its
	// last model call (a steer then waits in the queue for a turn of its
	// own, as any message sent during a turn does).
	open    *turnSlot
	pending []Queued
}

// Steer gives the running turn guidance that goes in before its next model
// call, after the tool round now running. With no turn running it is an
// ordinary message (its turn is returned); during a compaction, or once
// the turn has made its last call, it waits in the queue.
func (s *Session) Steer(text string) (turn, steer string, err error) {
	text = strings.TrimRight(text, " \t\r\n")
	if strings.TrimSpace(text) == "" {
		return "", "", ErrEmptyMessage
	}
	s.mu.Lock()
	if err := s.refuseLocked(); err != nil {
		s.mu.Unlock()
		return "", "", err
	}
	if s.slot != nil && s.steer.open == s.slot {
		q := Queued{ID: uuid.NewString(), Text: text, At: s.m.opts.Now().UTC()}
		s.steer.pending = append(s.steer.pending, q)
		s.mu.Unlock()
		s.publishQueue()
		return "", q.ID, nil
	}
	s.mu.Unlock()
	return s.Submit(text, nil, true)
}

// openSteers lets the turn of slot take steers; runTurn calls it.
func (s *Session) openSteers(slot *turnSlot) {
	s.mu.Lock()
	s.steer = steering{open: slot}
	s.mu.Unlock()
}

// takeSteers saves the steers sent since the last model call as the
// person's messages, after the tool round's results, so the next call
// sees them where they went in. It is called at the settled boundary
// between a tool round and the next model call.
func (s *Session) takeSteers() error {
	s.mu.Lock()
	pending := s.steer.pending
	s.steer.pending = nil
	s.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	s.publishQueue()
	for _, q := range pending {
		m := session.Message{
			ID: uuid.NewString(), Role: "user", At: s.m.opts.Now().UTC(), Human: true, Steer: true,
			Content: []session.Block{{Type: session.BlockText, Text: q.Text}},
		}
		if err := s.appendMessage(m); err != nil {
			return fmt.Errorf("steer: %w", err)
		}
	}
	return nil
}

// closeSteers ends the taking of steers for the turn that is ending: the
// ones it did not take in go to the front of the queue (durably), so the
// next turn starts with them, as an ordinary message would.
func (s *Session) closeSteers() {
	s.mu.Lock()
	pending := s.steer.pending
	s.steer = steering{}
	s.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	if _, err := s.w.Update(func(d *session.Document) error {
		d.Queued = append(slices.Clone(pending), d.Queued...)
		return nil
	}); err != nil {
		s.m.log.Warn("steers not queued after their turn ended", "session", s.id, "err", err)
	}
	s.publishQueue()
}

// queueView is the queue as the tabs see it: the pending steers first (they
// go in sooner), then the messages waiting for a turn of their own.
func (s *Session) queueView() []event.Queued {
	s.mu.Lock()
	steers := slices.Clone(s.steer.pending)
	s.mu.Unlock()
	var q []event.Queued
	s.w.View(func(d *session.Document) { q = queuedEvents(d.Queued) })
	return append(steerEvents(steers), q...)
}

// steerEvents is pending steers as the tabs see them (never nil).
func steerEvents(steers []Queued) []event.Queued {
	out := make([]event.Queued, 0, len(steers))
	for _, m := range steers {
		out = append(out, event.Queued{ID: m.ID, Text: m.Text, At: m.At, Steer: true})
	}
	return out
}

// EditQueued changes the text of a message waiting in the queue. Once its
// turn has started it is ErrQueuedGone: the edit and the start are
// serialized by queueMu, and the start reads the text it sends under it.
func (s *Session) EditQueued(id, text string) (event.Queued, error) {
	text = strings.TrimRight(text, " \t\r\n")
	var out event.Queued
	err := s.changeQueue(id, func(q []Queued, i int) ([]Queued, error) {
		if text == "" && len(q[i].Images) == 0 {
			return nil, ErrEmptyMessage
		}
		q[i].Text = text
		out = queuedEvents(q[i : i+1])[0]
		return q, nil
	})
	return out, err
}

// CancelQueued takes a message out of the queue before its turn starts.
func (s *Session) CancelQueued(id string) error {
	return s.changeQueue(id, func(q []Queued, i int) ([]Queued, error) {
		return slices.Delete(q, i, i+1), nil
	})
}

// changeQueue applies fn to a copy of the queue, at the index of id.
func (s *Session) changeQueue(id string, fn func(q []Queued, i int) ([]Queued, error)) error {
	s.mu.Lock()
	err := s.refuseLocked()
	s.mu.Unlock()
	if err != nil {
		return err
	}
	s.queueMu.Lock()
	defer s.queueMu.Unlock()
	_, err = s.w.Update(func(d *session.Document) error {
		i := slices.IndexFunc(d.Queued, func(q Queued) bool { return q.ID == id })
		if i < 0 {
			return ErrQueuedGone
		}
		q, err := fn(slices.Clone(d.Queued), i)
		if err != nil {
			return err
		}
		d.Queued = q
		return nil
	})
	if isClosed(err) {
		err = ErrSessionClosed
	}
	if err != nil {
		return err
	}
	s.publishQueue()
	return nil
}

// errQueueEmpty: the message a free slot was claimed for was cancelled
// just before its turn could start, and nothing else waits.
var errQueueEmpty = errors.New("nothing is queued")

// appendQueued saves the first queued message as the person's message,
// leaving the queue in the same save. It reads the message under queueMu,
// so an edit made until then is what is sent, and one made after finds it
// gone.
func (s *Session) appendQueued() (session.Message, error) {
	s.queueMu.Lock()
	defer s.queueMu.Unlock()
	next := s.nextQueued()
	if next == nil {
		return session.Message{}, errQueueEmpty
	}
	return s.appendHuman(next.Text, next.Images, next.ID)
}
