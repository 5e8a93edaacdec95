package live

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"myco/internal/errkind"
	"myco/profiles"
	"myco/server/custom"
	"myco/server/event"
	"myco/server/llm"
	"myco/server/lsp"
	"myco/server/mcphost"
	"myco/server/tools"
	"myco/server/webfetch"
	"myco/session"
	"myco/snapshot"
)

// Publisher sends an event to every tab of a session; it never blocks.
type Publisher interface {
	Publish(sessionID string, ev event.Event)
}

// Models gives the client for a model named "provider/model-id".
type Models interface {
	Client(model string) (llm.Client, string, error)
	Configured() bool
	Help() string
}

// Renderer renders a message as the page shows it, for message.end.
type Renderer func(sessionID string, m session.Message) (string, error)

// ApprovalRenderer renders the card of a pending approval from the
// fields of its tool.approval event (web.ApprovalHTML).
type ApprovalRenderer func(toolUseID, name string, input []byte, diff string) (string, error)

// StreamRenderer renders an answer while it streams (web.StreamRenderer):
// Write takes each delta and returns the HTML of the blocks it completed,
// and Upto how much of the text (UTF-16 code units) they now cover.
type StreamRenderer interface {
	Write(delta string) (html string, ok bool)
	Upto() int
	// TailHTML is the last block rendered while it grows (an open code
	// fence, a table), or "" while the tail is plain text.
	TailHTML() string
}

// Options configure a Manager. Store, Images, Models and Events are required.
type Options struct {
	Store  *session.Store
	Images *session.Images
	Models Models
	Events Publisher
	Render Renderer
	// RenderPanel renders the session page's side panel, editable, for
	// the panel event; nil: no panel events.
	RenderPanel func(*session.Document) (string, error)
	// RenderTurnUsage renders the last turn's usage line from the
	// document, for turn.end ("" when the turn reported no usage).
	RenderTurnUsage func(*session.Document) (string, error)
	// RenderToolCall renders a tool call's card, for tool.start;
	// RenderToolResult its recorded outcome, for tool.end;
	// RenderApproval a pending approval's card, for tool.approval and a
	// snapshot's approvals. Each as the page renders it (web), so the tab
	// swaps in the same markup a reload shows; nil: events without html.
	RenderToolCall   func(use session.Block) (string, error)
	RenderToolResult func(result session.Block) (string, error)
	RenderApproval   ApprovalRenderer
	// SendNote leaves a note for session id from the agent of another
	// (session_meta send_note) as POST /api/sessions/{id}/notes does: the
	// live session when it is open in this process, else its document.
	// nil: send_note is refused.
	SendNote func(id, from, text string) (session.Note, error)
	// RenderNote renders a waiting note's card (its chip, for an
	// attachment), for the note event and a snapshot's notes.
	RenderNote func(session.Note) (string, error)
	// RenderQueue renders the queue's items as the page lists them, for
	// the queued event and a snapshot; nil: they go without html.
	RenderQueue func([]session.Queued) (string, error)
	// RenderSubagent renders a sub-agent's strip in its task call's card,
	// for the subagent event; nil: the event goes without it.
	RenderSubagent func(sessionID string, ev event.Subagent) (string, error)
	// RenderPlanReady renders the "Build this plan?" card, for plan.ready
	// (plan.go); nil: the event goes without it.
	RenderPlanReady func() (string, error)
	// ProbeSandbox finds plan mode's read-only sandbox (once per
	// process); nil: tools.ProbeSandbox.
	ProbeSandbox func(context.Context) (*tools.Sandbox, error)
	// Snapshots keeps the session folder's snapshots around each turn,
	// for /undo, /redo and /diff (undo.go); nil, or the settings' undo
	// false: undo is off.
	Snapshots *snapshot.Store
	// RenderContext renders the context gauge, for the context event and
	// the snapshot.
	RenderContext func(sessionID string, c event.Context) (string, error)
	// RenderGoal renders the goal bar (nil goal: none), for the goal event.
	RenderGoal func(sessionID string, g *session.Goal) (string, error)
	// StreamRenderer makes the renderer of one streaming answer, whose
	// complete blocks go out as message.blocks; nil: text deltas only.
	StreamRenderer func() StreamRenderer
	// OwnerURL is this server's URL, written into lock files as a hint.
	OwnerURL string
	// DefaultCwd is where a session without a recorded folder runs commands.
	DefaultCwd string
	// Settings are the profile's settings, read when a value is needed:
	// approvals (bash, edit: "allow" skips the prompt), todo, denied_paths
	// (which the file tools refuse; "~/" is the home folder), shell_env_drop
	// and shell_env_keep, title_model, think and personalities. nil: the
	// zero Settings.
	Settings *profiles.LiveSettings
	// ProfileDir, which the file tools refuse too, is the profile's own
	// folder.
	ProfileDir string
	// PersonalInstructions is the person's own instruction file
	// (~/.config/myco/AGENTS.md), read into every session's system prompt
	// before the project's (instructions.go); "" reads none.
	PersonalInstructions string
	// UserHome is the person's home folder, where ~/.claude/commands and
	// ~/.claude/skills are looked for (custom.go); "" looks in none.
	UserHome string
	// BuiltinCommands are the composer's own slash commands, which a
	// custom command of the same name never replaces.
	BuiltinCommands []string
	// DefaultModel, when set, replaces the settings' default_model: the
	// model of sessions that name none.
	DefaultModel string
	// Limits gives a model's context window and automatic compaction
	// threshold (0: off); nil means no automatic compaction.
	Limits func(model string) Limits
	// RetryDelays are the waits before each retry of a transient model
	// failure; two retries at most. Defaults: 1s, 3s.
	RetryDelays []time.Duration
	// CommandTimeout is the default bash timeout (120 s).
	CommandTimeout time.Duration
	// IdleClose closes a live session with no turn and no activity for
	// this long, freeing its lock and shell (30 min).
	IdleClose time.Duration
	Logger    *slog.Logger
	Now       func() time.Time
	// MCP holds the profile's MCP servers, whose tools sessions offer
	// (mcp.go); nil: none.
	MCP *mcphost.Host
	// Price is what usage of a model ("provider/model-id") costs, and
	// false when its price is unknown: the pages' rule (server.price), so
	// a budget and /usage agree. nil: the settings' prices of plain input
	// and output.
	Price func(model string, u session.Usage) (float64, bool)
	// WebFetcher fetches web_fetch's pages (webfetch.go); nil: one with
	// the defaults. Tests give one whose seams reach their own server.
	WebFetcher *webfetch.Fetcher
	// LanguageServers finds the installed language servers when a session
	// opens (lsp.go); nil: PATH, and ~/go/bin under UserHome for gopls.
	LanguageServers func() []lsp.Found
}

// Limits are what a model can hold and when to compact.
type Limits struct {
	ContextWindow int
	CompactAt     int
}

// Manager owns the live sessions of this process, at most one per session.
type Manager struct {
	opts Options
	log  *slog.Logger

	mu       sync.Mutex
	sessions map[string]*Session
	busy     map[string]chan struct{} // sessions an Exclusive operation is moving; closed when done
	opening  map[string]chan struct{} // sessions Open is reading, outside mu; closed when done
	closed   bool
	probe    sandboxProbe // plan mode's sandbox, found on first use (plan.go)
	// ledger is the profile's spend per day and the budget reservations
	// in flight (budget.go).
	ledger *ledger
	// customFiles reads custom commands and skills (custom.go).
	customFiles *custom.Loader
}

// ErrClosed means the process is shutting down.
var ErrClosed = errkind.New(errkind.Unavailable, "live sessions are closing")

// NewManager returns a Manager; Run its idle loop for idle sessions to close.
func NewManager(opts Options) *Manager {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.RetryDelays == nil {
		opts.RetryDelays = []time.Duration{time.Second, 3 * time.Second}
	}
	if opts.CommandTimeout == 0 {
		opts.CommandTimeout = 120 * time.Second
	}
	if opts.Settings == nil {
		opts.Settings = profiles.NewLiveSettings(profiles.Settings{})
	}
	if opts.IdleClose == 0 {
		opts.IdleClose = 30 * time.Minute
	}
	if opts.WebFetcher == nil {
		opts.WebFetcher = webfetch.New(webfetch.Options{})
	}
	m := &Manager{
		opts: opts, log: opts.Logger, sessions: map[string]*Session{}, busy: map[string]chan struct{}{}, opening: map[string]chan struct{}{},
		ledger: openLedger(opts.ProfileDir, opts.Logger),
	}
	m.customFiles = newCustomLoader(m)
	return m
}

// settings are the profile's settings now (Options.Settings).
func (m *Manager) settings() profiles.Settings { return m.opts.Settings.Current() }

// defaultModel is the model of a session that names none.
func (m *Manager) defaultModel() string {
	return cmp.Or(m.opts.DefaultModel, m.settings().DefaultModel)
}

// shellEnv says which of myco's environment variables the agent's shell
// does not inherit (settings shell_env_drop, shell_env_keep and the
// providers' keys); none named drops the secret-looking ones.
func (m *Manager) shellEnv() tools.EnvFilter {
	st := m.settings()
	f := tools.EnvFilter{Drop: st.ShellEnvDropped(), Keep: st.ShellEnvKeep}
	if f.Drop == nil {
		f.Drop = tools.DefaultEnvDrop()
	}
	return f
}

// Get returns the live session id if this process has it open.
func (m *Manager) Get(id string) (*Session, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	return s, ok
}

// Open returns the live session id, opening it (taking its writer lock)
// if needed. A session locked by another process gives *session.LockedError;
// an archived one is refused: it is read-only until restored.
func (m *Manager) Open(id string) (*Session, error) {
	// No lock of the manager is held while the session's files are read:
	// a slow or hostile file would stall every page and event stream of
	// every session. An opening placeholder makes a second Open of the
	// same id wait for the first instead of racing it for the writer lock.
	m.mu.Lock()
	for {
		if m.closed {
			m.mu.Unlock()
			return nil, ErrClosed
		}
		if s, ok := m.sessions[id]; ok {
			m.mu.Unlock()
			s.touch()
			return s, nil
		}
		if _, busy := m.busy[id]; busy {
			m.mu.Unlock()
			return nil, fmt.Errorf("session %s is being archived or restored: %w", id, ErrReadOnly)
		}
		opening, ok := m.opening[id]
		if !ok {
			break
		}
		m.mu.Unlock()
		<-opening
		m.mu.Lock()
	}
	opened := make(chan struct{})
	m.opening[id] = opened
	m.mu.Unlock()

	s, err := m.openSession(id)

	m.mu.Lock()
	delete(m.opening, id)
	close(opened)
	closed := m.closed
	if err == nil && !closed {
		m.sessions[id] = s
	}
	m.mu.Unlock()
	switch {
	case err != nil:
		return nil, err
	case closed: // Close ran while the files were read
		s.close()
		return nil, ErrClosed
	}
	return s, nil
}

// openSession reads session id and takes its writer lock; the caller
// holds its opening placeholder, not m.mu.
func (m *Manager) openSession(id string) (*Session, error) {
	if archived, err := m.opts.Store.IsArchived(id); err != nil {
		return nil, err
	} else if archived {
		return nil, fmt.Errorf("session %s is archived: %w", id, ErrReadOnly)
	}
	w, err := m.opts.Store.OpenWriter(id, session.Owner{PID: os.Getpid(), URL: m.opts.OwnerURL})
	if err != nil {
		return nil, err
	}
	s := newSession(m, w)
	if !s.inheritInstructions() {
		if err := s.loadInstructions(); err != nil {
			m.log.Warn("instructions not recorded", "session", id, "err", err)
		}
	}
	s.inheritApprovals()
	s.openLSP() // lsp.go: fixes whether lsp_diagnostics is offered
	if err := s.loadSkills(); err != nil {
		m.log.Warn("skills not recorded", "session", id, "err", err)
	}
	// Messages still queued were saved by a process that ended before their
	// turns: keep them as the person's messages; reopening runs nothing.
	s.keepQueued()
	return s, nil
}

// ErrReadOnly means the session cannot take messages here.
var ErrReadOnly = errkind.New(errkind.Conflict, "session is read-only")

// RunIdle closes idle sessions until ctx ends.
func (m *Manager) RunIdle(ctx context.Context) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			m.closeIdle()
		}
	}
}

func (m *Manager) closeIdle() {
	m.mu.Lock()
	var idle []*Session
	for id, s := range m.sessions {
		if s.idleFor(m.opts.Now()) > m.opts.IdleClose {
			idle = append(idle, s)
			delete(m.sessions, id)
		}
	}
	m.mu.Unlock()
	for _, s := range idle {
		s.close()
	}
}

// Release closes session id if it is live (before an archive, say).
// A running turn is stopped first.
func (m *Manager) Release(id string) {
	m.mu.Lock()
	s, ok := m.sessions[id]
	delete(m.sessions, id)
	m.mu.Unlock()
	if ok {
		s.close()
	}
}

// Exclusive runs fn (an archive or a restore) with session id closed here
// and kept from opening until fn returns: fn takes the writer lock itself,
// and no page or message can reopen the session under it. An Exclusive
// operation already moving the session is waited for first: moving a
// session's files takes a moment.
func (m *Manager) Exclusive(id string, fn func() error) error {
	return m.exclusiveIf(id, nil, fn)
}

// Delete runs del (the store's delete of session id) with the session
// closed here and kept from opening until del returns. A live session must
// be archived, its archive perhaps waiting for a running turn: that turn
// is stopped as Stop stops it, what it was writing settles, and the lock
// goes, before del runs. A live session that is not archived is refused
// before anything changes, and its turn goes on.
func (m *Manager) Delete(id string, del func() error) error {
	var refused error
	archived := func(s *Session) bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.archived {
			refused = fmt.Errorf("delete session %s: %w: archive it first", id, session.ErrNotArchived)
		}
		return s.archived
	}
	if err := m.exclusiveIf(id, archived, del); err != nil {
		return err
	}
	return refused
}

// exclusiveIf is Exclusive that leaves a live session open, and runs
// nothing, unless cond holds for it (checked once nothing else moves it).
func (m *Manager) exclusiveIf(id string, cond func(*Session) bool, fn func() error) error {
	m.mu.Lock()
	for {
		running, busy := m.busy[id]
		if !busy {
			// An Open reading the session finishes first: its session is
			// then live, and closed below like any other.
			if running, busy = m.opening[id]; !busy {
				break
			}
		}
		m.mu.Unlock()
		<-running
		m.mu.Lock()
	}
	s, live := m.sessions[id]
	if live && cond != nil && !cond(s) {
		m.mu.Unlock()
		return nil
	}
	done := make(chan struct{})
	m.busy[id] = done
	delete(m.sessions, id)
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		delete(m.busy, id)
		m.mu.Unlock()
		close(done)
	}()
	if live {
		s.close()
	}
	return fn()
}

// finishArchive closes session id, whose archive waited for its turn to
// end, and moves its files into the archive.
//
// A restore may come first: then the session is no longer marked
// archived, it stays open (its next turn may be running), and nothing
// moves.
func (m *Manager) FinishArchive(id string) error {
	still := func(s *Session) bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.archived
	}
	err := m.exclusiveIf(id, still, func() error { return m.opts.Store.FinishArchive(id) })
	if err != nil && !errors.Is(err, ErrReadOnly) {
		m.log.Warn("archive not finished; it is finished at the next start", "session", id, "err", err)
	}
	return err
}

// Close stops every turn, kills every shell and lets every lock go.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	all := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		all = append(all, s)
	}
	m.sessions = map[string]*Session{}
	m.mu.Unlock()
	for _, s := range all {
		s.close()
	}
	m.ledger.close() // after the sessions: their last calls are charged
}
