package live

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"myco/internal/textcut"
	"myco/profiles"
	"myco/server/event"
	"myco/server/llm"
	"myco/server/tools"
	"myco/session"
)

// maxJournaledOutput bounds the output of one command written to the
// journal as it runs (kept if myco dies before the command ends).
const maxJournaledOutput = 64 << 10

// maxEventOutput bounds the tool output sent to tabs in tool.end; the
// stored result has the tool's own cap.
const maxEventOutput = 8 << 10

// toolDefs are the tools the model is offered, in one fixed order. The set
// is the same for the whole session (goal_status too, which refuses when
// no goal runs), so the tools block at the head of the cached prefix never
// changes; only the todo setting adds todo_write, a change the person makes.
func (s *Session) toolDefs() []llm.Tool {
	defs := []llm.Tool{
		{Name: "bash", Description: tools.BashDescription, InputSchema: tools.BashSchema},
		{Name: "session_meta", Description: tools.MetaDescription, InputSchema: tools.MetaSchema},
		{Name: "session_history", Description: tools.HistoryDescription, InputSchema: tools.HistorySchema},
		{Name: "read_file", Description: tools.ReadFileDescription, InputSchema: tools.ReadFileSchema},
		{Name: "write_file", Description: tools.WriteFileDescription, InputSchema: tools.WriteFileSchema},
		{Name: "edit_file", Description: tools.EditFileDescription, InputSchema: tools.EditFileSchema},
		goalToolDef,
		taskToolDef,
		rememberToolDef,
		webFetchToolDef,
	}
	if s.m.settings().Todo {
		defs = append(defs, todoToolDef)
	}
	if t, ok := s.lspToolDef(); ok { // lsp.go: fixed when the session opens
		defs = append(defs, t)
	}
	if t, ok := s.skillToolDef(); ok { // custom.go: fixed when the session opens
		defs = append(defs, t)
	}
	return append(defs, s.mcpToolDefs()...) // mcp.go
}

// toolOutcome is the recorded result of one tool call.
type toolOutcome struct {
	output  string
	isError bool
	took    time.Duration
	// record, when set, adds to the stored result what output cannot
	// carry: an image read, a file change's diff (files.go).
	record func(*session.Block)
}

// runTools runs a round's tool calls in order and records their outcomes
// as one user message. After a stop the remaining calls are recorded as
// not run, so every call in the thread keeps an outcome.
func (s *Session) runTools(ctx context.Context, uses []session.Block) error {
	results := make([]session.Block, 0, len(uses))
	caller := s.callerOf(uses)
	// The round's task calls start together: sub-agents work at once, and
	// each outcome is recorded in its call's place.
	tasks := map[string]chan toolOutcome{}
	for _, use := range uses {
		if use.Name != taskTool || ctx.Err() != nil {
			continue
		}
		s.startTool(caller, use)
		done := make(chan toolOutcome, 1)
		tasks[use.ID] = done
		go func() { done <- s.runTool(ctx, use) }()
	}
	for _, use := range uses {
		var out toolOutcome
		ran := ctx.Err() == nil
		task, started := tasks[use.ID]
		switch {
		case started:
			out, ran = <-task, true
		case !ran:
			out = toolOutcome{output: "Not run: the person stopped the turn.", isError: true}
		default:
			s.startTool(caller, use)
			out = s.runTool(ctx, use)
		}
		content, _ := json.Marshal(out.output)
		result := session.Block{
			Type: session.BlockToolResult, ToolUseID: use.ID, IsError: out.isError,
			Content: content, DurationMS: out.took.Milliseconds(),
		}
		// Cut short by a stop: the outcome says so (the person's, here;
		// myco's own, after a crash, is added when the session reopens).
		result.Interrupted = ctx.Err() != nil
		if out.record != nil {
			out.record(&result)
		}
		if ran {
			// The outcome as it is recorded, so the card the tab shows now
			// is the one a reload shows: duration, interruption, diff.
			s.publish(event.ToolEnd{
				ToolUseID: use.ID, IsError: out.isError, Output: capText(out.output, maxEventOutput),
				HTML: s.render("tool result", s.m.opts.RenderToolResult, result),
			})
		}
		results = append(results, result)
	}
	m := session.Message{ID: newID(), Role: "user", At: s.m.opts.Now().UTC(), Content: results}
	if err := s.appendMessage(m); err != nil {
		return err
	}
	return ctx.Err()
}

// startTool marks a call as started, in the journal and to the tabs.
func (s *Session) startTool(caller string, use session.Block) {
	s.w.StartTool(use.ID)
	s.publish(event.ToolStart{
		Message: caller, ToolUseID: use.ID, Tool: use.Name, Input: rawJSON(use.Input),
		HTML: s.render("tool call", s.m.opts.RenderToolCall, use),
	})
}

func (s *Session) runTool(ctx context.Context, use session.Block) toolOutcome {
	start := time.Now()
	if out, refused := s.planRefusal(use); refused { // plan.go
		out.took = time.Since(start)
		return out
	}
	var out toolOutcome
	switch use.Name {
	case "bash":
		out = s.runBash(ctx, use)
	case "session_meta":
		out = s.runMeta(use)
	case "session_history":
		out = s.runHistory(use)
	case "read_file":
		out = s.runReadFile(use)
	case "write_file":
		out = s.runWriteFile(ctx, use)
	case "edit_file":
		out = s.runEditFile(ctx, use)
	case goalTool:
		out = s.runGoalStatus(use)
	case todoTool:
		out = s.runTodoWrite(use)
	case taskTool:
		out = s.runTask(ctx, use)
	case rememberTool:
		out = s.runRemember(ctx, use)
	case skillTool:
		out = s.runSkill(use) // custom.go
	case webFetchTool:
		out = s.runWebFetch(ctx, use) // webfetch.go
	case lspTool:
		out = s.runLSPDiagnostics(ctx, use) // lsp.go
	default:
		if isMCPTool(use.Name) {
			out = s.runMCP(ctx, use) // mcp.go
			break
		}
		out = toolOutcome{output: fmt.Sprintf("Unknown tool %q.", use.Name), isError: true}
	}
	out.took = time.Since(start)
	return out
}

func (s *Session) runBash(ctx context.Context, use session.Block) toolOutcome {
	var in tools.BashInput
	if err := json.Unmarshal(use.Input, &in); err != nil || strings.TrimSpace(in.Command) == "" {
		return toolOutcome{output: "bash needs {\"command\": \"…\"}.", isError: true}
	}
	if ok, out := s.approve(ctx, use, "bash", s.m.settings().Approvals.Bash == profiles.ApprovalAllow); !ok {
		return out
	}
	if s.planMode() {
		return s.runPlanBash(ctx, use, in) // a read-only sandbox (plan.go)
	}
	shell, note, err := s.ensureShell()
	if err != nil {
		return toolOutcome{output: "The shell could not start: " + err.Error(), isError: true}
	}
	timeout := s.m.opts.CommandTimeout
	if in.TimeoutS > 0 {
		timeout = in.Timeout()
	}
	s.enter(StatusTool, "bash")
	res, err := shell.RunWithProgress(ctx, in.Command, timeout, s.outputRecorder(use.ID))
	if err != nil && ctx.Err() == nil {
		return toolOutcome{output: note + "The command could not run: " + err.Error(), isError: true}
	}
	return toolOutcome{output: note + formatRun(res, ctx.Err() != nil, timeout), isError: res.ExitCode != 0 || res.TimedOut || ctx.Err() != nil}
}

// outputRecorder is what a running command's output goes through, in the
// session's shell or a sandbox: the journal keeps its start, for a crash
// (the outcome itself keeps the capped head and tail as usual), and the
// tabs see it as it comes.
func (s *Session) outputRecorder(id string) func([]byte) {
	kept := 0
	return func(p []byte) {
		if kept >= maxJournaledOutput {
			return
		}
		p = p[:min(len(p), maxJournaledOutput-kept)]
		kept += len(p)
		text := strings.ToValidUTF8(string(p), "")
		s.w.Output(id, text)
		s.publish(event.ToolOutput{ToolUseID: id, Text: text})
	}
}

func formatRun(res tools.RunResult, stopped bool, timeout time.Duration) string {
	var b strings.Builder
	b.WriteString(res.Output)
	if res.Output != "" && !strings.HasSuffix(res.Output, "\n") {
		b.WriteByte('\n')
	}
	switch {
	case stopped:
		b.WriteString("[stopped by the person; the command was killed]")
	case res.TimedOut:
		fmt.Fprintf(&b, "[timed out after %s; the command was killed]", timeout)
	default:
		fmt.Fprintf(&b, "[exit status %d]", res.ExitCode)
	}
	return b.String()
}

// ensureShell starts the session's shell on first use, in the session's
// folder. The note tells the agent of a resumed or forked session, once,
// that it is new.
func (s *Session) ensureShell() (*tools.Shell, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	note := ""
	if s.shellNote != "" && !s.toldShell {
		note = s.shellNote + "\n\n"
	}
	s.toldShell = true
	if s.shell != nil {
		return s.shell, note, nil
	}
	// The shell runs what the model writes: it never gets the keys myco
	// talks to providers with (settings shell_env_drop, shell_env_keep).
	sh, err := tools.NewShell(s.cwd(), s.m.shellEnv().Apply(os.Environ()))
	if err != nil {
		return nil, "", err
	}
	s.shell = sh
	return sh, note, nil
}

// approve asks the tab before a tool changes anything, unless settings or
// an earlier "allow for this session" allow it. A denial is told to the
// agent as the tool's outcome.
func (s *Session) approve(ctx context.Context, use session.Block, kind string, allowedBySettings bool) (bool, toolOutcome) {
	s.mu.Lock()
	// A custom command's allowed-tools run without asking in its turn (custom.go).
	allowed := allowedBySettings || s.allowed[use.Name] || s.commandGrantLocked().allows(use)
	s.mu.Unlock()
	if allowed {
		return true, toolOutcome{}
	}
	a := &approval{ToolUseID: use.ID, Name: use.Name, Input: rawJSON(use.Input)}
	return s.askApproval(ctx, a,
		"The person denied this "+kind+" call. Do not retry it; ask them what they want instead.",
		"Not run: the person stopped the turn.")
}

// askApproval shows a pending approval in every tab and waits for the
// person's decision or a stop; denied and stopped are what the agent is
// told in those cases.
func (s *Session) askApproval(ctx context.Context, a *approval, denied, stopped string) (bool, toolOutcome) {
	a.decided = make(chan string, 1)
	s.mu.Lock()
	s.approvals[a.ToolUseID] = a
	s.mu.Unlock()
	s.enter(StatusApproval, a.Name)
	s.publish(s.approvalEvent(a))
	select {
	case d, ok := <-a.decided:
		if ok && d != DecisionDeny {
			return true, toolOutcome{}
		}
		return false, toolOutcome{output: denied, isError: true}
	case <-ctx.Done():
		s.mu.Lock()
		delete(s.approvals, a.ToolUseID)
		s.mu.Unlock()
		return false, toolOutcome{output: stopped, isError: true}
	}
}

// approvalEvent is a pending approval as the tabs see it, its card
// rendered: in tool.approval, and in a snapshot's approvals.
func (s *Session) approvalEvent(a *approval) event.ToolApproval {
	ev := a.event()
	if r := s.m.opts.RenderApproval; r != nil {
		html, err := r(ev.ToolUseID, ev.Tool, ev.Input, ev.Diff)
		if err != nil {
			s.m.log.Warn("render approval failed", "session", s.id, "tool_use_id", ev.ToolUseID, "err", err)
		}
		ev.HTML = html
	}
	return ev
}

// render renders b with r for an event, or gives "" (the event goes
// without its html) when there is no renderer or it fails.
func (s *Session) render(what string, r func(session.Block) (string, error), b session.Block) string {
	if r == nil {
		return ""
	}
	html, err := r(b)
	if err != nil {
		s.m.log.Warn("render "+what+" failed", "session", s.id, "err", err)
		return ""
	}
	return html
}

// callerOf is the ID of the answer that asked for uses: the latest
// message of the thread holding their first call, saved before they run.
func (s *Session) callerOf(uses []session.Block) string {
	if len(uses) == 0 {
		return ""
	}
	var id string
	s.w.View(func(d *session.Document) {
		if len(d.Threads) == 0 {
			return
		}
		msgs := d.Threads[len(d.Threads)-1].Messages
		for i := len(msgs) - 1; i >= 0 && id == ""; i-- {
			for _, b := range msgs[i].Content {
				if b.Type == session.BlockToolUse && b.ID == uses[0].ID {
					id = msgs[i].ID
					break
				}
			}
		}
	})
	return id
}

func (s *Session) runMeta(use session.Block) toolOutcome {
	var in tools.MetaInput
	if err := json.Unmarshal(use.Input, &in); err != nil {
		return toolOutcome{output: "session_meta: " + err.Error(), isError: true}
	}
	if in.Action == tools.MetaQuery {
		return s.runQuery(in.Query)
	}
	if in.Action == tools.MetaSendNote {
		return s.sendNoteFor(in) // notes.go
	}
	var output string
	var changed bool
	doc, err := s.Update(func(d *session.Document) error {
		var err error
		output, changed, err = tools.ApplyMeta(d, in)
		return err
	})
	if err != nil {
		return toolOutcome{output: err.Error(), isError: true}
	}
	if changed && in.Action == "set_title" {
		s.publish(event.Title{Title: doc.Title})
	}
	return toolOutcome{output: output}
}

func (s *Session) runQuery(q string) toolOutcome {
	hits, err := s.m.opts.Store.Search(q, 20)
	if err != nil {
		return toolOutcome{output: "query failed: " + err.Error(), isError: true}
	}
	return toolOutcome{output: tools.FormatHits(q, hits)}
}

func (s *Session) runHistory(use session.Block) toolOutcome {
	var in tools.HistoryInput
	if err := json.Unmarshal(use.Input, &in); err != nil {
		return toolOutcome{output: "session_history: " + err.Error(), isError: true}
	}
	var out string
	var err error
	s.w.View(func(d *session.Document) { out, err = tools.History(d, in) })
	if err != nil {
		return toolOutcome{output: err.Error(), isError: true}
	}
	return toolOutcome{output: out}
}

func rawJSON(v []byte) json.RawMessage {
	if len(v) == 0 {
		return json.RawMessage("{}")
	}
	return json.RawMessage(v)
}

func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := textcut.Bytes(s, n/2), textcut.TailBytes(s, n/2)
	return head + fmt.Sprintf("\n[… %d bytes not shown here …]\n", len(s)-len(head)-len(tail)) + tail
}
