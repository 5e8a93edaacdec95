package live

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"myco/internal/errkind"
	"myco/server/event"
	"myco/session"
)

// ErrQueuedGone means a queued message can no longer be changed: its turn
// has started (it is in the conversation now) or it was cancelled.
var ErrQueuedGone = errkind.New(errkind.Conflict, "that message is no longer queued: its turn has started, or it was cancelled")

// steering says which turn takes steers now. The steers themselves wait
// in the document's queue, marked steer, saved before /steer is answered:
// a crash keeps them like any queued message (the session reopened keeps
// them as the person's messages). queueMu orders a steer's save against
// the turn taking it in or closing. s.mu guards open.
type steering struct {
	// open is the turn that takes steers now; nil once it has made its
	// last model call (a steer then waits in the queue for a turn of its
	// own, as any message sent during a turn does).
	open *turnSlot
}

// Steer gives the running turn guidance that goes in before its next model
// call, after the tool round now running (its ID is steer). With no turn
// running it is an ordinary message (its turn is returned); during a
// compaction, or once the turn has made its last call, it waits in the
// queue (queued).
func (s *Session) Steer(text string) (turn, steer, queued string, err error) {
	text = strings.TrimRight(text, " \t\r\n")
	if strings.TrimSpace(text) == "" {
		return "", "", "", ErrEmptyMessage
	}
	s.queueMu.Lock()
	s.mu.Lock()
	if err := s.refuseLocked(); err != nil {
		s.mu.Unlock()
		s.queueMu.Unlock()
		return "", "", "", err
	}
	open := s.slot != nil && s.steer.open == s.slot
	s.mu.Unlock()
	if !open {
		s.queueMu.Unlock()
		turn, queued, err := s.Submit(text, nil, true)
		return turn, "", queued, err
	}
	q := Queued{ID: uuid.NewString(), Text: text, At: s.m.opts.Now().UTC(), Steer: true}
	_, err = s.w.Update(func(d *session.Document) error {
		d.Queued = withSteer(d.Queued, q)
		return nil
	})
	s.queueMu.Unlock()
	if isClosed(err) {
		err = ErrSessionClosed
	}
	if err != nil {
		return "", "", "", fmt.Errorf("steer: %w", err)
	}
	s.publishQueue()
	return "", q.ID, "", nil
}

// withSteer is the queue with steer q after the steers already waiting,
// before the messages waiting for a turn of their own: steers go in
// sooner. It returns a new slice.
func withSteer(queue []Queued, q Queued) []Queued {
	i := slices.IndexFunc(queue, func(x Queued) bool { return !x.Steer })
	if i < 0 {
		i = len(queue)
	}
	return slices.Insert(slices.Clone(queue), i, q)
}

// openSteers lets the turn of slot take steers; runTurn calls it.
func (s *Session) openSteers(slot *turnSlot) {
	s.mu.Lock()
	s.steer = steering{open: slot}
	s.mu.Unlock()
}

// takeSteers saves the steers sent since the last model call as the
// person's messages, after the tool round's results, so the next call
// sees them where they went in. Each leaves the queue in the record that
// saves it: a crash keeps it once, queued or in the thread. It is called
// at the settled boundary between a tool round and the next model call.
func (s *Session) takeSteers() error {
	s.queueMu.Lock()
	defer s.queueMu.Unlock()
	var steers []Queued
	s.w.View(func(d *session.Document) {
		for _, q := range d.Queued {
			if q.Steer {
				steers = append(steers, q)
			}
		}
	})
	if len(steers) == 0 {
		return nil
	}
	for _, q := range steers {
		m := session.Message{
			ID: uuid.NewString(), Role: "user", At: s.m.opts.Now().UTC(), Human: true, Steer: true,
			Content: []session.Block{{Type: session.BlockText, Text: q.Text}},
		}
		if err := s.appendMessage(m, q.ID); err != nil {
			return fmt.Errorf("steer: %w", err)
		}
	}
	s.publishQueue()
	return nil
}

// closeSteers ends the taking of steers for the turn that is ending: the
// ones it did not take in stay at the front of the queue as ordinary
// messages (durably), so the next turn starts with them.
func (s *Session) closeSteers() {
	s.queueMu.Lock()
	defer s.queueMu.Unlock()
	s.mu.Lock()
	s.steer = steering{}
	s.mu.Unlock()
	var waiting bool
	s.w.View(func(d *session.Document) {
		waiting = slices.ContainsFunc(d.Queued, func(q Queued) bool { return q.Steer })
	})
	if !waiting {
		return
	}
	if _, err := s.w.Update(func(d *session.Document) error {
		q := slices.Clone(d.Queued)
		for i := range q {
			q[i].Steer = false
		}
		d.Queued = q
		return nil
	}); err != nil {
		s.m.log.Warn("steers not queued after their turn ended", "session", s.id, "err", err)
	}
	s.publishQueue()
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
		// A steer cannot be edited or cancelled: it is the running turn's.
		i := slices.IndexFunc(d.Queued, func(q Queued) bool { return q.ID == id && !q.Steer })
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
	return s.appendHumanWith(next.Text, next.Images, next.Files, next.ID)
}
