package web

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"myco/internal/textcut"
	"myco/session"
)

// Block kinds a MessageView shows.
const (
	KindText     = "text"    // HTML (markdown, sanitized) or Text (plain)
	KindImage    = "image"   // ImageURL
	KindToolCall = "tool"    // Tool, with its Result when one was recorded
	KindResult   = "result"  // Result: a tool outcome whose call is not in view
	KindUnknown  = "unknown" // a block type this version does not show
)

// MessageView is one message as the page shows it.
type MessageView struct {
	ID         string
	Role       string // "user" or "assistant"
	Human      bool   // a person typed it
	Steer      bool   // sent with /steer into a running turn
	GoalTurn   string // "turn 3 of 10" on the message that starts a goal's turn
	Undone     bool   // /undo took back its turn: rendered hidden
	At         time.Time
	Model      string
	StopReason string
	// ReplacedBy names the answer of the retry that replaced this failed
	// or interrupted one; the page shows this one folded.
	ReplacedBy string
	// Error says why a failed answer failed, in the person's words; nil
	// when it did not fail or the failure was not recorded (older
	// documents).
	Error  *ErrorView
	Blocks []BlockView
	// Forkable: the message is in the latest thread, so a fork can end on
	// its turn; its head offers Fork. Messages of earlier threads, and one
	// still streaming (the tab draws it), have no Fork.
	Forkable bool
	// TurnUsage, on a turn's last answer, is the turn's usage line, shown
	// after it; nil elsewhere, and on a message rendered on its own
	// (message.end: turn.end brings the line).
	TurnUsage *TurnUsageView
	// Command, on a person's message that was a custom command, is what
	// they typed ("/review file.go"); the blocks are its expansion, shown
	// folded under it (custom.templ).
	Command string
}

// ErrorView is why an answer failed.
type ErrorView struct {
	Kind    string // auth, rate_limited, overloaded, unreachable, …
	Message string
	Details string // the provider's own words, behind a fold
}

// BlockView is one content block. Kind says which fields are set.
type BlockView struct {
	Kind      string
	HTML      string // text of the agent: markdown rendered and sanitized
	Text      string // text of a person, or the type of an unknown block
	ImageURL  string
	MediaType string
	Tool      *ToolCallView
	Result    *ToolResultView
	Thinking  *ThinkingView // the model's reasoning (thinking.go)
	File      *FileChipView // an attached document (filechip.go)
	// NotShown is how many bytes of a text past maxShownText the page
	// leaves out (the export has them all).
	NotShown int
}

// maxShownText bounds the text of one block a page shows: a message of
// 100 MB (a pasted log, a runaway answer) would take the server seconds
// to render and the tab longer to draw. The document keeps it whole.
const maxShownText = 1 << 20

// shownText is text cut to what a page shows, and how much it leaves out.
func shownText(text string) (string, int) {
	if len(text) <= maxShownText {
		return text, 0
	}
	cut := textcut.Bytes(text, maxShownText)
	return cut, len(text) - len(cut)
}

// sizeText is a size in bytes as people read it: "2.4 MB", "512 KB".
func sizeText(n int) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
	case n >= 1<<10:
		return strconv.Itoa(n>>10) + " KB"
	}
	return plural(n, "byte")
}

// NotShownText says what a cut text leaves out, and where to read it.
func (b BlockView) NotShownText() string {
	return "… " + sizeText(b.NotShown) + " more of this message are not shown here; export the session (side panel) to read all of it"
}

// ToolCallView is a tool the agent called and, once recorded, its outcome.
type ToolCallView struct {
	ID      string
	Name    string
	Preview string // a one-line hint of the input (the command, the path)
	Input   string // the input as indented JSON
	Result  *ToolResultView
}

// ToolResultView is the recorded outcome of a tool call.
type ToolResultView struct {
	ToolUseID string
	Output    string
	IsError   bool
	Duration  time.Duration // zero when not recorded
	Diff      *DiffView     // the change a file tool made or proposed
	// Interrupted: the call was stopped, or myco stopped under it, and
	// Output is what it had written by then.
	Interrupted bool
	// Subagent is the session of the sub-agent that answered a task call.
	Subagent string
}

// NewMessageView returns the view of m on its own: tool results are shown
// where they are, not beside their calls. Pages use the thread-aware
// constructors, which pair them.
//
// A message on its own is one that just ended in a live turn, so it is in
// the latest thread: it can be forked from.
func NewMessageView(sessionID string, m session.Message) MessageView {
	v, _ := newMessageView(sessionID, m, nil)
	v.Forkable = v.ID != ""
	return v
}

// AllowFork marks the run's messages forkable: the caller knows the run
// is of the latest thread. A message without an ID (older documents)
// cannot be named as a fork point.
func (f *MessagesFragmentView) AllowFork() {
	for i := range f.Messages {
		f.Messages[i].Forkable = f.Messages[i].ID != ""
	}
}

// Label names who a message is from.
func (m MessageView) Label() string {
	switch {
	case m.Role == "assistant":
		return "Agent"
	case m.Human && m.Steer:
		return "You · steer"
	case m.Human:
		return "You"
	case m.GoalTurn != "":
		return "Goal · " + m.GoalTurn
	case m.onlyResults():
		return "Tool results"
	default:
		return "myco"
	}
}

func (m MessageView) onlyResults() bool {
	for _, b := range m.Blocks {
		if b.Kind != KindResult {
			return false
		}
	}
	return len(m.Blocks) > 0
}

// StopMarker is the notice a response that did not finish carries, or "".
func (m MessageView) StopMarker() string {
	switch m.StopReason {
	case session.StopInterrupted:
		return "Interrupted: this response was stopped before it finished."
	case session.StopError:
		if len(m.Blocks) == 0 {
			if m.Error != nil {
				return "" // the error card says it, in words to act on
			}
			return "Failed: no answer came."
		}
		return "Failed: this response ended with an error before it finished."
	}
	return ""
}

// Retryable reports whether the answer failed or was interrupted and no
// retry replaced it yet: it carries a Retry button. The page shows only
// the one on the conversation's last message (style.css); the others are
// history, and a retry always answers the person's last message.
//
// A turn stopped while a tool ran ends on an answer that asked for the
// tool (its stop reason is tool_use) and the interrupted outcome: the
// page shows that outcome beside its call in the answer, and as it
// arrives live it is a message of results alone. Either carries the
// button.
func (m MessageView) Retryable() bool {
	if m.ReplacedBy != "" {
		return false
	}
	if m.Role == "assistant" && (m.StopReason == session.StopError || m.StopReason == session.StopInterrupted) {
		return true
	}
	return m.interruptedTool()
}

// interruptedTool reports whether a tool outcome shown in m was cut short.
func (m MessageView) interruptedTool() bool {
	for _, b := range m.Blocks {
		if b.Tool != nil && b.Tool.Result != nil && b.Tool.Result.Interrupted {
			return true
		}
		if b.Result != nil && b.Result.Interrupted {
			return true
		}
	}
	return false
}

// Copyable reports whether the message has words to copy as Markdown: a
// message of tool results or images alone has none.
func (m MessageView) Copyable() bool {
	for _, b := range m.Blocks {
		if b.Kind == KindText && (b.HTML != "" || b.Text != "") {
			return true
		}
	}
	return false
}

// ShowTime reports whether the message shows its timestamp: turns a person
// typed do, so the conversation can be placed in time.
func (m MessageView) ShowTime() bool { return m.Human && !m.At.IsZero() }

// newMessageView builds the view of m. results holds the tool results of
// the thread by tool_use ID; a call found there takes its result with it,
// and paired reports which result blocks were taken so the caller can leave
// them out where they were recorded.
func newMessageView(sessionID string, m session.Message, results map[string]*ToolResultView) (MessageView, []string) {
	v := MessageView{
		ID: m.ID, Role: m.Role, Human: m.Human, Steer: m.Steer, GoalTurn: goalTurn(m.Goal), At: m.At,
		Model: m.Model, StopReason: m.StopReason, ReplacedBy: m.ReplacedBy, Undone: m.Undone,
	}
	if m.Command != nil {
		v.Command = m.Command.Typed()
	}
	if m.Error != nil {
		v.Error = &ErrorView{Kind: m.Error.Kind, Message: m.Error.Message, Details: m.Error.Details}
	}
	var paired []string
	for i, b := range m.Content {
		bv := newBlockView(sessionID, m, i, b)
		if bv.Tool != nil {
			if r, ok := results[bv.Tool.ID]; ok {
				bv.Tool.Result = r
				paired = append(paired, bv.Tool.ID)
			}
		}
		v.Blocks = append(v.Blocks, bv)
	}
	return v, paired
}

func newBlockView(sessionID string, m session.Message, i int, b session.Block) BlockView {
	switch b.Type {
	case session.BlockText:
		text, notShown := shownText(b.Text)
		if m.Role == "assistant" {
			return BlockView{Kind: KindText, HTML: RenderMarkdown(text), NotShown: notShown}
		}
		// A person's words are shown as typed: markdown would eat their
		// asterisks and underscores.
		return BlockView{Kind: KindText, Text: text, NotShown: notShown}
	case session.BlockImage:
		return BlockView{Kind: KindImage, ImageURL: imageURL(sessionID, m.ID, i, b), MediaType: b.MediaType}
	case session.BlockFile:
		return BlockView{Kind: KindFile, File: NewFileChip(b)}
	case session.BlockToolUse:
		return BlockView{Kind: KindToolCall, Tool: newToolCallView(b)}
	case session.BlockToolResult:
		return BlockView{Kind: KindResult, Result: newToolResultView(b)}
	case session.BlockThinking, session.BlockRedactedThinking:
		return newThinkingView(b)
	}
	return BlockView{Kind: KindUnknown, Text: b.Type}
}

// imageURL is where the page loads an image block from. Legacy inline bytes
// are served by the server rather than put in a data: URL, which templ
// sanitises away and the CSP forbids.
func imageURL(sessionID, messageID string, i int, b session.Block) string {
	switch {
	case b.SHA256 != "":
		return "/images/" + url.PathEscape(b.SHA256)
	case b.Data != "":
		return SessionURL(sessionID) + "/inline/" + url.PathEscape(messageID) + "/" + strconv.Itoa(i)
	}
	return ""
}

func newToolCallView(b session.Block) *ToolCallView {
	return &ToolCallView{
		ID: b.ID, Name: b.Name,
		Preview: inputPreview(b.Input),
		Input:   indentJSON(b.Input),
	}
}

func newToolResultView(b session.Block) *ToolResultView {
	return &ToolResultView{
		ToolUseID:   b.ToolUseID,
		Output:      capOutput(b.ResultText()),
		IsError:     b.IsError,
		Duration:    time.Duration(b.DurationMS) * time.Millisecond,
		Diff:        NewDiffView(resultDiff(b)),
		Interrupted: b.Interrupted,
		Subagent:    b.Session,
	}
}

// DurationText is the duration as people read it ("26.4 s", "12 ms").
func (r ToolResultView) DurationText() string {
	return formatDuration(r.Duration)
}

// Status is the one-word outcome shown on a collapsed result.
func (r ToolResultView) Status() string {
	switch {
	case r.Interrupted:
		return "interrupted"
	case r.IsError:
		return "error"
	}
	return "ok"
}

// maxOutput bounds the tool output one block puts on the page: a whole file
// read back 100 times would make the page unusable, and the document keeps
// every byte anyway.
const maxOutput = 64 << 10

func capOutput(s string) string {
	if len(s) <= maxOutput {
		return s
	}
	cut := strings.ToValidUTF8(s[:maxOutput], "")
	return cut + "\n… " + strconv.Itoa(len(s)-len(cut)) + " more bytes not shown"
}

// goalTurn is how the head of a goal turn's message names it.
func goalTurn(g *session.GoalTurn) string {
	if g == nil {
		return ""
	}
	return fmt.Sprintf("turn %d of %d", g.Turn, g.Of)
}
