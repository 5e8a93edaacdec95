package live

import (
	"context"
	"errors"
	"fmt"
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
	queue     []Queued
	shell     *tools.Shell
	resumed   bool // the session had messages before this process opened it
	toldShell bool
	touched   time.Time
	usage     session.Usage // this live session's total
	// contextUsed is the context the last model call reported; autoOff,
	// when set, says why automatic compaction is off for this live session.
	contextUsed int
	autoOff     string
	// stamps are the file tools' read stamps: kept through compaction,
	// gone with this live session (files.go).
	stamps tools.Stamps
}

type partial struct {
	Message string `json:"message"`
	Text    string `json:"text"`
}

type approval struct {
	ToolUseID string `json:"tool_use_id"`
	Name      string `json:"name"`
	Input     any    `json:"input"`
	Diff      string `json:"diff,omitempty"`
	decided   chan string
}

// Queued is a message waiting for the running turn to end.
type Queued struct {
	ID     string   `json:"id"`
	Text   string   `json:"text"`
	Images []string `json:"images,omitempty"`
}

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
	InputTokens          int64 `json:"input_tokens"`
	OutputTokens         int64 `json:"output_tokens"`
	CacheReadInputTokens int64 `json:"cache_read_input_tokens"`
}

// Snapshot returns the live state.
func (s *Session) Snapshot() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := Snapshot{
		Status: s.status, Detail: s.detail, Title: s.doc.Title, Model: s.doc.Model, Turn: s.turn,
		Approvals: make([]*approval, 0, len(s.approvals)), Queued: append([]Queued{}, s.queue...),
		Usage: usageOf(s.usage), Context: s.contextView(),
	}
	if s.partial != nil {
		p := *s.partial
		snap.Partial = &p
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
	return usageView{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheReadInputTokens: u.CacheReadInputTokens}
}

// Update changes the document through the live session, so its in-memory
// copy and the file never disagree.
func (s *Session) Update(fn func(*session.Document) error) (*session.Document, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	before, err := session.Encode(s.doc)
	if err != nil {
		return nil, err
	}
	if err := fn(s.doc); err != nil {
		return nil, err
	}
	if err := s.m.opts.Store.Save(s.doc); err != nil {
		if old, derr := session.Decode(before, "", s.id); derr == nil {
			s.doc = old // keep memory equal to disk
		}
		return nil, err
	}
	return s.doc, nil
}

// Header is the session's listing view.
func (s *Session) Header() session.Summary {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.doc.Summarize()
}

// Submit saves a person's message durably and starts a turn. While a turn
// runs it is refused with ErrTurnRunning, or queued when queue is true.
func (s *Session) Submit(text string, images []string, queue bool) (turn, queued string, err error) {
	text = strings.TrimRight(text, " \t\r\n")
	if text == "" && len(images) == 0 {
		return "", "", ErrEmptyMessage
	}
	if err := s.checkImages(images); err != nil {
		return "", "", err
	}
	s.mu.Lock()
	if s.turn != "" {
		defer s.mu.Unlock()
		if !queue {
			return "", "", ErrTurnRunning
		}
		q := Queued{ID: uuid.NewString(), Text: text, Images: images}
		s.queue = append(s.queue, q)
		s.publishLocked("queued", map[string]any{"queued": s.queue})
		return "", q.ID, nil
	}
	s.mu.Unlock()
	msg, err := s.appendHuman(text, images)
	if err != nil {
		return "", "", err
	}
	return s.startTurn(msg), "", nil
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

func (s *Session) appendHuman(text string, images []string) (session.Message, error) {
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
	if err := s.appendMessage(m); err != nil {
		return session.Message{}, err
	}
	return m, nil
}

// appendMessage adds m to the latest thread and saves the document: a
// message is durable before anyone is told of it.
func (s *Session) appendMessage(m session.Message) error {
	_, err := s.Update(func(d *session.Document) error {
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
	if s.turn != "" {
		s.mu.Unlock()
		return "", ErrTurnRunning
	}
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

// close stops the turn, kills the shell and lets the lock go.
func (s *Session) close() {
	s.Stop()
	s.mu.Lock()
	sh := s.shell
	s.shell = nil
	s.mu.Unlock()
	if sh != nil {
		sh.Close()
	}
	s.lock.Unlock()
}

func (s *Session) publish(name string, data any) {
	s.m.opts.Events.Publish(s.id, name, data)
}

// publishLocked is publish for callers holding s.mu (Publish never blocks).
func (s *Session) publishLocked(name string, data any) { s.publish(name, data) }

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
