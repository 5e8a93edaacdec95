package live

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"myco/server/tools"
	"myco/session"
)

// Statuses a live session reports.
const (
	StatusIdle       = "idle"
	StatusThinking   = "thinking"
	StatusTool       = "tool"
	StatusApproval   = "approval"
	StatusRetrying   = "retrying"
	StatusCompacting = "compacting"
)

// Approval decisions.
const (
	DecisionOnce    = "once"
	DecisionSession = "session"
	DecisionDeny    = "deny"
)

// Errors a caller maps to answers.
var (
	ErrTurnRunning  = errors.New("a turn is already running")
	ErrNoTurn       = errors.New("no turn is running")
	ErrNoApproval   = errors.New("no such pending approval")
	ErrBadDecision  = errors.New("decision must be once, session or deny")
	ErrNothingToRun = errors.New("nothing to retry: no message was sent yet")
	ErrEmptyMessage = errors.New("the message is empty")
)

// Session is a session open in this process.
type Session struct {
	m    *Manager
	id   string
	lock *session.Lock

	mu        sync.Mutex
	doc       *session.Document
	status    string
	detail    string
	turn      string
	cancel    context.CancelFunc
	done      chan struct{} // closed when the running turn ends
	partial   *partial
	approvals map[string]*approval
	allowed   map[string]bool // tools allowed for this live session
	shell     *tools.Shell
	resumed   bool // the session had messages before this process opened it
	toldShell bool
	touched   time.Time
	// contextUsed is the context the last model call reported; autoOff,
	// when set, says why automatic compaction is off for this live session.
	contextUsed int
	autoOff     string
	// stamps are the file tools' read stamps: kept through compaction,
	// gone with this live session (files.go).
	stamps tools.Stamps
	// closing stops queued messages from starting turns; closed stops
	// every write.
	closing, closed bool
}

type partial struct {
	Message string          `json:"message"`
	Text    string          `json:"text"`
	text    strings.Builder // deltas so far; Text is filled for a snapshot
}

type approval struct {
	ToolUseID string `json:"tool_use_id"`
	Name      string `json:"name"`
	Input     any    `json:"input"`
	Diff      string `json:"diff,omitempty"`
	decided   chan string
}

// Queued is a message waiting for the running turn to end; it is saved
// in the document (durable before the request that sent it is answered).
type Queued = session.Queued

func newSession(m *Manager, doc *session.Document, lock *session.Lock) *Session {
	return &Session{
		m: m, id: doc.ID, lock: lock, doc: doc, status: StatusIdle,
		approvals: map[string]*approval{}, allowed: map[string]bool{},
		resumed: doc.MessageCount() > 0, touched: m.opts.Now(),
	}
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
	if s.turn != "" {
		return 0
	}
	return now.Sub(s.touched)
}

// Snapshot is the live state a (re)connecting tab starts from.
type Snapshot struct {
	Status       string      `json:"status"`
	Detail       string      `json:"detail,omitempty"`
	Title        string      `json:"title"`
	Model        string      `json:"model"`
	Turn         string      `json:"turn,omitempty"`
	Partial      *partial    `json:"partial,omitempty"`
	Approvals    []*approval `json:"approvals"`
	Queued       []Queued    `json:"queued"`
	Usage        usageView   `json:"session_usage"`
	ProviderHelp string      `json:"provider_help,omitempty"`
	Context      ContextView `json:"context"`
}

type usageView struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
}

// Snapshot returns the live state.
func (s *Session) Snapshot() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := Snapshot{
		Status: s.status, Detail: s.detail, Title: s.doc.Title, Model: s.doc.Model, Turn: s.turn,
		Approvals: make([]*approval, 0, len(s.approvals)), Queued: append([]Queued{}, s.doc.Queued...),
		Usage: usageOf(s.doc.Usage()), Context: s.contextView(),
	}
	if s.partial != nil {
		snap.Partial = &partial{Message: s.partial.Message, Text: s.partial.text.String()}
	}
	for _, a := range s.approvals {
		snap.Approvals = append(snap.Approvals, a)
	}
	if !s.m.opts.Models.Configured() {
		snap.ProviderHelp = s.m.opts.Models.Help()
	}
	return snap
}

func usageOf(u session.Usage) usageView {
	return usageView{
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadInputTokens: u.CacheReadInputTokens, CacheCreationInputTokens: u.CacheCreationInputTokens,
	}
}

// ErrSessionClosed means the live session was closed (idle, released for
// an archive, or the process is exiting): it no longer writes anything.
var ErrSessionClosed = errors.New("the live session is closed")

// Update changes the document through the live session, so its in-memory
// copy and the file never disagree, and saves it through the session's own
// writer lock. It returns the header as it stands after the change (a copy:
// the document itself stays inside the session).
func (s *Session) Update(fn func(*session.Document) error) (session.Summary, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.updateLocked(fn)
}

// updateLocked is Update for a caller that holds s.mu.
func (s *Session) updateLocked(fn func(*session.Document) error) (session.Summary, error) {
	if s.closed {
		return session.Summary{}, ErrSessionClosed
	}
	before := shallowCopy(s.doc)
	if err := fn(s.doc); err != nil {
		s.doc = before
		return session.Summary{}, err
	}
	if err := s.lock.Save(s.doc); err != nil {
		s.doc = before // keep memory equal to disk
		return session.Summary{}, err
	}
	return s.doc.Summarize(), nil
}

// shallowCopy keeps what an update may change: the header fields, the list
// of threads and each thread's list of messages. Updates append messages
// and threads and set header fields; they never edit a message in place.
func shallowCopy(d *session.Document) *session.Document {
	c := *d
	c.Threads = append([]session.Thread(nil), d.Threads...)
	c.Links = append([]session.Link(nil), d.Links...)
	c.Queued = append([]session.Queued(nil), d.Queued...)
	return &c
}

// Header is the session's listing view.
func (s *Session) Header() session.Summary {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.doc.Summarize()
}

// Submit saves a person's message durably and starts a turn. While a turn
// runs it is refused with ErrTurnRunning, or queued when queue is true. The
// turn slot is claimed before the message is saved, so two submissions can
// never both start a turn.
func (s *Session) Submit(text string, images []string, queue bool) (turn, queued string, err error) {
	text = strings.TrimRight(text, " \t\r\n")
	if text == "" && len(images) == 0 {
		return "", "", ErrEmptyMessage
	}
	if err := s.checkImages(images); err != nil {
		return "", "", err
	}
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return "", "", ErrSessionClosed
	case s.turn != "" && !queue:
		s.mu.Unlock()
		return "", "", ErrTurnRunning
	case s.turn != "":
		defer s.mu.Unlock()
		q := Queued{ID: uuid.NewString(), Text: text, Images: images, At: s.m.opts.Now().UTC()}
		if _, err := s.updateLocked(func(d *session.Document) error {
			d.Queued = append(d.Queued, q)
			return nil
		}); err != nil {
			return "", "", fmt.Errorf("queue message: %w", err)
		}
		s.publish("queued", map[string]any{"queued": append([]Queued{}, s.doc.Queued...)})
		return "", q.ID, nil
	}
	slot := s.claimLocked()
	s.mu.Unlock()
	msg, err := s.appendHuman(text, images)
	if err != nil {
		s.releaseSlot(slot)
		return "", "", err
	}
	s.runTurn(slot, msg)
	return slot.turn, "", nil
}

// turnSlot is the claim on the session's one running turn (or compaction).
type turnSlot struct {
	turn   string
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

// claimLocked takes the turn slot; s.mu is held and the slot is free.
func (s *Session) claimLocked() turnSlot {
	ctx, cancel := context.WithCancel(context.Background())
	slot := turnSlot{turn: uuid.NewString(), ctx: ctx, cancel: cancel, done: make(chan struct{})}
	s.turn, s.cancel, s.done = slot.turn, cancel, slot.done
	s.touched = s.m.opts.Now()
	return slot
}

// releaseSlot frees a slot whose turn never ran.
func (s *Session) releaseSlot(slot turnSlot) {
	s.mu.Lock()
	if s.turn == slot.turn {
		s.turn, s.cancel, s.done = "", nil, nil
	}
	s.mu.Unlock()
	slot.cancel()
	close(slot.done)
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
	content := make([]session.Block, 0, 1+len(images))
	for _, sha := range images {
		_, ref, err := s.m.opts.Images.Read(sha)
		if err != nil {
			return session.Message{}, err
		}
		content = append(content, session.Block{Type: session.BlockImage, SHA256: ref.SHA256, MediaType: ref.MediaType})
	}
	if text != "" {
		content = append(content, session.Block{Type: session.BlockText, Text: text})
	}
	m := session.Message{ID: uuid.NewString(), Role: "user", At: s.m.opts.Now().UTC(), Human: true, Content: content}
	if err := s.appendMessage(m, queuedID...); err != nil {
		return session.Message{}, err
	}
	return m, nil
}

// appendMessage adds m to the latest thread and saves the document: a
// message is durable before anyone is told of it.
func (s *Session) appendMessage(m session.Message, dequeue ...string) error {
	_, err := s.Update(func(d *session.Document) error {
		for _, id := range dequeue {
			d.Queued = slices.DeleteFunc(d.Queued, func(q session.Queued) bool { return q.ID == id })
		}
		if len(d.Threads) == 0 {
			d.Threads = append(d.Threads, session.Thread{CreatedAt: s.m.opts.Now().UTC()})
		}
		t := &d.Threads[len(d.Threads)-1]
		t.Messages = append(t.Messages, m)
		d.UpdatedAt = s.m.opts.Now().UTC()
		return nil
	})
	if err != nil {
		return fmt.Errorf("save message: %w", err)
	}
	s.publishMessage(m)
	return nil
}

// Stop ends the running turn at once: the model stream is cancelled and
// running commands are killed; the turn keeps what it had, marked
// interrupted. Queued messages stay queued.
func (s *Session) Stop() error {
	s.mu.Lock()
	cancel, done := s.cancel, s.done
	s.mu.Unlock()
	if cancel == nil {
		return ErrNoTurn
	}
	cancel()
	<-done
	return nil
}

// Retry runs the last human submission again as a new turn.
func (s *Session) Retry() (string, error) {
	s.mu.Lock()
	last, ok := lastHuman(s.doc)
	s.mu.Unlock()
	if !ok {
		return "", ErrNothingToRun
	}
	var text string
	var images []string
	for _, b := range last.Content {
		switch b.Type {
		case session.BlockText:
			text += b.Text
		case session.BlockImage:
			if b.SHA256 != "" {
				images = append(images, b.SHA256)
			}
		}
	}
	turn, _, err := s.Submit(text, images, false)
	return turn, err
}

func lastHuman(d *session.Document) (session.Message, bool) {
	if len(d.Threads) == 0 {
		return session.Message{}, false
	}
	msgs := d.Threads[len(d.Threads)-1].Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Human {
			return msgs[i], true
		}
	}
	return session.Message{}, false
}

// Approve answers a pending approval.
func (s *Session) Approve(toolUseID, decision string) error {
	switch decision {
	case DecisionOnce, DecisionSession, DecisionDeny:
	default:
		return ErrBadDecision
	}
	s.mu.Lock()
	a, ok := s.approvals[toolUseID]
	if ok {
		delete(s.approvals, toolUseID)
		if decision == DecisionSession {
			s.allowed[a.Name] = true
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
	s.Stop()
	s.keepQueued()
	s.mu.Lock()
	s.closed = true
	sh := s.shell
	s.shell = nil
	s.mu.Unlock()
	if sh != nil {
		sh.Close()
	}
	s.lock.Unlock()
}

// keepQueued saves messages still waiting for a turn, so closing loses
// nothing the person sent.
func (s *Session) keepQueued() {
	s.mu.Lock()
	queue := append([]Queued(nil), s.doc.Queued...)
	s.mu.Unlock()
	for _, q := range queue {
		if _, err := s.appendHuman(q.Text, q.Images, q.ID); err != nil {
			s.m.log.Warn("queued message not kept", "session", s.id, "err", err)
		}
	}
}

func (s *Session) publish(name string, data any) {
	s.m.opts.Events.Publish(s.id, name, data)
}

func (s *Session) setStatus(status, detail string) {
	s.mu.Lock()
	s.status, s.detail = status, detail
	s.mu.Unlock()
	s.publish("status", map[string]string{"status": status, "detail": detail})
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
	s.publish("message.end", map[string]any{"message": m.ID, "role": m.Role, "html": html, "stop_reason": m.StopReason})
}

// Document is a copy of the session's document as it stands.
func (s *Session) Document() *session.Document {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, err := session.Encode(s.doc)
	if err != nil {
		return s.doc
	}
	doc, err := session.Decode(data, "", s.id)
	if err != nil {
		return s.doc
	}
	return doc
}
