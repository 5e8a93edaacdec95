package web

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"myco/internal/textcut"
	"myco/session"
)

// SessionViewOptions is what the session page needs besides the document.
type SessionViewOptions struct {
	Archived    bool              // the document was loaded from the archive
	LockedBy    *LockInfo         // another process holds the session's writer lock
	Sidecars    map[string]string // historical transcripts by kind (readline, console)
	RecentLimit int               // messages of the latest thread shown; DefaultRecentLimit when 0
	Profile     string
	// Context is the model's automatic compaction threshold and window,
	// shown as a gauge; the used part comes from the last response.
	Context ContextInfo
	// NotificationsOff is the profile's setting notifications: false (the
	// page offers no bell and never notifies).
	NotificationsOff bool
	// NotifyAfter: settings notify_after, in seconds.
	NotifyAfter int
	// Steering is the steering chip's text: the session's reasoning level
	// and persona when set (live.SteeringView.Chip), "" for none.
	Steering string
	// Lineage is what the listing tells of the session's relatives.
	Lineage Lineage
	// Price figures the costs shown; nil shows "price unknown".
	Price Pricer
	// Status is the live session's state (server/live) as the page is
	// rendered; zero is idle.
	Status StatusView
	// EventsSeq is the id of the last event on the session's stream
	// before the document was read (server.Hub.Seq).
	EventsSeq int64
	// CustomCommands are the custom commands of the session's folder,
	// read as the page is rendered (custom.go).
	CustomCommands []CustomCommandView
	// MCP is the profile's MCP servers as this session uses them (mcp.go).
	MCP MCPPanelView
}

// Lineage is what the listing knows of a session's relatives, which its
// own document does not: the server fills it in.
type Lineage struct {
	// ParentTitle is the parent's title now ("" keeps the one the fork
	// recorded); ParentGone says the parent is in neither listing (it was
	// deleted), so the page names it without a link.
	ParentTitle string
	ParentGone  bool
	// ColdFork, for a fork that has not called its model yet, says that
	// its first request will not find its parent's prompt cache.
	ColdFork string
	// Forks are the sessions forked from this one, active and archived;
	// Subagents the sessions its agent's task calls started.
	Forks, Subagents []session.Summary
}

// ContextInfo is what the context gauge shows.
type ContextInfo struct {
	Used      int
	Threshold int // 0: automatic compaction is off for this model
	Window    int
	// OffReason says why automatic compaction is off for a live session
	// although the model has a threshold (it failed, say); "" when on.
	OffReason string
}

// Auto says whether the session compacts by itself at the threshold.
func (c ContextInfo) Auto() bool { return c.Threshold > 0 && c.OffReason == "" }

// AutoAttr is Auto as the gauge's data-auto attribute.
func (c ContextInfo) AutoAttr() string {
	if c.Auto() {
		return "on"
	}
	return "off"
}

// Label is the gauge's text.
func (c ContextInfo) Label() string {
	if c.Threshold == 0 {
		return groupDigits(int64(c.Used)) + " tokens used"
	}
	return groupDigits(int64(c.Used)) + " of " + groupDigits(int64(c.Threshold)) + " tokens before it compacts"
}

// OffText says why there is no automatic compaction.
func (c ContextInfo) OffText() string {
	if c.Auto() {
		return ""
	}
	reason := c.OffReason
	if reason == "" {
		reason = "auto_compact_at is 0 for this model"
	}
	return "Automatic compaction is off: " + reason + ". You can still compact by hand."
}

// LockInfo says which process holds a session and where it serves it.
// URL is the session's page in that process (the server builds it from the
// lock hint); the page links to it as it is.
type LockInfo struct {
	PID int
	URL string
}

// SessionView is the session page.
type SessionView struct {
	ID           string
	Title        string
	Model        string
	Cwd          string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	Archived     bool
	LockedBy     *LockInfo
	Parent       *ParentView
	Forks        []ForkView
	Subagents    []ForkView // the sub-agents its task calls started
	Links        []LinkView
	Scratchpad   string
	Sidecars     []SidecarView
	MessageCount int
	Profile      string
	// NotificationsOff: see SessionViewOptions.
	NotificationsOff bool
	// NotifyAfter: settings notify_after, in seconds.
	NotifyAfter int
	// Steering: see SessionViewOptions.
	Steering string
	// Goal is the standing goal, shown in the bar above the composer.
	Goal *session.Goal
	// Mode is "plan" while plan mode is on; Todo the agent's checklist.
	Mode string
	Todo []session.TodoItem
	// Instructions, Skills: see PanelView.
	Instructions []InstructionView
	Skills       []SkillView
	// CustomCommands: see SessionViewOptions.
	CustomCommands []CustomCommandView
	// Usage is the token total of every response in the session.
	Usage UsageView
	// Context feeds the gauge of the context against the threshold.
	Context ContextInfo
	// Earlier are the threads compaction left behind, oldest first, shown
	// collapsed; Latest is the thread that takes new messages.
	Earlier []ThreadView
	Latest  ThreadView
	// Queued is what waits in the queue for the running turn, listed
	// above the composer.
	Queued []session.Queued
	// Status is the turn's state, shown in the chip above the composer.
	Status StatusView
	// EventsSeq: see SessionViewOptions.
	EventsSeq int64
	// MCP: see SessionViewOptions.
	MCP MCPPanelView
}

// PanelView is what the side panel shows that can change while the page is
// open: the page renders it, and the panel event carries the same
// rendering after every change.
type PanelView struct {
	ID           string
	Model        string
	Cwd          string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	MessageCount int
	Threads      int
	Parent       *ParentView
	Usage        UsageView
	Links        []LinkView
	Scratchpad   string
	Todo         []session.TodoItem
	// Instructions are the instruction files the session read for its
	// system prompt (instructions.go).
	Instructions []InstructionView
	// Skills are the skills the session offers its agent, and those it
	// could not (custom.go).
	Skills []SkillView
	// Editable: links and the scratchpad can be changed in the panel.
	Editable bool
	// PatchURL is where the panel's edits are sent.
	PatchURL string
}

// Panel is the side panel of the page.
func (v SessionView) Panel() PanelView {
	return PanelView{
		ID: v.ID, Model: v.Model, Cwd: v.Cwd, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt,
		MessageCount: v.MessageCount, Threads: len(v.Earlier) + 1, Parent: v.Parent,
		Usage: v.Usage, Links: v.Links, Scratchpad: v.Scratchpad, Todo: v.Todo, Instructions: v.Instructions, Skills: v.Skills,
		Editable: !v.ReadOnly(), PatchURL: sessionAPIURL(v.ID),
	}
}

// NewPanelView is the side panel of doc, without the cost of the page's
// message rendering. readOnly is set when this process may not change the
// session; price figures its cost.
func NewPanelView(doc *session.Document, readOnly bool, price Pricer) PanelView {
	p := PanelView{
		ID: doc.ID, Model: doc.Model, Cwd: doc.Cwd, CreatedAt: doc.CreatedAt, UpdatedAt: doc.UpdatedAt,
		MessageCount: doc.MessageCount(), Threads: max(len(doc.Threads), 1),
		Usage: sessionUsage(doc, price), Links: linkViews(doc.Links), Scratchpad: doc.Scratchpad, Todo: doc.Todo,
		Instructions: instructionViews(doc), Skills: skillViews(doc),
		Editable: !readOnly && !doc.Archived, PatchURL: sessionAPIURL(doc.ID),
	}
	p.Parent = newParentView(doc, Lineage{})
	return p
}

// RenderPanel is the panel event's HTML for doc.
func RenderPanel(doc *session.Document, readOnly bool, price Pricer) (string, error) {
	var b strings.Builder
	if err := Panel(NewPanelView(doc, readOnly, price)).Render(context.Background(), &b); err != nil {
		return "", fmt.Errorf("render panel: %w", err)
	}
	return b.String(), nil
}

// sessionAPIURL is the session's resource, which PATCH changes.
func sessionAPIURL(id string) string { return "/api/sessions/" + url.PathEscape(id) }

// ParentView is the session a fork was made from, and where.
type ParentView struct {
	SessionID string
	Thread    int
	Message   string // the last message the fork kept; "" when none
	Title     string // the parent's title as people read it
	// Point says where the fork was made ("turn 2, “Why …”"), from the
	// fork's own copy of the history up to there.
	Point string
	// Gone: the parent was deleted; it is named, not linked.
	Gone bool
	// Subagent: this session is the parent's sub-agent (a task call of
	// its agent started it), not a fork the person made.
	Subagent bool
	// ColdNote: Lineage.ColdFork.
	ColdNote string
	// recorded is the parent's title when it was forked, which an untitled
	// fork is named by ("Fork of …"), as the listings name it.
	recorded string
}

// URL is the parent's page at the fork point: the message is highlighted
// as a search hit's is (static/highlight.js).
func (p ParentView) URL() string {
	if p.Message == "" {
		return SessionURL(p.SessionID)
	}
	return SessionURL(p.SessionID) + "#m-" + url.PathEscape(p.Message)
}

// ForkView is a session forked from the one shown.
type ForkView struct {
	ID        string
	Title     string
	UpdatedAt time.Time
	Archived  bool
}

// URL is the fork's page.
func (f ForkView) URL() string { return SessionURL(f.ID) }

// newParentView is the parent of doc, nil when doc is not a fork.
func newParentView(doc *session.Document, l Lineage) *ParentView {
	if doc.Parent == nil {
		return nil
	}
	p := doc.Parent
	title := p.Title
	if l.ParentTitle != "" {
		title = l.ParentTitle
	}
	return &ParentView{
		SessionID: p.Session, Thread: p.Thread, Message: p.Message,
		Title: titleOr(title), Point: forkPoint(doc), Gone: l.ParentGone,
		Subagent: doc.IsSubagent(), recorded: p.Title, ColdNote: l.ColdFork,
	}
}

// forkPointExcerpt bounds the person's words quoted at a fork point.
const forkPointExcerpt = 60

// forkPoint says where doc was forked: the turn its copy of the parent's
// thread ends on (a turn starts at a message the person typed), with the
// first words of that message.
func forkPoint(doc *session.Document) string {
	p := doc.Parent
	if p.Message == "" || p.Thread < 0 || p.Thread >= len(doc.Threads) {
		return "the start"
	}
	turn, said := 0, ""
	for _, m := range doc.Threads[p.Thread].Messages {
		if m.Role == "user" && m.Human {
			turn++
			said = firstText(m)
		}
		if m.ID == p.Message {
			break
		}
	}
	if turn == 0 {
		return "the start"
	}
	point := "turn " + strconv.Itoa(turn)
	if p.Thread > 0 {
		point += " of thread " + strconv.Itoa(p.Thread+1)
	}
	if said = excerpt(said, forkPointExcerpt); said != "" {
		point += ", “" + said + "”"
	}
	return point
}

// firstText is the first text block of m.
func firstText(m session.Message) string {
	for _, b := range m.Content {
		if b.Type == session.BlockText && strings.TrimSpace(b.Text) != "" {
			return b.Text
		}
	}
	return ""
}

// excerpt is s on one line, cut to about n characters at a word.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	cut := textcut.Runes(s, n)
	if len(cut) == len(s) {
		return s
	}
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return cut + "…"
}

func forkViews(forks []session.Summary) []ForkView {
	out := make([]ForkView, 0, len(forks))
	for _, f := range forks {
		out = append(out, ForkView{
			ID: f.ID, Title: SessionTitle(f.Title, f.Parent, f.ParentTitle),
			UpdatedAt: f.UpdatedAt, Archived: f.Archived,
		})
	}
	return out
}

// UntitledText is what the heading shows while the session has no title
// of its own: "Fork of …" for a fork, else Untitled. The tab keeps it
// when a title event says the title is still empty.
func (v SessionView) UntitledText() string {
	if v.Parent != nil {
		return forkTitle(v.Parent.recorded)
	}
	return untitled
}

// LinkView is a link attached to the session.
type LinkView struct {
	URL   string
	Title string // the URL when the link has no title
	// RawTitle is the title as stored (maybe empty), kept on the page so
	// an edit of the list sends the other links back unchanged.
	RawTitle string
	// Inert is set for a URL that would run script or carry its own content
	// (javascript:, data:): the panel shows it as text, not as a link.
	Inert bool
}

// SidecarView is a historical transcript kept beside the document.
type SidecarView struct {
	Kind  string
	Label string
	Text  string
}

// ThreadView is one thread. An earlier thread is shown by its summary and
// loads its messages when opened; the latest shows its recent messages.
type ThreadView struct {
	Index     int
	CreatedAt time.Time
	Count     int // messages in the thread
	// SummaryHTML is the compaction summary that stands for this thread's
	// messages (written into its successor), rendered and sanitized. On the
	// latest thread it is set only when no earlier thread here shows it.
	SummaryHTML string
	// CompactedAt is when the successor was made: the boundary after this
	// thread. Zero for the latest thread.
	CompactedAt time.Time
	// LoadURL fetches an earlier thread's last messages when it is opened.
	LoadURL string
	// Recent is the latest thread's last messages.
	Recent MessagesFragmentView
	// Carried is how many of the latest thread's first messages compaction
	// carried over from the thread before. They are not shown again here:
	// the earlier thread holds them, where the tab showed them before the
	// compaction, and the latest thread marks the place with a line that
	// opens it.
	Carried int
	// CarriedInto is set on the earlier thread whose last messages the
	// latest thread carries.
	CarriedInto bool
	// Waiting, on the latest thread, are the notes waiting for the next
	// message: cards after its messages, attachments above the composer.
	Waiting []session.Note
}

// ReadOnly reports whether the page only shows the session: it is archived,
// or another process holds it.
func (v SessionView) ReadOnly() bool { return v.Archived || v.LockedBy != nil }

// Streams reports whether the page listens to the session's events: an
// archived session has no live state to follow.
func (v SessionView) Streams() bool { return !v.Archived }

// EventsURL is the session's event stream.
func (v SessionView) EventsURL() string { return apiURL(v.ID, "events") }

// CompactURL is where the Compact button posts.
func (v SessionView) CompactURL() string { return apiURL(v.ID, "compact") }

// RestoreURL is where the Restore button posts.
func (v SessionView) RestoreURL() string { return apiURL(v.ID, "restore") }

// NewSessionView returns the session page of doc.
func NewSessionView(doc *session.Document, opts SessionViewOptions) SessionView {
	v := SessionView{
		ID:               doc.ID,
		Title:            titleOr(doc.Title),
		Parent:           newParentView(doc, opts.Lineage),
		Forks:            forkViews(opts.Lineage.Forks),
		Subagents:        forkViews(opts.Lineage.Subagents),
		Model:            doc.Model,
		Cwd:              doc.Cwd,
		CreatedAt:        doc.CreatedAt,
		UpdatedAt:        doc.UpdatedAt,
		Archived:         opts.Archived || doc.Archived,
		LockedBy:         opts.LockedBy,
		Links:            linkViews(doc.Links),
		Scratchpad:       doc.Scratchpad,
		Sidecars:         sidecarViews(opts.Sidecars),
		MessageCount:     doc.MessageCount(),
		Profile:          opts.Profile,
		NotificationsOff: opts.NotificationsOff, NotifyAfter: opts.NotifyAfter,
		Steering:       opts.Steering,
		Usage:          sessionUsage(doc, opts.Price),
		Context:        contextInfo(doc, opts.Context),
		Goal:           doc.Goal,
		Mode:           doc.Mode,
		Todo:           doc.Todo,
		Instructions:   instructionViews(doc),
		MCP:            opts.MCP,
		Skills:         skillViews(doc),
		CustomCommands: opts.CustomCommands,
		Status:         opts.Status,
		EventsSeq:      opts.EventsSeq,
	}
	if doc.Title == "" {
		// A fork is named by the title recorded at the fork, as the
		// listings name it: a rename of the parent since does not rename
		// the fork.
		v.Title = v.UntitledText()
	}
	v.Earlier, v.Latest = threadViews(doc, opts.RecentLimit, opts.Price)
	v.Latest.Waiting = doc.WaitingShown()
	v.Queued = doc.Queued
	v.Latest.Recent.AllowFork()
	return v
}

func linkViews(links []session.Link) []LinkView {
	out := make([]LinkView, 0, len(links))
	for _, l := range links {
		title := l.Title
		if title == "" {
			title = l.URL
		}
		inert := templ.URL(l.URL) == templ.FailedSanitizationURL
		out = append(out, LinkView{URL: l.URL, Title: title, RawTitle: l.Title, Inert: inert})
	}
	return out
}

// sidecarLabels are the known sidecar kinds, in the order they are shown.
var sidecarLabels = []struct{ kind, label string }{
	{session.SidecarReadline, "Readline history"},
	{session.SidecarConsole, "Console transcript"},
}

func sidecarViews(sidecars map[string]string) []SidecarView {
	var out []SidecarView
	for _, s := range sidecarLabels {
		if text, ok := sidecars[s.kind]; ok {
			out = append(out, SidecarView{Kind: s.kind, Label: s.label, Text: text})
		}
	}
	// Kinds this version does not know are still shown, after the rest.
	var other []string
	for kind := range sidecars {
		if kind != session.SidecarReadline && kind != session.SidecarConsole {
			other = append(other, kind)
		}
	}
	slices.Sort(other)
	for _, kind := range other {
		out = append(out, SidecarView{Kind: kind, Label: kind, Text: sidecars[kind]})
	}
	return out
}

// threadViews splits doc's threads into the earlier ones and the latest.
// A successor's summary is shown on the thread it summarises.
func threadViews(doc *session.Document, limit int, price Pricer) ([]ThreadView, ThreadView) {
	if len(doc.Threads) == 0 {
		return nil, ThreadView{Recent: MessagesFragmentView{SessionID: doc.ID}}
	}
	summaries := summaryOwners(doc.Threads)
	last := len(doc.Threads) - 1
	earlier := make([]ThreadView, 0, last)
	t := doc.Threads[last]
	carried, from := carriedFrom(doc.Threads, last), -1
	if carried > 0 {
		from = *t.CompactedFrom
	}
	for i, t := range doc.Threads[:last] {
		earlier = append(earlier, ThreadView{
			Index:       i,
			CreatedAt:   t.CreatedAt,
			Count:       len(t.Messages),
			SummaryHTML: renderSummary(doc.Threads, summaries[i]),
			CompactedAt: doc.Threads[i+1].CreatedAt,
			LoadURL:     messagesURL(doc.ID, i, len(t.Messages)),
			CarriedInto: i == from,
		})
	}
	lines := threadLines(doc, last, price)
	latest := ThreadView{
		Index:     last,
		CreatedAt: t.CreatedAt,
		Count:     len(t.Messages),
		Recent:    newFragment(doc.ID, last, t.Messages, len(t.Messages), limit, lines),
		Carried:   carried,
	}
	if carried > 0 && latest.Recent.Start <= carried {
		// The run starts at the first message of this thread's own: the
		// ones before it are shown in the earlier thread, so there is
		// nothing earlier to load here.
		latest.Recent = MessagesFragmentView{SessionID: doc.ID, Thread: last, Messages: messageViews(doc.ID, t.Messages[carried:], lines)}
	}
	if t.Summary != "" && !slices.Contains(summaries, last) {
		latest.SummaryHTML = RenderMarkdown(t.Summary)
	}
	return earlier, latest
}

// carriedFrom is how many of the latest thread's first messages are
// carried from the thread it was compacted from, and shown there: only
// when they are that thread's last messages, the same ones by ID (else
// they are shown where they are stored).
func carriedFrom(threads []session.Thread, last int) int {
	t := threads[last]
	c := min(t.Carried, len(t.Messages))
	if c == 0 || t.CompactedFrom == nil || *t.CompactedFrom < 0 || *t.CompactedFrom >= last {
		return 0
	}
	pred := threads[*t.CompactedFrom].Messages
	if len(pred) < c {
		return 0
	}
	for i, m := range t.Messages[:c] {
		if m.ID == "" || pred[len(pred)-c+i].ID != m.ID {
			return 0
		}
	}
	return c
}

// summaryOwners maps each thread to the successor whose summary stands for
// it (-1 for none): the one that names it in compacted_from, else the next
// thread when that has a summary but names no predecessor.
func summaryOwners(threads []session.Thread) []int {
	owners := make([]int, len(threads))
	for i := range owners {
		owners[i] = -1
	}
	for j, t := range threads {
		if t.Summary == "" {
			continue
		}
		from := j - 1
		if t.CompactedFrom != nil {
			from = *t.CompactedFrom
		}
		if from >= 0 && from < j && owners[from] == -1 {
			owners[from] = j
		}
	}
	return owners
}

func renderSummary(threads []session.Thread, owner int) string {
	if owner < 0 {
		return ""
	}
	return RenderMarkdown(threads[owner].Summary)
}

// contextInfo fills in the context the latest thread used, as the last
// response of its own messages reported it (prompt, cached or not, plus
// answer). Messages carried into it by compaction report the old thread's
// context, so right after a compaction the figure is an estimate of the
// summary and the carried messages: not 0, which would say the agent
// starts from nothing.
func contextInfo(doc *session.Document, limits ContextInfo) ContextInfo {
	limits.Used = 0
	if len(doc.Threads) > 0 {
		limits.Used, _ = doc.Threads[len(doc.Threads)-1].Context()
	}
	return limits
}

// Level is the gauge's colour: "warn" from 70% of the threshold, "full"
// from 90%, else "".
func (c ContextInfo) Level() string {
	switch {
	case c.Threshold <= 0:
		return ""
	case c.Used*10 >= c.Threshold*9:
		return "full"
	case c.Used*10 >= c.Threshold*7:
		return "warn"
	}
	return ""
}
