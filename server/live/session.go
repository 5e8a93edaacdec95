package live

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"myco/internal/errkind"
	"myco/server/event"
	"myco/server/llm"
	"myco/server/lsp"
	"myco/server/mcphost"
	"myco/server/tools"
	"myco/session"
)

// Approval decisions.
const (
	DecisionOnce    = "once"
	DecisionSession = "session"
	DecisionDeny    = "deny"
)

// Errors a caller maps to answers.
var (
	ErrTurnRunning  = errkind.New(errkind.Conflict, "a turn is already running")
	ErrNoTurn       = errkind.New(errkind.Conflict, "no turn is running")
	ErrNoApproval   = errkind.New(errkind.Conflict, "no such pending approval")
	ErrBadDecision  = errkind.New(errkind.Invalid, "decision must be once, session or deny")
	ErrBadHunks     = errkind.New(errkind.Invalid, "hunks must be indexes of the change's hunks")
	ErrNothingToRun = errkind.New(errkind.Invalid, "nothing to retry: no message was sent yet")
	ErrEmptyMessage = errkind.New(errkind.Invalid, "the message is empty")
	ErrStopped      = errkind.New(errkind.Conflict, "stopped by the person")
)

// Session is a session open in this process.
type Session struct {
	m  *Manager
	id string
	w  *session.Writer

	// mu guards the live state below. The document is the writer's: read
	// it with s.w.View (under mu or not), change it only through s.w, and
	// never while holding mu (a durable change waits for the disk).
	mu        sync.Mutex
	snapMu    sync.Mutex       // held while a turn's folder snapshots are taken (turn.go)
	snapping  sync.WaitGroup   // a turn's snapshots still being taken (turn.go); close waits
	planCard  *event.PlanReady // "Build this plan?" still offered (plan.go); s.mu
	status    string
	detail    string
	slot      *turnSlot // the running turn or compaction; nil when idle
	releasing int       // releases still telling the tabs how their work ended (Busy)
	approvals map[string]*approval
	allowed   map[string]bool // tools allowed for this live session
	shell     *tools.Shell
	// shellNote is said once to the agent when its shell is not the one
	// its history ran in: a session resumed in a new process, or a fork.
	shellNote string
	toldShell bool
	// toldDay and toldCwd are the date and the shell's folder the agent
	// was last told of in a context note (request.go).
	toldDay, toldCwd string
	// stoppedTurn: the person stopped a turn, and the agent has not been
	// told yet (request.go's context note tells it, once).
	stoppedTurn bool
	// commands are the person's running !commands (shellcmd.go).
	commands runningCommands
	touched  time.Time
	// contextUsed is the context the last model call reported; autoOff,
	// when set, says why automatic compaction is off for this live session.
	contextUsed int
	autoOff     string
	// stamps are the file tools' read stamps: kept through compaction,
	// gone with this live session (files.go).
	stamps tools.Stamps
	// encoded keeps the bytes of the messages the model calls sent, so a
	// call encodes only what is new (llm.Encoded): the request side of a
	// turn stays flat as the thread grows.
	encoded llm.Encoded
	// closing stops queued messages from starting turns; closed stops
	// every write. archived: the session was archived while live; it
	// closes, and its files move, when it is next idle.
	closing, closed, archived bool
	// archiveClaimed: the archive's finish (close, move the files) is
	// under way; only one of Archive and release claims it.
	archiveClaimed bool
	// steer says which turn takes /steer guidance (steer.go); queueMu
	// orders edits of the queue (steers too) against the start of a queued
	// message, so an edit is either sent or refused, never lost.
	steer   steering
	queueMu sync.Mutex
	// children are the sub-agents this session's task calls run, by call
	// (subagent.go); watch is told the states this session enters, when
	// it is a sub-agent (its parent's card follows them).
	children map[string]*child
	watch    watcher
	// budgetParents are the sessions whose budgets this one's model calls
	// also count against, nearest first (ChargeAlsoTo, budget.go); s.mu.
	budgetParents []string
	// instr are the instruction files read for the system prompt
	// (instructions.go): set when the session opens and on /init reload
	// only, so the prompt stays byte-stable between.
	instr atomic.Pointer[instructions]
	// skills are the skills offered in the skill tool's description
	// (custom.go): set like instr, for the same reason.
	skills atomic.Pointer[skillSet]
	// mcpFixed are the MCP servers' tools this session offers, fixed
	// when its first request is built (mcp.go); nil until then.
	mcpFixed atomic.Pointer[[]mcphost.Tool]
	// lsp are the language servers found when the session opened, run
	// for lsp_diagnostics (lsp.go); nil when none was found.
	lsp atomic.Pointer[lsp.Pool]
}

type approval struct {
	ToolUseID string
	Name      string
	Input     json.RawMessage
	Diff      string
	// hunks is how many hunks of Diff the person may pick from (a file
	// change's; 0: all or nothing); accepted, set before decided is sent,
	// the ones they kept (nil: all). files.go.
	hunks    int
	accepted []int
	decided  chan string
	// allowAs is what "allow for this session" allows, when it is not
	// the tool: one host of web_fetch's (webfetch.go).
	allowAs string
}

// event is the approval as the tabs see it.
func (a *approval) event() event.ToolApproval {
	return event.ToolApproval{ToolUseID: a.ToolUseID, Tool: a.Name, Input: a.Input, Diff: a.Diff}
}

// Queued is a message waiting for the running turn to end; it is saved
// in the document (durable before the request that sent it is answered).
type Queued = session.Queued

func newSession(m *Manager, w *session.Writer) *Session {
	s := &Session{
		m: m, id: w.ID(), w: w, status: StatusIdle,
		approvals: map[string]*approval{}, allowed: map[string]bool{},
		touched: m.opts.Now(),
	}
	w.View(func(d *session.Document) { s.shellNote = shellNote(d) })
	s.pauseGoalOnOpen()
	return s
}

// shellNote is what the agent of d is told once about its shell: nothing
// for a new session, that it is a fork for one not yet used since forking,
// that it was resumed otherwise.
func shellNote(d *session.Document) string {
	if d.MessageCount() == 0 {
		return ""
	}
	if p := d.Parent; p != nil {
		msgs := d.Threads[len(d.Threads)-1].Messages
		if len(msgs) == 0 || msgs[len(msgs)-1].ID == p.Message {
			return forkedNote
		}
	}
	return resumedNote
}

// ID is the session's ID.
func (s *Session) ID() string { return s.id }

func (s *Session) touch() {
	s.mu.Lock()
	s.touched = s.m.opts.Now()
	s.mu.Unlock()
}

func (s *Session) idleFor(now time.Time) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.slot != nil {
		return 0
	}
	return now.Sub(s.touched)
}

// Snapshot is the live state a (re)connecting tab starts from.
type Snapshot = event.Snapshot

// State is the session's status and its detail now (state.go), as a
// page rendered now shows it.
func (s *Session) State() (status, detail string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status, s.detail
}

// Snapshot returns the live state.
func (s *Session) Snapshot() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx := s.contextView()
	snap := Snapshot{
		Status: s.status, Detail: s.detail, Context: &ctx,
		Approvals: make([]event.ToolApproval, 0, len(s.approvals)),
	}
	if s.slot != nil && s.slot.kind == slotTurn {
		snap.Turn = s.slot.turn
	}
	var goal *session.Goal
	s.w.View(func(d *session.Document) {
		usage := usageOf(d.Usage())
		snap.Title, snap.Model, snap.Queued, snap.SessionUsage = d.Title, d.Model, queuedEvents(d.Queued), &usage
		snap.QueuedHTML = s.renderQueue(d.Queued)
		if d.Goal != nil {
			g := *d.Goal
			goal = &g
		}
	})
	ge := s.GoalEvent(goal)
	snap.Goal = &ge
	snap.Notes = s.noteEvents()
	snap.Mode = s.Mode()
	snap.PlanReady = s.planCard
	for _, a := range s.approvals {
		snap.Approvals = append(snap.Approvals, s.approvalEvent(a))
	}
	snap.Subagents = s.subagentEventsLocked()
	if !s.m.opts.Models.Configured() {
		snap.ProviderHelp = s.m.opts.Models.Help()
	}
	return snap
}

// queuedEvents is the queue as the tabs see it (never null).
func queuedEvents(q []Queued) []event.Queued {
	out := make([]event.Queued, len(q))
	for i, m := range q {
		out[i] = event.Queued{ID: m.ID, Text: m.Text, Images: m.Images, Files: queuedFiles(m.Files), At: m.At, Steer: m.Steer}
	}
	return out
}

func usageOf(u session.Usage) event.Usage {
	return event.Usage{
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadInputTokens: u.CacheReadInputTokens, CacheCreationInputTokens: u.CacheCreationInputTokens,
	}
}

// ErrSessionClosed means the live session was closed (idle, released for
// an archive, or the process is exiting): it no longer writes anything.
var ErrSessionClosed = errkind.New(errkind.Conflict, "the live session is closed")

// Update changes header fields of the document (title, links,
// scratchpad, model) through the session's writer, the one write path. It
// returns the header as it stands after the change. An idle session folds
// the change into the document soon after, so listings see it.
func (s *Session) Update(fn func(*session.Document) error) (session.Summary, error) {
	s.mu.Lock()
	closed, busy := s.closed, s.slot != nil
	s.mu.Unlock()
	if closed {
		return session.Summary{}, ErrSessionClosed
	}
	sum, err := s.w.Update(fn)
	if isClosed(err) {
		return session.Summary{}, ErrSessionClosed
	}
	if err == nil {
		s.publishPanel()
	}
	if err == nil && !busy {
		go s.fold()
	}
	return sum, err
}

// isClosed reports whether err says the writer was let go.
func isClosed(err error) bool { return errors.Is(err, session.ErrWriterClosed) }

// Header is the session's listing view.
func (s *Session) Header() session.Summary {
	var sum session.Summary
	s.w.View(func(d *session.Document) { sum = d.Summarize() })
	return sum
}

// Submit saves a person's message durably and starts a turn. While a turn
// runs it is refused with ErrTurnRunning, or queued when queue is true. The
// turn slot is claimed before the message is saved, so two submissions can
// never both start a turn.
func (s *Session) Submit(text string, images []string, queue bool) (turn, queued string, err error) {
	return s.SubmitFiles(text, images, nil, queue)
}

// SubmitFiles is Submit with documents attached (files.go): each names a
// stored blob by SHA256 and carries the name it was attached under.
func (s *Session) SubmitFiles(text string, images []string, files []session.FileRef, queue bool) (turn, queued string, err error) {
	slot, queued, err := s.submitFiles(text, images, files, queue)
	if slot != nil {
		turn = slot.turn
	}
	return turn, queued, err
}

// submit is Submit, returning the slot of the turn it started (nil when
// it queued the message or failed).
func (s *Session) submit(text string, images []string, queue bool) (slot *turnSlot, queued string, err error) {
	return s.submitFiles(text, images, nil, queue)
}

func (s *Session) submitFiles(text string, images []string, files []session.FileRef, queue bool) (slot *turnSlot, queued string, err error) {
	text = strings.TrimRight(text, " \t\r\n")
	if text == "" && len(images) == 0 && len(files) == 0 {
		return nil, "", ErrEmptyMessage
	}
	if err := s.checkImages(images); err != nil {
		return nil, "", err
	}
	files, err = s.checkFiles(files)
	if err != nil {
		return nil, "", err
	}
	// The person speaking pauses a running goal (goal.go says why).
	s.pauseGoal("paused for the person's message; /goal resumes it")
	s.mu.Lock()
	if err := s.refuseLocked(); err != nil {
		s.mu.Unlock()
		return nil, "", err
	}
	if s.slot == nil {
		slot := s.claimLocked(slotTurn)
		s.mu.Unlock()
		msg, err := s.appendHumanWith(text, images, files)
		if err != nil {
			s.release(slot, turnEnd{notStarted: true})
			return nil, "", err
		}
		s.runTurn(slot, msg.ID)
		return slot, "", nil
	}
	s.mu.Unlock()
	if !queue {
		return nil, "", ErrTurnRunning
	}
	// Queued while the slot is taken. Should the slot be released before
	// this is saved, release has already looked at the queue: start it.
	q := Queued{ID: uuid.NewString(), Text: text, Images: images, Files: files, At: s.m.opts.Now().UTC()}
	if _, err := s.w.Update(func(d *session.Document) error {
		d.Queued = append(d.Queued, q)
		return nil
	}); err != nil {
		if isClosed(err) {
			err = ErrSessionClosed
		}
		return nil, "", fmt.Errorf("queue message: %w", err)
	}
	s.publishQueue()
	s.startIfIdle()
	return nil, q.ID, nil
}

// refuseLocked says why the session takes no new work, if it does not.
// s.mu is held.
func (s *Session) refuseLocked() error {
	switch {
	case s.closed || s.closing:
		return ErrSessionClosed
	case s.archived:
		return fmt.Errorf("session %s is archived: %w", s.id, ErrReadOnly)
	}
	return nil
}

// startIfIdle starts the next queued message when the slot is free: a
// message queued just as the turn before it was released.
func (s *Session) startIfIdle() {
	s.mu.Lock()
	if s.slot != nil || s.refuseLocked() != nil {
		s.mu.Unlock()
		return
	}
	next := s.nextQueued()
	if next == nil {
		s.mu.Unlock()
		return
	}
	slot := s.claimLocked(slotTurn)
	s.mu.Unlock()
	s.startQueued(slot, next)
}

// nextQueued is the message first in the queue, if any.
func (s *Session) nextQueued() *Queued {
	var next *Queued
	s.w.View(func(d *session.Document) {
		if len(d.Queued) > 0 {
			q := d.Queued[0]
			next = &q
		}
	})
	return next
}

// publishQueue tells the tabs what waits in the queue.
func (s *Session) publishQueue() {
	var ev event.Queue
	s.w.View(func(d *session.Document) {
		ev = event.Queue{Queued: queuedEvents(d.Queued), HTML: s.renderQueue(d.Queued)}
	})
	s.publish(ev)
}

// renderQueue is the queue's items as the page lists them ("" without a
// renderer, or when it fails: the tab then keeps its list).
func (s *Session) renderQueue(q []Queued) string {
	r := s.m.opts.RenderQueue
	if r == nil {
		return ""
	}
	html, err := r(q)
	if err != nil {
		s.m.log.Warn("render queue failed", "session", s.id, "err", err)
		return ""
	}
	return html
}

// checkImages refuses a message naming a blob that is missing or corrupt,
// before anything is saved: the error names the image.
func (s *Session) checkImages(shas []string) error {
	for _, sha := range shas {
		if _, _, err := s.m.opts.Images.Read(sha); err != nil {
			return err
		}
	}
	return nil
}

// appendHuman saves a person's message in the latest thread. A message that
// waited in the queue (queuedID) leaves it in the same save, so it is never
// lost nor kept twice.
func (s *Session) appendHuman(text string, images []string, queuedID ...string) (session.Message, error) {
	return s.appendHumanWith(text, images, nil, queuedID...)
}

// appendHumanWith is appendHuman with files, whose blocks come after the
// images and before the text, as they were checked by checkFiles.
func (s *Session) appendHumanWith(text string, images []string, files []session.FileRef, queuedID ...string) (session.Message, error) {
	content := make([]session.Block, 0, 1+len(images)+len(files))
	for _, sha := range images {
		_, ref, err := s.m.opts.Images.Read(sha)
		if err != nil {
			return session.Message{}, err
		}
		content = append(content, session.Block{Type: session.BlockImage, SHA256: ref.SHA256, MediaType: ref.MediaType})
	}
	for _, f := range files {
		content = append(content, f.Block())
	}
	if text != "" {
		content = append(content, session.Block{Type: session.BlockText, Text: text})
	}
	m := session.Message{ID: uuid.NewString(), Role: "user", At: s.m.opts.Now().UTC(), Human: true, Content: content}
	if err := s.appendHumanMessage(m, queuedID...); err != nil { // with the notes waiting for it (notes.go)
		return session.Message{}, err
	}
	s.titleFromWords(text)
	return m, nil
}

// titleFromWords names an untitled session by the start of the person's
// message until the automatic title (makeTitle) replaces it: a listing
// and the tab's name say what it is about at once, not "Untitled".
func (s *Session) titleFromWords(text string) {
	var untitled bool
	s.w.View(func(d *session.Document) { untitled = d.Title == "" })
	if !untitled || session.FirstWords(text) == "" {
		return
	}
	changed := false
	doc, err := s.w.Update(func(d *session.Document) error {
		changed = session.SetTitleFromWords(d, text)
		return nil
	})
	if err != nil {
		s.m.log.Warn("title from the first words not saved", "session", s.id, "err", err)
		return
	}
	if changed {
		s.publish(event.Title{Title: doc.Title, FirstWords: true})
	}
}

// appendMessage adds m to the latest thread through the writer: it is
// durable (in the journal, fsynced) before anyone is told of it. Queued
// messages named in dequeue leave the queue in the same step.
func (s *Session) appendMessage(m session.Message, dequeue ...string) error {
	if m.At.IsZero() {
		m.At = s.m.opts.Now().UTC()
	}
	if err := s.w.Append(m, dequeue...); err != nil {
		if isClosed(err) {
			err = ErrSessionClosed
		}
		return fmt.Errorf("save message: %w", err)
	}
	s.publishMessage(m)
	s.publishPanel() // the message count and last activity moved
	return nil
}

// Stop ends the running turn at once: the model stream is cancelled and
// running commands are killed (the person's !commands too, which run
// outside any turn); the turn keeps what it had, marked interrupted.
// Stop stops everything: what waits in the queue (steers too) leaves it,
// and is returned, in the order it was sent, for the person to send again
// or drop; no turn starts for it.
func (s *Session) Stop() ([]event.Queued, error) {
	return s.stop(true)
}

// stop is Stop; unqueue says whether the queue is taken out too (closing
// keeps it: close saves it as the person's messages).
func (s *Session) stop(unqueue bool) ([]event.Queued, error) {
	killed := s.commands.stopAll()
	s.mu.Lock()
	slot := s.slot
	if slot == nil {
		s.mu.Unlock()
		if killed {
			return []event.Queued{}, nil
		}
		return nil, ErrNoTurn
	}
	s.status, s.detail = StatusStopping, ""
	if unqueue && slot.kind == slotTurn {
		s.stoppedTurn = true
	}
	s.mu.Unlock()
	s.publish(event.Status{Status: StatusStopping})
	// Out of the queue before the turn ends: when it is released it finds
	// nothing to start.
	var taken []event.Queued
	if unqueue {
		taken = s.takeQueue()
	}
	slot.cancel()
	<-slot.done
	return taken, nil
}

// takeQueue empties the queue, durably, and tells the tabs; it returns
// what was in it in the order it was sent (steers are listed first, as
// they go in sooner). A steer being taken in at the same moment is in the
// conversation, not here: queueMu orders the two.
func (s *Session) takeQueue() []event.Queued {
	s.queueMu.Lock()
	var taken []Queued
	_, err := s.w.Update(func(d *session.Document) error {
		taken = slices.Clone(d.Queued)
		d.Queued = nil
		return nil
	})
	s.queueMu.Unlock()
	if err != nil {
		// It stays queued, and runs after the stopped turn as before.
		s.m.log.Warn("queue not taken out on stop", "session", s.id, "err", err)
		return []event.Queued{}
	}
	if len(taken) > 0 {
		s.publishQueue()
	}
	slices.SortStableFunc(taken, func(a, b Queued) int { return a.At.Compare(b.At) })
	return queuedEvents(taken)
}

// Retry runs the person's last message again as a new turn, without
// sending it a second time. The answer it replaces (with its tool rounds)
// stays in the document marked replaced_by the retry's first answer: the
// model no longer sees it, and the page shows it folded.
func (s *Session) Retry() (string, error) { return s.RetryWith("") }

// RetryWith is Retry with the turn's model calls made to model ("" is
// the session's model): another model's answer, the session's own model
// unchanged for the turns after (versions.go).
func (s *Session) RetryWith(model string) (string, error) {
	s.mu.Lock()
	if err := s.refuseLocked(); err != nil {
		s.mu.Unlock()
		return "", err
	}
	if s.slot != nil {
		s.mu.Unlock()
		return "", ErrTurnRunning
	}
	var human string
	var replaced []string
	s.w.View(func(d *session.Document) { human, replaced = retryPoint(d) })
	if human == "" {
		s.mu.Unlock()
		return "", ErrNothingToRun
	}
	slot := s.claimLocked(slotTurn)
	slot.answerID = uuid.NewString()
	if model != "" {
		slot.command = &commandGrant{model: model} // grants no tool
	}
	s.mu.Unlock()
	for _, id := range replaced {
		if err := s.w.Mark(id, slot.answerID); err != nil {
			s.release(slot, turnEnd{notStarted: true})
			return "", fmt.Errorf("retry: %w", err)
		}
		s.republish(id)
	}
	s.runTurn(slot, human)
	return slot.turn, nil
}

// retryPoint finds the person's last message in the latest thread and the
// messages after it that a retry replaces (those not replaced already);
// none when that message's turn was undone.
func retryPoint(d *session.Document) (human string, replaced []string) {
	if len(d.Threads) == 0 {
		return "", nil
	}
	msgs := d.Threads[len(d.Threads)-1].Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if !msgs[i].Human {
			continue
		}
		if msgs[i].Undone {
			// /undo took that turn back: a retry would answer words the
			// model no longer sees. /redo brings the turn back.
			return "", nil
		}
		for _, m := range msgs[i+1:] {
			if m.ReplacedBy == "" {
				replaced = append(replaced, m.ID)
			}
		}
		return msgs[i].ID, replaced
	}
	return "", nil
}

// republish sends a stored message to the tabs again, as it now stands.
func (s *Session) republish(id string) {
	var m session.Message
	found := false
	s.w.View(func(d *session.Document) {
		msgs := d.Threads[len(d.Threads)-1].Messages
		if i := slices.IndexFunc(msgs, func(m session.Message) bool { return m.ID == id }); i >= 0 {
			m, found = msgs[i], true
		}
	})
	if found {
		s.publishMessage(m)
	}
}

// Approve answers a pending approval.
func (s *Session) Approve(toolUseID, decision string) error {
	return s.ApproveHunks(toolUseID, decision, nil)
}

// ApproveHunks answers a pending approval; for a file change, hunks are
// the indexes (from 0) of the hunks of its diff accepted with once or
// session: nil accepts all, none is a denial (files.go).
func (s *Session) ApproveHunks(toolUseID, decision string, hunks []int) error {
	switch decision {
	case DecisionOnce, DecisionSession, DecisionDeny:
	default:
		return ErrBadDecision
	}
	s.mu.Lock()
	a, ok := s.approvals[toolUseID]
	if ok && decision != DecisionDeny {
		var err error
		if decision, err = a.pick(decision, hunks); err != nil {
			s.mu.Unlock()
			return err
		}
	}
	if ok {
		delete(s.approvals, toolUseID)
		if decision == DecisionSession {
			s.allowed[cmp.Or(a.allowAs, a.Name)] = true
		}
	}
	s.mu.Unlock()
	if !ok {
		return ErrNoApproval
	}
	a.decided <- decision
	return nil
}

// close stops the turn, keeps queued messages (saved as the person's
// messages, with no turn run for them), kills the shell and lets the lock
// go. After it the session writes nothing: a late writer (a title being
// made, say) gets ErrSessionClosed, and the lock refuses any save.
func (s *Session) close() {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.stop(false)
	// The stopped turn's snapshots finish before the session counts as
	// closed: a delete that follows must find nothing still being written.
	s.snapping.Wait()
	s.keepQueued()
	s.mu.Lock()
	s.closed = true
	s.status = StatusClosed
	sh := s.shell
	s.shell = nil
	s.mu.Unlock()
	if sh != nil {
		sh.Close()
	}
	s.closeLSP() // lsp.go
	if err := s.w.Close(); err != nil {
		s.m.log.Warn("closing the session's writer failed; its journal is replayed on open", "session", s.id, "err", err)
	}
}

// Archive marks the session archived at once: it leaves the home page
// and takes no new message. A running turn (and its tools) goes on; the
// session closes, and its files move into the archive, once it is idle.
// It reports whether the session is idle now (the caller then finishes
// the archive itself).
func (s *Session) Archive() (idle bool, err error) {
	s.mu.Lock()
	closed := s.closed || s.closing
	s.mu.Unlock()
	if closed {
		return false, ErrSessionClosed
	}
	// The mark is durable before the session refuses anything for it.
	if err := s.setArchived(true); err != nil {
		if isClosed(err) {
			err = ErrSessionClosed
		}
		return false, err
	}
	s.mu.Lock()
	s.archived = true
	// Whoever sees the session idle and archived first finishes the
	// archive: this call, or release at the end of the running turn.
	idle = s.slot == nil && !s.archiveClaimed
	if idle {
		s.archiveClaimed = true
	}
	s.mu.Unlock()
	s.publish(event.Status{Status: StatusArchived})
	s.stopChildren() // an archived session's sub-agents work for nobody
	return idle, nil
}

// Restore takes back an archive that is still pending (the session was
// busy): the mark goes, and the session takes messages again.
func (s *Session) Restore() error {
	s.mu.Lock()
	switch {
	case s.closed || s.closing:
		s.mu.Unlock()
		return ErrSessionClosed
	case !s.archived:
		s.mu.Unlock()
		return fmt.Errorf("%w: %s", session.ErrNotArchived, s.id)
	}
	// From here the session takes messages again, and an archive about to
	// finish (release claimed it) finds it restored and moves nothing.
	s.archived, s.archiveClaimed = false, false
	s.mu.Unlock()
	if err := s.setArchived(false); err != nil {
		if isClosed(err) {
			err = ErrSessionClosed // the archive finished first
		}
		return err
	}
	s.mu.Lock()
	status, detail := s.status, s.detail
	s.mu.Unlock()
	s.publish(event.Status{Status: status, Detail: detail})
	return nil
}

// setArchived sets the archived mark and folds it into the document at
// once: listings read documents, and must see it.
func (s *Session) setArchived(archived bool) error {
	if _, err := s.w.Update(func(d *session.Document) error {
		d.Archived = archived
		return nil
	}); err != nil {
		return err
	}
	return s.w.Fold()
}

// keepQueued saves messages still waiting for a turn, so closing loses
// nothing the person sent.
func (s *Session) keepQueued() {
	var queue []Queued
	s.w.View(func(d *session.Document) { queue = append(queue, d.Queued...) })
	for _, q := range queue {
		if _, err := s.appendHumanWith(q.Text, q.Images, q.Files, q.ID); err != nil {
			s.m.log.Warn("queued message not kept", "session", s.id, "err", err)
		}
	}
}

func (s *Session) publish(ev event.Event) {
	s.m.opts.Events.Publish(s.id, ev)
	if st, ok := ev.(event.Status); ok {
		if w := s.watch.Load(); w != nil {
			(*w)(st.Status, st.Detail)
		}
	}
}

// publishMessage tells the tabs of a stored message, rendered as the page
// renders it.
func (s *Session) publishMessage(m session.Message) {
	html := ""
	if s.m.opts.Render != nil {
		var err error
		if html, err = s.m.opts.Render(s.id, m); err != nil {
			s.m.log.Warn("render message failed", "session", s.id, "err", err)
		}
	}
	s.publish(event.MessageEnd{Message: m.ID, Role: m.Role, HTML: html, StopReason: m.StopReason})
}

// Document is a copy of the session's document as it stands.
func (s *Session) Document() *session.Document {
	var data []byte
	var err error
	s.w.View(func(d *session.Document) { data, err = session.Encode(d) })
	if err != nil {
		s.m.log.Error("encode document", "session", s.id, "err", err)
		return nil
	}
	doc, err := session.Decode(data, "", s.id)
	if err != nil {
		s.m.log.Error("decode document", "session", s.id, "err", err)
		return nil
	}
	return doc
}
