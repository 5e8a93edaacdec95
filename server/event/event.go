// Package event defines every event a session's stream carries: one Go type
// per event, whose JSON is the event's data and whose Name is the event's
// wire name. docs/API.md and static/events.js list the same names; tests
// keep the three in step.
package event

import (
	"encoding/json"
	"time"
)

// Event is one event of a session's stream.
type Event interface {
	// Name is the wire name, sent as the SSE "event:" field.
	Name() string
}

// all holds one value of every event type. Adding a type means adding it
// here; a test fails when a type with a Name method is missing.
var all = []Event{
	Snapshot{}, Status{}, Title{}, Queue{}, Context{},
	BtwStart{}, BtwDelta{}, BtwEnd{},
	TurnStart{}, TurnEnd{}, TurnError{},
	MessageStart{}, TextDelta{}, MessageBlocks{}, MessageEnd{}, MessageDiscard{},
	ToolStart{}, ToolApproval{}, ToolOutput{}, ToolEnd{},
	CompactionStart{}, CompactionEnd{}, ThreadNew{},
	Panel{},
	Note{},
	ThinkingDelta{},
	Goal{},
	Mode{}, PlanReady{},
	TurnUndone{},
	Subagent{},
	SessionsSnapshot{}, SessionAdded{}, SessionChanged{}, SessionRemoved{},
	SettingsChanged{},
}

// Names lists the wire name of every event, in a stable order.
func Names() []string {
	names := make([]string, len(all))
	for i, e := range all {
		names[i] = e.Name()
	}
	return names
}

// Snapshot is the first event of every (re)connect, sent to the connecting
// tab only: the live state of the session, so a tab that reconnects loses
// nothing and needs no replay. A session that is not live in this process
// has no turn, partial, usage or context.
type Snapshot struct {
	// Seq is the id of the last event the snapshot already includes; a tab
	// ignores events whose id is not greater.
	Seq          int64          `json:"seq,omitzero"`
	Status       string         `json:"status"`
	Detail       string         `json:"detail,omitempty"`
	StatusHTML   string         `json:"status_html,omitempty"` // the chip, as Status's html
	Title        string         `json:"title"`
	Model        string         `json:"model"`
	Turn         string         `json:"turn,omitempty"`
	Partial      *Partial       `json:"partial,omitempty"` // filled by the hub: the text as of Seq
	Approvals    []ToolApproval `json:"approvals"`
	Queued       []Queued       `json:"queued"`
	QueuedHTML   string         `json:"queued_html,omitempty"` // Queued as the page lists it
	SessionUsage *Usage         `json:"session_usage,omitempty"`
	Context      *Context       `json:"context,omitempty"`
	LockedBy     *LockRef       `json:"locked_by,omitempty"`
	ProviderHelp string         `json:"provider_help,omitempty"`
	// Notes are the notes waiting for the next message and the person's
	// commands still running, each with its html, oldest first.
	Notes []Note `json:"notes,omitempty"`
	// Goal is the session's standing goal as the goal event carries it,
	// its bar rendered (the bar's empty state when there is none).
	Goal *Goal `json:"goal,omitempty"`
	// Mode is "plan" while plan mode is on, "build" otherwise.
	Mode string `json:"mode,omitempty"`
	// PlanReady is the "Build this plan?" card still offered: the last
	// turn ended in plan mode with its plan, and nothing came since.
	PlanReady *PlanReady `json:"plan_ready,omitempty"`
	// Running are the calls and the person's !commands running as of
	// Seq, filled by the hub, each with the tail of its output so far.
	Running []RunningTool `json:"running,omitempty"`
	// Subagents are the sub-agents the running turn's task calls started
	// that still run, as their last subagent event said.
	Subagents []Subagent `json:"subagents,omitempty"`
	// MCPHTML is the side panel's MCP servers as they are now, for a tab
	// whose page was rendered before a server's state changed and before
	// its stream could hear of it (a panel event's html, its one part).
	MCPHTML string `json:"mcp_html,omitempty"`
}

// RunningTool is a tool call or a person's !command still running when a
// snapshot is taken: enough for a tab that connects mid-command to show
// it as the tabs that saw it start do, its output so far and the time it
// has run by the server's clock.
type RunningTool struct {
	ToolUseID string `json:"tool_use_id"`
	// Message, Tool and HTML are those of its tool.start (the answer that
	// called it, the tool, its card); all three empty for a !command,
	// whose card a note brings.
	Message   string    `json:"message,omitempty"`
	Tool      string    `json:"name,omitempty"`
	HTML      string    `json:"html,omitempty"`
	StartedAt time.Time `json:"started_at"`
	// ElapsedMS is how long it has run when the snapshot was taken: a tab
	// counts on from it with its own clock, whatever that clock says.
	ElapsedMS int64 `json:"elapsed_ms"`
	// Output is what tool.output carried until Seq, its last
	// RunningOutputTail bytes (cut at a character).
	Output string `json:"output"`
}

// RunningOutputTail bounds the output a snapshot carries per running
// command: the tail a tool card shows (4,000 characters) fits in it.
const RunningOutputTail = 16 << 10

// Partial is the answer streaming now: its whole text, and the blocks of
// it rendered so far (the HTML of every MessageBlocks event until now),
// which cover Text up to Upto (UTF-16 code units); the rest is the tail.
type Partial struct {
	Message string `json:"message"`
	Text    string `json:"text"`
	HTML    string `json:"html,omitempty"`
	Upto    int    `json:"upto,omitempty"`
	// Tail is the last block rendered while it grows, as the last
	// MessageBlocks carried it.
	Tail string `json:"tail,omitempty"`
	// Thinking is the answer's reasoning so far (thinking.delta), which
	// comes before its text.
	Thinking string `json:"thinking,omitempty"`
}

// QueuedFile is a document attached to a queued message.
type QueuedFile struct {
	SHA256    string `json:"sha256"`
	Name      string `json:"name"`
	MediaType string `json:"media_type"`
	Size      int64  `json:"size"`
}

// Queued is a message waiting for the running turn to end.
type Queued struct {
	ID     string   `json:"id"`
	Text   string   `json:"text"`
	Images []string `json:"images,omitempty"`
	// Files are the documents attached, as session.FileRef names them.
	Files []QueuedFile `json:"files,omitempty"`
	At    time.Time    `json:"at,omitzero"`
	// Steer: sent with /steer, it waits for the running turn's tool round
	// to end and goes in before the turn's next model call; it cannot be
	// edited (only messages queued for a turn of their own can).
	Steer bool `json:"steer,omitempty"`
}

// Usage is a token count, of one turn or of the whole session.
type Usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
}

// LockRef names the process that holds a session's writer lock.
type LockRef struct {
	PID int    `json:"pid"`
	URL string `json:"url,omitempty"`
}

// Status is what the session is doing: idle, thinking, tool, approval,
// retrying, compacting (a snapshot also says archived or locked); Detail
// names the tool or the retry.
type Status struct {
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
	// HTML is the status chip as the page renders it (web.StatusChip),
	// filled by the hub as the event is published.
	HTML string `json:"html,omitempty"`
}

// Title is the session's new title.
type Title struct {
	Title string `json:"title"`
	// FirstWords: the title is only the start of the first message,
	// until the automatic title replaces it.
	FirstWords bool `json:"first_words,omitempty"`
}

// Queue is the list of queued messages after a change; HTML is its items
// as the page lists them above the composer.
type Queue struct {
	Queued []Queued `json:"queued"`
	HTML   string   `json:"html"`
}

// Context is what the tab's gauge shows: the context the last call used
// against the threshold, and whether automatic compaction is on.
type Context struct {
	Used      int    `json:"used"`
	Threshold int    `json:"threshold"`
	Window    int    `json:"window"`
	Auto      bool   `json:"auto"`
	OffReason string `json:"off_reason,omitempty"`
	// HTML is the gauge as the page renders it, which the tab swaps in.
	HTML string `json:"html,omitempty"`
}

// TurnStart says a turn began for the person's message.
type TurnStart struct {
	Turn    string `json:"turn"`
	Message string `json:"message"`
}

// TurnEnd says a turn ended; it follows a TurnError when the turn failed.
type TurnEnd struct {
	Turn         string `json:"turn"`
	StopReason   string `json:"stop_reason"`
	Usage        Usage  `json:"usage"`
	SessionUsage Usage  `json:"session_usage"`
	// HTML is the turn's usage line (tokens, cache hit, cost) as the page
	// renders it from the document; "" when the turn reported no usage.
	HTML string `json:"html,omitempty"`
}

// TurnError says what failed. Turn is empty only for an error outside a
// turn (a queued message that could not be saved, so its turn never
// started).
type TurnError struct {
	Turn  string `json:"turn,omitempty"`
	Error string `json:"error"`
}

// MessageStart says an assistant message began streaming.
type MessageStart struct {
	Message string `json:"message"`
	Role    string `json:"role"`
}

// TextDelta is text appended to a streaming message. The hub merges
// consecutive deltas of one message when a tab falls behind.
type TextDelta struct {
	Message string `json:"message"`
	Text    string `json:"text"`
}

// MessageBlocks is HTML for top-level blocks of a streaming message that
// are complete: it goes after the blocks sent before it, and the message's
// text up to Upto is now shown by all of them. Upto counts the text from
// the message's start in UTF-16 code units, as JavaScript strings do, so a
// tab cuts its raw text with text.slice(upto); the text after it stays
// plain until more blocks or message.end come. Tail, when not empty, is
// the last block rendered while it grows (an open code fence, a table):
// shown in place of the plain tail, which stays hidden until a
// MessageBlocks with an empty Tail.
type MessageBlocks struct {
	Message string `json:"message"`
	HTML    string `json:"html"`
	Upto    int    `json:"upto"`
	Tail    string `json:"tail,omitempty"`
}

// MessageEnd is a stored message, rendered as the page shows it.
type MessageEnd struct {
	Message    string `json:"message"`
	Role       string `json:"role"`
	HTML       string `json:"html"`
	StopReason string `json:"stop_reason"` // empty for a user message
}

// MessageDiscard says a streamed message was dropped before a retry.
type MessageDiscard struct {
	Message string `json:"message"`
}

// ToolStart says a tool began running. Message is the answer that called
// it; HTML is the call's card as the page shows it, without its outcome
// (ToolEnd brings that).
type ToolStart struct {
	Message   string          `json:"message"`
	ToolUseID string          `json:"tool_use_id"`
	Tool      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	HTML      string          `json:"html,omitempty"`
}

// ToolApproval asks the person to allow a tool call; Diff shows a file
// edit. HTML is the approval card, with its three decision buttons.
type ToolApproval struct {
	ToolUseID string          `json:"tool_use_id"`
	Tool      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Diff      string          `json:"diff,omitempty"`
	HTML      string          `json:"html,omitempty"`
}

// ToolOutput is output a running command printed, as it arrives (the
// first 64 KiB of it; tool.end has the outcome).
type ToolOutput struct {
	ToolUseID string `json:"tool_use_id"`
	Text      string `json:"text"`
}

// ToolEnd is a tool's outcome, its output capped; HTML is the outcome as
// the page shows it in the call's card (its duration, its diff).
type ToolEnd struct {
	ToolUseID string `json:"tool_use_id"`
	IsError   bool   `json:"is_error"`
	Output    string `json:"output"`
	HTML      string `json:"html,omitempty"`
}

// CompactionStart says a compaction began, and why.
type CompactionStart struct {
	Reason string `json:"reason"`
}

// CompactionEnd says how a compaction ended: the new thread, its summary
// and how many messages it carried; or, when it failed, the error (Thread
// is then the unchanged current thread).
type CompactionEnd struct {
	Thread  int    `json:"thread"`
	OK      bool   `json:"ok"`
	Error   string `json:"error,omitempty"`
	Summary string `json:"summary,omitempty"`
	Carried int    `json:"carried,omitempty"`
}

// ThreadNew says a successor thread was made.
type ThreadNew struct {
	Thread int `json:"thread"`
}

// Panel is the session's side panel after a change to what it shows
// (links, scratchpad, counts, last activity, tokens), rendered as the page
// renders it: parts marked data-panel-part, which the tab swaps in.
type Panel struct {
	HTML string `json:"html"`
}

func (Snapshot) Name() string        { return "snapshot" }
func (Status) Name() string          { return "status" }
func (Title) Name() string           { return "title" }
func (Queue) Name() string           { return "queued" }
func (Context) Name() string         { return "context" }
func (TurnStart) Name() string       { return "turn.start" }
func (TurnEnd) Name() string         { return "turn.end" }
func (TurnError) Name() string       { return "turn.error" }
func (MessageStart) Name() string    { return "message.start" }
func (TextDelta) Name() string       { return "text.delta" }
func (MessageBlocks) Name() string   { return "message.blocks" }
func (MessageEnd) Name() string      { return "message.end" }
func (MessageDiscard) Name() string  { return "message.discard" }
func (ToolStart) Name() string       { return "tool.start" }
func (ToolApproval) Name() string    { return "tool.approval" }
func (ToolEnd) Name() string         { return "tool.end" }
func (ToolOutput) Name() string      { return "tool.output" }
func (CompactionStart) Name() string { return "compaction.start" }
func (CompactionEnd) Name() string   { return "compaction.end" }
func (ThreadNew) Name() string       { return "thread.new" }
func (Panel) Name() string           { return "panel" }
func (Subagent) Name() string        { return "subagent" }

// Sub-agent states as the subagent event says them beside the child's own
// live states (thinking, tool, approval…).
const (
	SubagentDone    = "done"    // it answered; its answer is the call's outcome
	SubagentFailed  = "failed"  // its turn failed
	SubagentStopped = "stopped" // stopped, by the person or with the parent's turn
)

// Subagent is a sub-agent a task call of this session started, when it
// starts, when its state changes (an approval it waits for is
// "approval"), and when it ends. HTML is its strip inside the call's
// card, as the page renders it.
type Subagent struct {
	ToolUseID string `json:"tool_use_id"`
	Session   string `json:"session"`
	Title     string `json:"title"`
	Status    string `json:"status"`
	Detail    string `json:"detail,omitempty"`
	HTML      string `json:"html,omitempty"`
}

// The profile's stream (GET /api/events) tells every tab of the profile
// when its listing changes. Its events are small: a tab refetches the rows
// it shows, rendered by the server, rather than building rows from them.

// Session statuses as a listing shows them (SessionChanged.Status).
const (
	ListRunning = "running" // a turn or a compaction runs
	ListWaiting = "waiting" // an approval waits for the person
	ListFailed  = "failed"  // the latest answer failed; its error is saved
	ListIdle    = "idle"
)

// SessionsSnapshot is the first event of every (re)connect to the
// profile's stream: what the tab shows may be stale, so it refetches.
type SessionsSnapshot struct{}

// SessionAdded says a session joined the listing of active sessions:
// created, restored (Restored), or put there by another process.
type SessionAdded struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Status   string `json:"status"`
	Restored bool   `json:"restored,omitempty"`
}

// SessionChanged says an active session's title, status or last activity
// changed.
type SessionChanged struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Status    string    `json:"status"`
	UpdatedAt time.Time `json:"updated_at"`
}

// SettingsChanged says the profile's settings file was read again, on the
// profile's stream: HTML is the banner every page shows of what is wrong
// with the file now ("" when nothing), for open tabs to swap in.
type SettingsChanged struct {
	HTML string `json:"html"`
}

// SessionRemoved says a session left the listing of active sessions:
// archived (Archived), or its document is gone.
type SessionRemoved struct {
	ID       string `json:"id"`
	Archived bool   `json:"archived,omitempty"`
}

func (SessionsSnapshot) Name() string { return "sessions.snapshot" }
func (SessionAdded) Name() string     { return "session.added" }
func (SessionChanged) Name() string   { return "session.changed" }
func (SessionRemoved) Name() string   { return "session.removed" }
func (SettingsChanged) Name() string  { return "settings.changed" }

// Events of a side question (/btw), answered into a card of its own,
// outside the conversation.

// BtwStart says a side question (/btw) is being answered: the tabs open a
// card for it. The question and its answer are never saved nor sent to the
// model again.
type BtwStart struct {
	ID       string `json:"id"`
	Question string `json:"question"`
}

// BtwDelta is text appended to a side question's answer.
type BtwDelta struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// BtwEnd says a side question's answer is complete: HTML is the answer
// rendered as the page renders an answer, or Error says why there is none.
// Usage is what the call used; it is not added to the session's usage.
type BtwEnd struct {
	ID    string `json:"id"`
	HTML  string `json:"html,omitempty"`
	Error string `json:"error,omitempty"`
	Usage Usage  `json:"usage"`
}

func (BtwStart) Name() string { return "btw.start" }
func (BtwDelta) Name() string { return "btw.delta" }
func (BtwEnd) Name() string   { return "btw.end" }

// Note is a note waiting for the person's next message, as it arrives or
// changes: left from elsewhere (kind "note", From says who), a command the
// person ran (kind "command": Command, Exit, Text its output), or a file or
// folder attached (kind "file": Path). Removed says an attachment was taken
// back. Text is capped for the tab.
type Note struct {
	ID      string    `json:"id"`
	Kind    string    `json:"kind"`
	From    string    `json:"from,omitempty"`
	Text    string    `json:"text"`
	At      time.Time `json:"at,omitzero"`
	Command string    `json:"command,omitempty"`
	Exit    *int      `json:"exit,omitempty"`
	Path    string    `json:"path,omitempty"`
	Removed bool      `json:"removed,omitempty"`
	// HTML is the note's card, or its chip when it is an attachment, as
	// the page renders it (a command's card running until Exit is set).
	HTML string `json:"html,omitempty"`
}

func (Note) Name() string { return "note" }

// ThinkingDelta is reasoning appended to a streaming message's thinking
// block, before its text: the tab shows it folded ("Thinking…"), and
// message.end brings the stored block.
type ThinkingDelta struct {
	Message string `json:"message"`
	Text    string `json:"text"`
}

func (ThinkingDelta) Name() string { return "thinking.delta" }

// Goal is the session's standing goal as it changes: its text, turns, state
// (running, paused, done, blocked, off; "" when the session has none) and
// the agent's or myco's note, with the goal bar rendered.
type Goal struct {
	Text      string `json:"text"`
	TurnsMax  int    `json:"turns_max"`
	TurnsUsed int    `json:"turns_used"`
	State     string `json:"state"`
	Note      string `json:"note,omitempty"`
	HTML      string `json:"html"`
}

func (Goal) Name() string { return "goal" }

// Mode is the session's mode as it changes: "plan" while plan mode is on
// (the agent reads and plans, and changes no file), "build" otherwise.
type Mode struct {
	Mode string `json:"mode"`
}

// PlanReady says a turn ended in plan mode with its plan: the tab asks
// "Build this plan?" with the card in HTML.
type PlanReady struct {
	Turn string `json:"turn"`
	HTML string `json:"html"`
}

func (Mode) Name() string      { return "mode" }
func (PlanReady) Name() string { return "plan.ready" }

// TurnUndone says /undo took a turn back (Undone) or /redo brought it
// back: every tab hides or shows its messages, as the one that asked did.
type TurnUndone struct {
	Turn     string   `json:"turn"`
	Messages []string `json:"messages"`
	Undone   bool     `json:"undone"`
}

func (TurnUndone) Name() string { return "turn.undone" }
