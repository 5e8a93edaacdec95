// Package session owns a profile's sessions on disk: the document model, the
// store (load, save, list, archive, restore, migrate), writer locks and the
// content-addressed image store. It knows nothing of HTTP.
package session

import (
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// Schema is the document schema this package reads and writes.
const Schema = 1

// Document is one session: header fields, then ordered threads. Fields this
// version does not know are kept in Unknown and written back unchanged, so a
// document written by a newer myco survives a rewrite by this one.
//
// JSON is handled by github.com/go-json-experiment/json, the mirror of
// encoding/json/v2 (stable in Go 1.27): it keeps unknown members in one pass,
// rejects invalid UTF-8 and duplicate keys, which encoding/json does not.
// Unknown members land in the `json:",embed"` fallback fields: v2 ignores
// tag options it does not know (`,unknown` dropped them silently). Its
// omitempty omits what encodes as null, "", {} or [], never a 0.
type Document struct {
	Schema int    `json:"schema"`
	ID     string `json:"id"`
	Title  string `json:"title"`
	// TitleFrom is TitleFromWords while Title is only the start of the
	// first message, which the automatic title replaces; empty for a
	// title the person, the agent or the title model gave (title.go).
	TitleFrom string `json:"title_from,omitempty"`
	// Name is what the person calls the session wherever an ID is taken
	// (`myco run -n explore`, `--fork-from explore`, `/resume explore`):
	// unique in the profile, empty for none (name.go).
	Name string `json:"name,omitempty"`
	// Pinned keeps the session at the top of the listings, above the
	// newest; Tags are the person's own labels (tags.go). Both are the
	// person's alone: no turn changes them.
	Pinned     bool      `json:"pinned,omitzero"`
	Tags       []string  `json:"tags,omitempty"`
	Model      string    `json:"model,omitempty"`
	Cwd        string    `json:"cwd,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
	Archived   bool      `json:"archived"`
	Parent     *Parent   `json:"parent,omitempty"`
	Links      []Link    `json:"links,omitempty"`
	Scratchpad string    `json:"scratchpad,omitempty"`
	// Think is the session's reasoning effort (off, low, medium, high, xhigh,
	// max); empty follows the settings' think.
	Think string `json:"think,omitempty"`
	// Personality names a persona of the settings' personalities whose
	// instructions join the system prompt; empty is none.
	Personality string `json:"personality,omitempty"`
	// Goal is the session's standing goal, if one was ever set (goal.go).
	Goal *Goal `json:"goal,omitempty"`
	// Mode is "plan" while the agent may only read and plan (it changes
	// no file); empty is build mode, where it works as usual.
	Mode string `json:"mode,omitempty"`
	// Todo is the agent's checklist for a task of several steps
	// (todo_write, when the settings turn it on); replaced whole.
	Todo []TodoItem `json:"todo,omitempty"`
	// Instructions are the project's instruction files (AGENTS.md,
	// CLAUDE.md, MYCO.md) the live session last read into its system
	// prompt, in the order they went in (instructions.go); replaced whole.
	Instructions []Instruction `json:"instructions,omitempty"`
	// Skills are the skills the live session last offered its agent, and
	// the ones it found and could not (custom.go); replaced whole.
	Skills []SkillRecord `json:"skills,omitempty"`
	// MCPOff are the MCP servers the person turned off for this session
	// (the side panel's switch): their tools are not offered to its agent.
	MCPOff []string `json:"mcp_off,omitempty"`
	// Queued are messages the person sent while a turn ran, saved until
	// their own turn starts (then they move into the thread).
	Queued []Queued `json:"queued,omitempty"`
	// Notes were left for the session from elsewhere, or are the person's
	// own commands and attached files, waiting for (or delivered with)
	// their next message (notes.go).
	Notes []Note `json:"notes,omitempty"`
	// CacheKey groups the sessions whose requests share a prefix (a fork
	// and the session it came from), for the providers' prompt cache;
	// empty is the session's own ID (see PromptCacheKey).
	CacheKey string `json:"cache_key,omitempty"`
	// Spent is what the session's budget was charged (spend.go); nil
	// before its first charge.
	Spent *Spent `json:"spent,omitempty"`
	// Source, on a session imported from another agent (myco import),
	// names what it was made from; an import never makes a second session
	// of one source (package importer).
	Source *Source `json:"source,omitempty"`
	// JournalSeq is the sequence number of the last journal record folded
	// into this document: replaying the journal skips records up to it.
	JournalSeq int64 `json:"journal_seq,omitzero"`
	// Threads comes last among known fields, so a reader may stop early.
	Threads []Thread       `json:"threads"`
	Unknown jsontext.Value `json:",embed"`
}

// PromptCacheKey is the key d's model calls are cached under: shared by a
// fork and its parent, so an OpenAI-compatible server keeps their common
// prefix on one shard.
func (d *Document) PromptCacheKey() string {
	if d.CacheKey != "" {
		return d.CacheKey
	}
	return d.ID
}

// ModePlan is the document's mode while plan mode is on.
const ModePlan = "plan"

// TodoItem is one step of the agent's checklist: State is todo, doing or
// done.
type TodoItem struct {
	Text    string         `json:"text"`
	State   string         `json:"state"`
	Unknown jsontext.Value `json:",embed"`
}

// TodoList is a whole checklist, as a header change carries it.
type TodoList []TodoItem

// Todo states.
const (
	TodoPending = "todo"
	TodoDoing   = "doing"
	TodoDone    = "done"
)

// Parent records where a forked session came from.
type Parent struct {
	Session string `json:"session"`
	Thread  int    `json:"thread"`
	// Message is the last message the fork kept (absent: none of thread
	// Thread).
	Message string `json:"message,omitempty"`
	// Title is the parent's title when it was forked: the fork is "Fork
	// of …" until it has a title of its own.
	Title string `json:"title,omitempty"`
	// Kind is ParentSubagent for a sub-agent's session, started by a task
	// call of the parent's agent; absent for a fork the person made.
	Kind string `json:"kind,omitempty"`
	// Call is the ID of the parent's task call a sub-agent's session
	// answers.
	Call string `json:"call,omitempty"`
	// Branch, on a fork made by an edit or a regeneration, is the message
	// of session Session that the fork's first new message is another
	// version of (versions.go); absent on any other fork.
	Branch  string         `json:"branch,omitempty"`
	Unknown jsontext.Value `json:",embed"`
}

// Source is the other agent's session an imported one was made from:
// Tool is "claude-code", "codex" or "opencode", ID that tool's session ID,
// Path where it was read.
type Source struct {
	Tool       string         `json:"tool"`
	ID         string         `json:"id"`
	Path       string         `json:"path,omitempty"`
	ImportedAt time.Time      `json:"imported_at,omitzero"`
	Unknown    jsontext.Value `json:",embed"`
}

// ParentSubagent is Parent.Kind of a sub-agent's session.
const ParentSubagent = "subagent"

// IsSubagent reports whether d is a sub-agent's session.
func (d *Document) IsSubagent() bool { return d.Parent != nil && d.Parent.Kind == ParentSubagent }

// Link is a URL the agent or the person attached to the session.
type Link struct {
	URL     string         `json:"url"`
	Title   string         `json:"title,omitempty"`
	Unknown jsontext.Value `json:",embed"`
}

// Queued is a message waiting for the running turn to end.
type Queued struct {
	ID     string   `json:"id"`
	Text   string   `json:"text"`
	Images []string `json:"images,omitempty"`
	// Files are the documents attached (files.go), as their blocks will
	// name them.
	Files []FileRef `json:"files,omitempty"`
	At    time.Time `json:"at,omitzero"`
	// Steer: sent with /steer, it waits for the running turn's tool round
	// and goes in before that turn's next model call. It is saved here,
	// before the 202, so a crash cannot lose it: a session reopened after
	// one keeps it as the person's message like any queued one.
	Steer   bool           `json:"steer,omitempty"`
	Unknown jsontext.Value `json:",embed"`
}

// Thread is a linear conversation. A successor thread made by compaction
// names its predecessor in CompactedFrom and starts with a summary.
type Thread struct {
	CreatedAt     time.Time      `json:"created_at"`
	CompactedFrom *int           `json:"compacted_from,omitempty"`
	Summary       string         `json:"summary,omitempty"`
	Carried       int            `json:"carried,omitzero"`
	Messages      []Message      `json:"messages"`
	Unknown       jsontext.Value `json:",embed"`
}

// Own is the messages written in this thread: all but the first Carried
// of a thread made by compaction, which were written in its predecessor
// and are counted there.
func (t *Thread) Own() []Message {
	if t.CompactedFrom == nil {
		return t.Messages
	}
	return t.Messages[min(t.Carried, len(t.Messages)):]
}

// Message follows the Anthropic Messages shape plus bookkeeping: an ID, the
// time, and whether a person typed it.
type Message struct {
	ID         string    `json:"id"`
	Role       string    `json:"role"`
	At         time.Time `json:"at,omitzero"`
	Human      bool      `json:"human,omitzero"`
	Model      string    `json:"model,omitempty"`
	StopReason string    `json:"stop_reason,omitempty"`
	Usage      *Usage    `json:"usage,omitempty"`
	// ReplacedBy, on an answer that failed or was interrupted, names the
	// answer of the retry that replaced it: the model no longer sees it,
	// the page shows it folded, and it is never deleted.
	ReplacedBy string `json:"replaced_by,omitempty"`
	// Undone says /undo took back the turn this message belongs to: the
	// model no longer sees it, the page folds it, /redo clears it.
	Undone bool `json:"undone,omitzero"`
	// Steer, on a person's message, says it was sent with /steer while a
	// turn ran: it went in between two of the turn's model calls, after a
	// tool round, and the model sees it beside that round's results.
	Steer bool `json:"steer,omitzero"`
	// Goal, on a user message myco wrote (not Human), says it starts
	// turn Turn of Of of the standing goal (goal.go).
	Goal *GoalTurn `json:"goal,omitempty"`
	// Command, on a person's message, says it was a custom command; the
	// text is the command's expansion (custom.go).
	Command *CommandUse `json:"command,omitempty"`
	// Error, on an answer that failed (stop_reason "error"), says why in
	// words for the person. It is shown with the answer, after a reload
	// too, and never sent to the model. A failure before any text is an
	// answer with no content and only this.
	Error   *MessageError  `json:"error,omitempty"`
	Content []Block        `json:"content"`
	Unknown jsontext.Value `json:",embed"`
}

// MessageError is why an answer failed.
type MessageError struct {
	// Kind is one of auth, rate_limited, overloaded, unreachable,
	// no_provider, provider, other (llm's Fail* constants). Details are
	// the error as the provider and its SDK worded it (status line, URL,
	// request ID), shown folded under Message.
	Kind     string         `json:"kind"`
	Message  string         `json:"message"`
	Status   int            `json:"status,omitzero"`
	Provider string         `json:"provider,omitempty"`
	Details  string         `json:"details,omitempty"`
	Unknown  jsontext.Value `json:",embed"`
}

// Stop reasons myco writes besides the providers' own.
const (
	StopInterrupted = "interrupted"
	StopError       = "error"
)

// Usage is the token accounting of one model response.
type Usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens,omitzero"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens,omitzero"`
	// CacheCreation5mInputTokens and CacheCreation1hInputTokens are the
	// parts of CacheCreationInputTokens written with the 5-minute and the
	// 1-hour lifetime, as Anthropic reports them (cache_creation.ephemeral_*);
	// a 1-hour write costs more. What they leave of the whole (all of it
	// when the provider did not say) has an unknown lifetime.
	CacheCreation5mInputTokens int64          `json:"cache_creation_5m_input_tokens,omitzero"`
	CacheCreation1hInputTokens int64          `json:"cache_creation_1h_input_tokens,omitzero"`
	Unknown                    jsontext.Value `json:",embed"`
}

// Block is one content block: text, image, tool_use or tool_result.
type Block struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
	// Image: SHA256 names a blob in the image store. Legacy documents carry
	// the bytes inline in Data (base64) instead; they stay readable.
	SHA256    string `json:"sha256,omitempty"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	// file (files.go): SHA256 names the blob, Name is the file's name as
	// attached (Name is shared with tool_use), Size its bytes.
	Size int64 `json:"size,omitzero"`
	// tool_use. Input is omitted only when absent: `{}` is a call without
	// arguments, and the API requires it.
	ID    string         `json:"id,omitempty"`
	Name  string         `json:"name,omitempty"`
	Input jsontext.Value `json:"input,omitzero"`
	// tool_result: Content is a string or a list of blocks, as the API
	// allows, written back as it was read (even "" or []).
	ToolUseID  string         `json:"tool_use_id,omitempty"`
	IsError    bool           `json:"is_error,omitzero"`
	Content    jsontext.Value `json:"content,omitzero"`
	DurationMS int64          `json:"duration_ms,omitzero"`
	// Interrupted marks a tool_result recorded for a call that myco
	// stopped, or that was running when myco itself stopped (a crash):
	// Content then holds the output so far.
	Interrupted bool `json:"interrupted,omitzero"`
	// Session, on a task call's tool_result, is the sub-agent's session
	// that answered it.
	Session string `json:"session,omitempty"`
	// thinking: the model's reasoning before its answer, and Anthropic's
	// signature of it, sent back unchanged in later calls (a thinking
	// block without one is shown, never sent). DurationMS is how long it
	// thought. redacted_thinking keeps its encrypted reasoning in Data.
	Thinking  string         `json:"thinking,omitempty"`
	Signature string         `json:"signature,omitempty"`
	Unknown   jsontext.Value `json:",embed"`
}

// Block types.
const (
	BlockText       = "text"
	BlockImage      = "image"
	BlockToolUse    = "tool_use"
	BlockToolResult = "tool_result"
	// BlockThinking and BlockRedactedThinking come first in an answer.
	BlockThinking         = "thinking"
	BlockRedactedThinking = "redacted_thinking"
)

// MessageCount is the number of messages over all threads.
func (d *Document) MessageCount() int {
	n := 0
	for _, t := range d.Threads {
		n += len(t.Messages)
	}
	return n
}

// Usage adds up the token usage of every response in the session, as
// UsageByModel counts it.
func (d *Document) Usage() Usage {
	var u Usage
	for _, mu := range d.UsageByModel() {
		u.Add(mu.Usage)
	}
	return u
}

// ModelUsage is the usage of a session's answers from one model: what a
// cost is figured from, since each model has its own prices.
type ModelUsage struct {
	// Model is the answers' model as they recorded it (Message.Model):
	// "provider/model-id", a provider's bare model ID in documents older
	// than that, or "" when the answer named none.
	Model string `json:"model"`
	Usage Usage  `json:"usage"`
}

// UsageByModel adds up the token usage of every response in the session,
// by the model that gave it, sorted by model. A message carried into a
// successor thread by compaction (the first Carried messages of a thread
// made by compaction) appears in both threads and is counted once, in the
// thread it was written in. A fork counts only what it answered itself:
// the answers it inherited were its parent's spend, and counted there.
func (d *Document) UsageByModel() []ModelUsage {
	var c usageCounter
	for i := range d.Threads {
		for _, m := range d.Written(i) {
			c.add(m.Model, m.Usage)
		}
	}
	return c.byModel()
}

// Written is the messages of thread i that this session wrote: neither
// carried into the thread by compaction (Thread.Own) nor, in a fork,
// inherited from its parent (inheritedIn). What the session spent and
// what is new in it are read from these.
func (d *Document) Written(i int) []Message {
	t := &d.Threads[i]
	forkAt := -1
	if p := d.Parent; p != nil && i == p.Thread {
		forkAt = slices.IndexFunc(t.Messages, func(m Message) bool { return m.ID == p.Message })
	}
	from := max(len(t.Messages)-len(t.Own()), inheritedIn(d.Parent, i, len(t.Messages), forkAt))
	return t.Messages[min(from, len(t.Messages)):]
}

// inheritedIn is how many of the n messages of thread i a fork took from
// its parent (0 for a session that is no fork): every message of the
// threads before the fork point's, and that thread's up to the fork
// point, at index forkAt (-1: the thread kept none of its parent's, as
// Parent.Message says when it is empty).
func inheritedIn(p *Parent, i, n, forkAt int) int {
	switch {
	case p == nil || i > p.Thread:
		return 0
	case i < p.Thread:
		return n
	}
	return forkAt + 1
}

// SumByModel adds up the usage of msgs by the model that gave it, sorted
// by model, as UsageByModel does for a whole session (a turn's, say).
func SumByModel(msgs []Message) []ModelUsage {
	var c usageCounter
	for _, m := range msgs {
		c.add(m.Model, m.Usage)
	}
	return c.byModel()
}

// usageCounter sums usage by model: the one rule behind Document.Usage,
// UsageByModel and the listing's Summary.Usage. A session has a model or
// three, so a list searched in order beats a map (a live session's summary
// is made again after every message).
type usageCounter struct{ sums []ModelUsage }

// thread counts the n messages of one thread but those carried into it
// and the first inherited (a fork's, inheritedIn); at says the model and
// usage of message i.
func (c *usageCounter) thread(compactedFrom *int, carried, inherited, n int, at func(i int) (string, *Usage)) {
	from := min(inherited, n)
	if compactedFrom != nil {
		from = max(from, min(carried, n))
	}
	for i := from; i < n; i++ {
		c.add(at(i))
	}
}

func (c *usageCounter) add(model string, u *Usage) {
	if u == nil {
		return
	}
	for i := range c.sums {
		if c.sums[i].Model == model {
			c.sums[i].Usage.Add(*u)
			return
		}
	}
	var sum Usage
	sum.Add(*u) // the counts alone, not u's unknown members
	c.sums = append(c.sums, ModelUsage{Model: model, Usage: sum})
}

// byModel is the sums sorted by model; nil when there are none.
func (c *usageCounter) byModel() []ModelUsage {
	slices.SortFunc(c.sums, func(a, b ModelUsage) int { return strings.Compare(a.Model, b.Model) })
	return c.sums
}

// ModelOr is the session's model, else def (the settings' default_model):
// the one fallback for a session that names no model.
func (d *Document) ModelOr(def string) string {
	if d.Model != "" {
		return d.Model
	}
	return def
}

// Add adds v's counts to u: the one sum of usage (a turn's, a session's).
func (u *Usage) Add(v Usage) {
	u.InputTokens += v.InputTokens
	u.OutputTokens += v.OutputTokens
	u.CacheReadInputTokens += v.CacheReadInputTokens
	u.CacheCreationInputTokens += v.CacheCreationInputTokens
	u.CacheCreation5mInputTokens += v.CacheCreation5mInputTokens
	u.CacheCreation1hInputTokens += v.CacheCreation1hInputTokens
}

// Context is the context a model call used, as the provider counted it:
// the whole prompt (cached or not) plus the answer. It is what automatic
// compaction compares with its threshold.
func (u Usage) Context() int {
	return int(u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens + u.OutputTokens)
}

// ImageRefs calls fn with the SHA-256 of every image or file block that
// refers to the image store, in every thread (files live there too, and
// `myco images gc` must keep them).
func (d *Document) ImageRefs(fn func(sha string)) {
	for _, t := range d.Threads {
		for _, m := range t.Messages {
			for _, b := range m.Content {
				if (b.Type == BlockImage || b.Type == BlockFile) && b.SHA256 != "" {
					fn(b.SHA256)
				}
			}
		}
	}
}

// Summary is what a listing shows of a document. A damaged document has
// only its ID (from the file name) and Damaged, the reason it cannot be read.
type Summary struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Name      string    `json:"name,omitempty"`
	Model     string    `json:"model"`
	Cwd       string    `json:"cwd,omitempty"` // the new-session form offers recent ones
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Archived  bool      `json:"archived"`
	// Pinned and Tags are the document's (Document.Pinned, Tags): the
	// listing sorts pinned sessions first and filters by tag without
	// reading any document.
	Pinned   bool     `json:"pinned,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Messages int      `json:"messages"`
	Threads  int      `json:"threads"`
	// Failed: the latest answer failed and its error is saved
	// (Message.Error); a listing shows the session as failed.
	Failed bool `json:"failed,omitempty"`
	// Parent and ParentTitle name the session this one was forked from,
	// or whose sub-agent it is (Subagent).
	Parent      string `json:"parent,omitempty"`
	ParentTitle string `json:"parent_title,omitempty"`
	Subagent    bool   `json:"subagent,omitempty"`
	// GoalBlocked: the session's standing goal is blocked, waiting for
	// the person.
	GoalBlocked bool `json:"goal_blocked,omitempty"`
	// Usage is the session's token usage by model (UsageByModel), so a
	// listing can show what each session cost without reading it again.
	Usage   []ModelUsage `json:"usage,omitempty"`
	Damaged string       `json:"damaged,omitempty"`
}

// equal reports whether s and o say the same: as == would, were Usage
// not a slice (time fields compare as == does).
func (s Summary) equal(o Summary) bool { return reflect.DeepEqual(s, o) }

// Summarize returns the listing view of d.
func (d *Document) Summarize() Summary {
	sum := Summary{
		ID: d.ID, Title: d.Title, Name: d.Name, Model: d.Model, Cwd: d.Cwd,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt, Archived: d.Archived,
		Pinned: d.Pinned, Tags: d.Tags,
		Messages: d.MessageCount(), Threads: len(d.Threads), Failed: d.LastAnswerFailed(),
		Usage:       d.UsageByModel(),
		GoalBlocked: d.Goal != nil && d.Goal.State == GoalBlocked,
	}
	if d.Parent != nil {
		sum.Parent, sum.ParentTitle = d.Parent.Session, d.Parent.Title
		sum.Subagent = d.IsSubagent()
	}
	return sum
}

// LastAnswerAt is when the latest answer (a model call's result) was
// saved; zero when there is none.
func (d *Document) LastAnswerAt() time.Time {
	for i := len(d.Threads) - 1; i >= 0; i-- {
		msgs := d.Threads[i].Messages
		for j := len(msgs) - 1; j >= 0; j-- {
			if msgs[j].Role == "assistant" {
				return msgs[j].At
			}
		}
	}
	return time.Time{}
}

// LastAnswerFailed reports whether the latest answer (an assistant message
// no retry replaced) failed with a saved error. It reads from the end: the
// latest answer is near it.
func (d *Document) LastAnswerFailed() bool {
	for i := len(d.Threads) - 1; i >= 0; i-- {
		msgs := d.Threads[i].Messages
		for j := len(msgs) - 1; j >= 0; j-- {
			if answer(&msgs[j]) {
				return msgs[j].Error != nil
			}
		}
	}
	return false
}

// answer reports whether m is an answer that counts: an assistant message
// no retry replaced.
func answer(m *Message) bool { return m.Role == "assistant" && m.ReplacedBy == "" }
