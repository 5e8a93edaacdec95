package live

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"myco/internal/textcut"
	"myco/server/event"
	"myco/server/llm"
	"myco/session"
)

// Sub-agents. The agent's task tool starts a child session that runs one
// turn to its end; the child's last answer is the call's outcome. A child
// is a session like any other (its own document, writer lock and shell),
// marked in its document as the parent's sub-agent (session.Parent, kind
// "subagent"), so it is listed under its parent rather than among the
// person's sessions. The rules:
//
//   - Several task calls of one round run at once (runTools); at most
//     subagents.max_running of one session's, nested at most
//     subagents.max_depth deep. A call over a limit is refused with why,
//     and the agent does the work itself.
//   - fork: true starts the child with the parent's history as its own
//     (session.Store.Fork up to the answer that called it): the same bytes
//     ahead of the prompt, so the child's first call reads the parent's
//     cached prefix. Otherwise the child starts from the prompt alone.
//   - A child starts in its parent's mode (a parent planning has children
//     that may only read), with the approvals its parent was given for the
//     session; an approval it waits for shows in the parent's card, and
//     notifies there like the parent's own.
//   - Stopping the parent's turn, archiving or deleting the parent, or
//     closing it stops its children; stopping a child (its own Stop)
//     gives the parent's call an outcome that says so.

const taskTool = "task"

// maxTaskAnswer bounds the child's answer the parent's call returns.
const maxTaskAnswer = 20_000

var taskToolDef = llm.Tool{
	Name: taskTool,
	Description: `Start a sub-agent: a separate session that works on prompt on its own, with the same tools, ` +
		`and returns its final answer to you as this call's result. Use it for work that can go on apart from yours ` +
		`(exploring a codebase, a search, a long check); call it several times in one round to run sub-agents at once. ` +
		`Without fork the sub-agent knows only prompt: say everything it needs. fork: true gives it this conversation ` +
		`so far as its own. Its answer is all you get back, so ask for what you need in it.`,
	InputSchema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"description": map[string]any{"type": "string", "description": "A few words naming the task (the sub-agent's title)."},
			"prompt":      map[string]any{"type": "string", "description": "The task, complete: what to do and what to answer with."},
			"fork":        map[string]any{"type": "boolean", "description": "Start from this conversation's history (default false: from the prompt alone)."},
			"model":       map[string]any{"type": "string", "description": "A model for the sub-agent, as provider/model (default: this session's)."},
		},
		"required": []string{"description", "prompt"},
	},
}

type taskInput struct {
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
	Fork        bool   `json:"fork"`
	Model       string `json:"model"`
}

// child is a sub-agent one of the session's task calls started. Its
// fields are guarded by the parent's mu.
type child struct {
	call, id, title string
	s               *Session // nil until it is open
	status, detail  string
}

func (c *child) event() event.Subagent {
	return event.Subagent{ToolUseID: c.call, Session: c.id, Title: c.title, Status: c.status, Detail: c.detail}
}

// statusWatch is called with each state a child enters (publish), set by
// its parent.
type statusWatch func(status, detail string)

// watchStatus has fn called with every state s enters from now on.
func (s *Session) watchStatus(fn statusWatch) {
	if fn == nil {
		s.watch.Store(nil)
		return
	}
	s.watch.Store(&fn)
}

// watcher is what watches s's states (nil: nothing).
type watcher = atomic.Pointer[statusWatch]

// runTask runs a task call: a child session for its prompt, to its end.
func (s *Session) runTask(ctx context.Context, use session.Block) toolOutcome {
	var in taskInput
	if err := json.Unmarshal(use.Input, &in); err != nil || strings.TrimSpace(in.Prompt) == "" || strings.TrimSpace(in.Description) == "" {
		return toolOutcome{output: `task needs {"description": "…", "prompt": "…"} (fork and model are optional).`, isError: true}
	}
	s.enter(StatusTool, taskTool)
	limits := s.m.settings().Subagents
	if depth := s.subagentDepth(); depth >= limits.MaxDepth {
		if limits.MaxDepth == 0 {
			return toolOutcome{output: "Sub-agents are off in this profile (subagents.max_depth is 0): do this work yourself.", isError: true}
		}
		return toolOutcome{output: fmt.Sprintf("Sub-agents nest at most %d deep (subagents.max_depth) and this session is one at depth %d: do this work yourself.", limits.MaxDepth, depth), isError: true}
	}
	model := ""
	if m := strings.TrimSpace(in.Model); m != "" {
		if _, _, err := s.m.opts.Models.Client(m); err != nil {
			return toolOutcome{output: fmt.Sprintf("No sub-agent started: model %q cannot be used: %v", m, err), isError: true}
		}
		model = m
	}
	c := &child{call: use.ID, title: session.CleanTitle(in.Description), status: StatusThinking}
	s.mu.Lock()
	if len(s.children) >= limits.MaxRunning {
		s.mu.Unlock()
		return toolOutcome{output: fmt.Sprintf("No sub-agent started: %d already run for this session, the most at once (subagents.max_running). Wait for one to answer, or do this yourself.", limits.MaxRunning), isError: true}
	}
	if s.children == nil {
		s.children = map[string]*child{}
	}
	s.children[use.ID] = c
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.children, use.ID)
		s.mu.Unlock()
	}()

	doc, err := s.createChild(use.ID, c.title, model, in.Fork)
	if err != nil {
		return toolOutcome{output: "No sub-agent started: " + err.Error(), isError: true}
	}
	cs, err := s.m.Open(doc.ID)
	if err != nil {
		return toolOutcome{output: fmt.Sprintf("The sub-agent's session %s could not open: %v", doc.ID, err), isError: true}
	}
	// Its work is done once it answered: its lock and shell go, and a
	// tab that opens it later opens it again.
	defer s.m.Release(doc.ID)
	// Its model calls count against this session's budget too, and every
	// one above it (budget.go).
	cs.ChargeAlsoTo(s.BudgetChain()...)
	s.mu.Lock()
	c.id, c.s = doc.ID, cs
	for name := range s.allowed {
		cs.allowed[name] = true
	}
	s.mu.Unlock()
	cs.watchStatus(func(status, detail string) { s.childState(c, status, detail) })
	s.publishChild(c)

	r, err := cs.Run(ctx, in.Prompt)
	cs.watchStatus(nil)
	switch {
	case err != nil:
		s.setChildState(c, event.SubagentFailed, err.Error())
		return toolOutcome{output: fmt.Sprintf("The sub-agent (session %s) did not start: %v", doc.ID, err), isError: true, record: childRecord(doc.ID)}
	case r.Stop == session.StopInterrupted:
		s.setChildState(c, event.SubagentStopped, "")
		out := fmt.Sprintf("The sub-agent (session %s) was stopped before it answered.", doc.ID)
		if r.Answer != "" {
			out += " What it had written:\n\n" + cutAnswer(r.Answer)
		}
		return toolOutcome{output: out, isError: true, record: func(b *session.Block) {
			b.Session, b.Interrupted = doc.ID, true
		}}
	case r.Err != nil:
		s.setChildState(c, event.SubagentFailed, r.Err.Error())
		return toolOutcome{output: fmt.Sprintf("The sub-agent (session %s) failed: %v", doc.ID, r.Err), isError: true, record: childRecord(doc.ID)}
	}
	s.setChildState(c, event.SubagentDone, "")
	answer := r.Answer
	if strings.TrimSpace(answer) == "" {
		answer = "(The sub-agent ended without an answer.)"
	}
	return toolOutcome{output: cutAnswer(answer), record: childRecord(doc.ID)}
}

// childRecord keeps the child's session with the call's outcome, for the
// card's link to it.
func childRecord(id string) func(*session.Block) {
	return func(b *session.Block) { b.Session = id }
}

// cutAnswer bounds a child's answer, saying so when it cuts.
func cutAnswer(s string) string {
	if len(s) <= maxTaskAnswer {
		return s
	}
	return textcut.Bytes(s, maxTaskAnswer) + fmt.Sprintf("\n\n[The sub-agent's answer was cut to %d of its %d characters.]", maxTaskAnswer, len(s))
}

// createChild makes the child's document: a fork of this session up to
// the answer that called the task, or a new session of the same folder
// and mode.
func (s *Session) createChild(call, title, model string, fork bool) (*session.Document, error) {
	store := s.m.opts.Store
	var (
		parentTitle, cwd, mode, parentModel, at string
		mcpOff                                  []string
	)
	s.w.View(func(d *session.Document) {
		parentTitle, cwd, mode, parentModel, mcpOff = d.Title, d.Cwd, d.Mode, d.Model, slices.Clone(d.MCPOff)
		msgs := d.Threads[len(d.Threads)-1].Messages
		for i := len(msgs) - 1; i >= 0 && at == ""; i-- {
			for _, b := range msgs[i].Content {
				if b.Type == session.BlockToolUse && b.ID == call {
					at = msgs[i].ID
				}
			}
		}
	})
	if fork {
		if at == "" {
			return nil, fmt.Errorf("the call %s is not in the latest thread", call)
		}
		doc, err := store.Fork(s.id, session.ForkOptions{At: at, Call: call, Title: title})
		if err != nil {
			return nil, err
		}
		if model != "" && model != doc.Model {
			return store.Update(doc.ID, func(d *session.Document) error {
				d.Model = model
				return nil
			})
		}
		return doc, nil
	}
	if model == "" {
		model = parentModel
	}
	if cwd == "" {
		cwd = s.m.opts.DefaultCwd
	}
	return store.Create(session.NewSession{
		Title: title, Model: model, Cwd: cwd, Mode: mode, MCPOff: mcpOff,
		Parent: &session.Parent{Session: s.id, Title: parentTitle, Kind: session.ParentSubagent, Call: call},
	})
}

// subagentDepth is how deep s is among sub-agents: 0 for a person's
// session, 1 for its sub-agent, 2 for a sub-agent's.
func (s *Session) subagentDepth() int {
	var parent string
	s.w.View(func(d *session.Document) {
		if d.IsSubagent() {
			parent = d.Parent.Session
		}
	})
	depth := 0
	// Bounded: a lineage is a chain of sessions each made before the
	// next; a hand-edited loop must not hang a turn.
	for parent != "" && depth < 16 {
		depth++
		sum, err := s.m.opts.Store.Header(parent)
		if err != nil || !sum.Subagent {
			break
		}
		parent = sum.Parent
	}
	return depth
}

// childState is a child's new live state: its card follows it.
func (s *Session) childState(c *child, status, detail string) {
	if status == StatusIdle || status == StatusClosed {
		return // between its turn's end and the call's outcome
	}
	s.setChildState(c, status, detail)
}

func (s *Session) setChildState(c *child, status, detail string) {
	s.mu.Lock()
	same := c.status == status && c.detail == detail
	c.status, c.detail = status, detail
	s.mu.Unlock()
	if !same {
		s.publishChild(c)
	}
}

// publishChild tells the parent's tabs of c as it is now.
func (s *Session) publishChild(c *child) {
	s.mu.Lock()
	ev := c.event()
	s.mu.Unlock()
	if r := s.m.opts.RenderSubagent; r != nil {
		html, err := r(s.id, ev)
		if err != nil {
			s.m.log.Warn("render sub-agent failed", "session", s.id, "err", err)
		}
		ev.HTML = html
	}
	s.publish(ev)
}

// subagentEventsLocked are the running children as their cards show
// them, for a snapshot. s.mu is held.
func (s *Session) subagentEventsLocked() []event.Subagent {
	out := make([]event.Subagent, 0, len(s.children))
	for _, c := range s.children {
		if c.id == "" {
			continue
		}
		ev := c.event()
		if r := s.m.opts.RenderSubagent; r != nil {
			ev.HTML, _ = r(s.id, ev) // a failure shows as the card without its strip
		}
		out = append(out, ev)
	}
	slices.SortFunc(out, func(a, b event.Subagent) int { return strings.Compare(a.Session, b.Session) })
	return out
}

// stopChildren stops every child that runs: the parent is archived or
// deleted. Their calls' outcomes say they were stopped.
func (s *Session) stopChildren() {
	s.mu.Lock()
	var running []*Session
	for _, c := range s.children {
		if c.s != nil {
			running = append(running, c.s)
		}
	}
	s.mu.Unlock()
	for _, cs := range running {
		cs.Stop()
	}
}

// Subagent is a running sub-agent, for /subagents.
type Subagent struct {
	event.Subagent
	Parent string `json:"parent"`
}

// Subagents lists the sub-agents running in this process, by parent.
func (m *Manager) Subagents() []Subagent {
	var out []Subagent
	for _, s := range m.live() {
		s.mu.Lock()
		for _, ev := range s.subagentEventsLocked() {
			out = append(out, Subagent{Subagent: ev, Parent: s.id})
		}
		s.mu.Unlock()
	}
	return out
}

// parentID is the session s works for, when it is a sub-agent's.
func (s *Session) parentID() string {
	var id string
	s.w.View(func(d *session.Document) {
		if d.IsSubagent() {
			id = d.Parent.Session
		}
	})
	return id
}
