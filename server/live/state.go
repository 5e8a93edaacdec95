package live

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"myco/server/event"
	"myco/session"
)

// States of a live session, as the tabs see them (event.Status); the
// table in doc.go says how one leads to another.
const (
	StatusIdle       = "idle"
	StatusThinking   = "thinking"
	StatusWriting    = "writing"
	StatusTool       = "tool"
	StatusApproval   = "approval"
	StatusRetrying   = "retrying"
	StatusCompacting = "compacting"
	StatusStopping   = "stopping"
	StatusClosed     = "closed"
	// StatusArchived is what the tabs of a session archived in this
	// process are told; the session itself stays in its busy state until
	// its turn ends.
	StatusArchived = "archived"
)

// slotKind says what holds the turn slot.
type slotKind int

const (
	slotTurn       slotKind = iota // a turn: a submission, a queued message or a retry
	slotCompaction                 // a compaction asked for by the person
)

// turnSlot is the claim on the session's one running turn or compaction.
// Session.slot points to it while it is held; release frees it.
type turnSlot struct {
	kind    slotKind
	turn    string
	started time.Time // when it was claimed
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{} // closed by release
	// answerID, for a retry, is the ID the first answer takes: the answers
	// it replaces are marked with it before the turn starts.
	answerID string
	// snapshotted is closed once the folder's snapshot before the turn is
	// taken; tools wait for it, the first model call does not (undo.go).
	snapshotted chan struct{}
	// command, on a turn a custom command started, is its model and the
	// tools it may run without asking (custom.go); nil otherwise.
	command *commandGrant
	// ranTools: the turn ran a tool (set by its loop, read once it ended).
	ranTools bool
	// answer is the text of the turn's last answer (set by its loop);
	// end is how it ended, set by release before done is closed: what
	// Run returns to a caller that waits for the turn (run.go).
	answer string
	end    turnEnd
}

// turnEnd is how a slot's work ended, for release to tell the tabs.
type turnEnd struct {
	stop  string // the last stop reason; "" for a compaction
	usage session.Usage
	err   error
	// notStarted: the slot was claimed but its turn never began (its
	// message could not be saved): the tabs heard of no turn, and the
	// queue is not handed over (it would fail the same way).
	notStarted bool
}

// claimLocked takes the free turn slot: idle → busy. s.mu is held.
func (s *Session) claimLocked(kind slotKind) *turnSlot {
	ctx, cancel := context.WithCancel(context.Background())
	now := s.m.opts.Now()
	slot := &turnSlot{kind: kind, turn: uuid.NewString(), ctx: ctx, cancel: cancel, done: make(chan struct{}), started: now}
	s.slot = slot
	s.touched = now
	return slot
}

// enter moves a busy session to another of its busy states and tells the
// tabs. A stop in progress keeps the session stopping.
func (s *Session) enter(status, detail string) {
	s.mu.Lock()
	if s.status == StatusStopping || s.slot == nil || (s.status == status && s.detail == detail) {
		// Stopping stays; the tabs already know a state it is in.
		s.mu.Unlock()
		return
	}
	s.status, s.detail = status, detail
	// An archived session's tabs keep "archived" (read-only) while its
	// last turn finishes; a restore tells them the state it is in then.
	tell := !s.archived
	s.mu.Unlock()
	if tell {
		s.publish(event.Status{Status: status, Detail: detail})
	}
}

// release is the one way out of a busy state. It frees slot, answers
// pending approvals (as a stop), tells the tabs how the work ended, folds
// the journal into the document in the background, and then hands the
// slot to the next queued message, or closes the session when an archive
// waits for it and nothing is queued. A closing session starts nothing.
func (s *Session) release(slot *turnSlot, end turnEnd) {
	s.mu.Lock()
	if s.slot != slot {
		s.mu.Unlock()
		panic("live: release of a slot that is not held")
	}
	s.slot = nil
	s.releasing++ // busy until the tabs are told: a shutdown waits for turn.end
	s.status, s.detail = StatusIdle, ""
	for id, a := range s.approvals {
		delete(s.approvals, id)
		close(a.decided)
	}
	var (
		sessionUsage session.Usage
		title        string
		usageHTML    string
		next         *Queued
		nextSlot     *turnSlot
	)
	s.w.View(func(d *session.Document) {
		// The session's total is derived from the document, so the tab's
		// live figure and the page's agree (carried messages counted once).
		sessionUsage, title = d.Usage(), d.Title
		if d.Provisional() {
			title = "" // the first words, which the automatic title replaces
		}
		if slot.kind == slotTurn && !end.notStarted {
			usageHTML = s.renderTurnUsage(d)
		}
	})
	if !s.closing && !s.archived && !end.notStarted {
		next = s.nextQueued()
	}
	if next != nil {
		nextSlot = s.claimLocked(slotTurn)
	}
	needTitle := slot.kind == slotTurn && !end.notStarted && title == "" && end.stop != session.StopError && !s.closing
	archiveNow := s.archived && !s.archiveClaimed && !s.closing && nextSlot == nil
	// An archived session's tabs stay read-only as the turn ends: idle
	// would offer a composer whose messages are refused.
	restStatus := StatusIdle
	if s.archived {
		restStatus = StatusArchived
	}
	if archiveNow {
		s.archiveClaimed = true
	}
	s.mu.Unlock()
	if slot.kind == slotTurn && !end.notStarted {
		s.goalTurnEnded(end) // before done: a closing session still saves it
	}
	slot.end = end
	slot.cancel()
	close(slot.done)

	switch {
	case end.notStarted:
	case slot.kind == slotTurn:
		if end.err != nil && end.stop != session.StopInterrupted {
			// Saved before the tabs hear the turn ended, so a reload at
			// turn.end already shows it.
			s.recordFailure(end.err)
			s.tellStopped(end.err) // a guard's or a budget's stop, for the model (guard.go)
			s.publish(event.TurnError{Turn: slot.turn, Error: end.err.Error()})
		}
		s.publish(event.TurnEnd{Turn: slot.turn, StopReason: end.stop, Usage: usageOf(end.usage), SessionUsage: usageOf(sessionUsage), HTML: usageHTML})
	default:
		s.publishContext()
	}
	if !end.notStarted {
		// Counts, last activity and tokens changed with the turn or the
		// compaction.
		s.publishPanel()
	}
	if nextSlot == nil {
		s.publish(event.Status{Status: restStatus})
	}
	s.mu.Lock()
	s.releasing--
	s.mu.Unlock()
	go s.fold()
	if needTitle {
		go s.makeTitle()
	}
	switch {
	case nextSlot != nil:
		s.startQueued(nextSlot, next)
	case archiveNow:
		go s.m.FinishArchive(s.id)
	default:
		s.continueGoal() // the goal's next turn, if it runs (goal.go)
	}
}

// fold writes the journal into the document when it is due (at once for
// a small session; for a large one once its journal has grown), off the
// turn's path: the tabs were told already, and a large session takes a
// while to write.
func (s *Session) fold() {
	if err := s.w.FoldIfDue(); err != nil && !isClosed(err) {
		s.m.log.Warn("folding the journal failed; it stays, and is replayed on open", "session", s.id, "err", err)
	}
}

// startQueued saves a message that waited and runs its turn in the slot
// already claimed for it.
func (s *Session) startQueued(slot *turnSlot, next *Queued) {
	// The queue as it stands now, not next: an edit may have come between.
	m, err := s.appendQueued()
	if errors.Is(err, errQueueEmpty) { // cancelled just before its start
		s.release(slot, turnEnd{notStarted: true})
		return
	}
	if err != nil {
		// No turn: the queued message never started one; it stays queued.
		s.publish(event.TurnError{Error: "queued message not sent: " + err.Error()})
		s.release(slot, turnEnd{notStarted: true})
		return
	}
	s.publishQueue()
	s.runTurn(slot, m.ID)
}
