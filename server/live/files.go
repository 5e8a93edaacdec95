package live

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	jsonv2 "github.com/go-json-experiment/json"

	"myco/profiles"
	"myco/server/tools"
	"myco/session"
)

// The file tools: read_file records a read stamp in the live session,
// write_file and edit_file change a file only over a fresh stamp, after the
// person approved the diff. Stamps live in the Session, not in the thread:
// compaction keeps them, a new process starts without them.

// fileTools are the tools that change files; "allow for this session" of
// one allows both.
var fileTools = []string{"write_file", "edit_file"}

func (s *Session) runReadFile(use session.Block) toolOutcome {
	var in tools.ReadInput
	if err := decodeInput(use.Input, &in); err != nil {
		return fileFailed("read_file", err)
	}
	t, err := s.fileTarget(in.Path)
	if err != nil {
		return fileFailed("read_file", err)
	}
	s.enter(StatusTool, "read_file")
	res, err := tools.ReadFile(t, in)
	if err != nil {
		return fileFailed("read_file", err)
	}
	view := s.readView(in)
	if by, ok := s.stamps.Sent(t.Real, res.Stamp, view); ok {
		return toolOutcome{output: fmt.Sprintf("%s is unchanged since you read these lines (the result of call %s, above): "+
			"not sent again. Give another offset or limit for other lines.", t.Path, by)}
	}
	out := toolOutcome{output: res.Text}
	if res.Image != nil {
		ref, err := s.m.opts.Images.Put(res.Image)
		if err != nil {
			return fileFailed("read_file", fmt.Errorf("%s could not be kept as an image: %w", t.Path, err))
		}
		content := []session.Block{
			{Type: session.BlockText, Text: res.Text},
			{Type: session.BlockImage, SHA256: ref.SHA256, MediaType: ref.MediaType},
		}
		out.record = func(b *session.Block) { b.Content, _ = jsonv2.Marshal(content) }
	}
	s.stamps.Read(t.Real, res.Stamp, view, use.ID)
	return out
}

// readView names what a read showed, for not sending it twice: the lines
// asked for, in the latest thread. A read in an earlier thread may have
// been compacted away, so it does not count.
func (s *Session) readView(in tools.ReadInput) string {
	var thread int
	s.w.View(func(d *session.Document) { thread = len(d.Threads) - 1 })
	offset, limit := in.Range()
	return fmt.Sprintf("thread %d, lines %d+%d", thread, offset, limit)
}

func (s *Session) runWriteFile(ctx context.Context, use session.Block) toolOutcome {
	var in tools.WriteInput
	if err := decodeInput(use.Input, &in); err != nil {
		return fileFailed("write_file", err)
	}
	t, err := s.fileTarget(in.Path)
	if err != nil {
		return fileFailed("write_file", err)
	}
	ch, err := tools.PrepareWrite(t, in.Content, s.readStamp(t))
	if err != nil {
		return fileFailed("write_file", err)
	}
	return s.applyChange(ctx, use, ch, 0)
}

func (s *Session) runEditFile(ctx context.Context, use session.Block) toolOutcome {
	var in tools.EditInput
	if err := decodeInput(use.Input, &in); err != nil {
		return fileFailed("edit_file", err)
	}
	t, err := s.fileTarget(in.Path)
	if err != nil {
		return fileFailed("edit_file", err)
	}
	ch, err := tools.PrepareEdit(t, in.Edits, s.readStamp(t))
	if err != nil {
		return fileFailed("edit_file", err)
	}
	return s.applyChange(ctx, use, ch, len(in.Edits))
}

func (s *Session) readStamp(t tools.Target) *tools.Stamp {
	if st, ok := s.stamps.Get(t.Real); ok {
		return &st
	}
	return nil
}

// applyChange asks the person with the diff, writes, and refreshes the
// stamp. The diff is recorded with the result, denied or not, so the
// session page shows what was proposed.
func (s *Session) applyChange(ctx context.Context, use session.Block, ch *tools.Change, edits int) toolOutcome {
	if ch.Unchanged() {
		return toolOutcome{output: ch.Path + " already holds exactly this content: nothing was written."}
	}
	withDiff := func(out toolOutcome) toolOutcome {
		member, _ := json.Marshal(map[string]string{"diff": ch.Diff})
		out.record = func(b *session.Block) { b.Unknown = member }
		return out
	}
	accepted, ok, out := s.approveChange(ctx, use, ch)
	if !ok {
		return withDiff(out)
	}
	// Reviewed by hunk: only the accepted ones are written, over the same
	// read, and the result's diff is theirs.
	var sel tools.Selection
	if accepted != nil {
		part, picked, err := ch.Select(accepted)
		if err != nil {
			return withDiff(fileFailed(use.Name, err))
		}
		ch, sel = part, picked
	}
	// The person may have taken a while: a link on the way may have
	// changed meanwhile, so the path is resolved and checked again.
	if t, err := s.fileTarget(ch.Path); err != nil {
		return withDiff(fileFailed(use.Name, err))
	} else if t.Real != ch.Real {
		return withDiff(fileFailed(use.Name, fmt.Errorf("%s leads to %s now, not to %s as when the change was made: read it again",
			ch.Path, t.Real, ch.Real)))
	}
	s.enter(StatusTool, use.Name)
	st, err := ch.Apply()
	if err != nil {
		return withDiff(fileFailed(use.Name, err))
	}
	s.stamps.Wrote(ch.Real, st)
	if sel.Partial() {
		return withDiff(toolOutcome{output: sel.Summary(ch)})
	}
	return withDiff(toolOutcome{output: ch.Summary(edits)})
}

// approveChange asks the tab before a file changes, showing the diff,
// unless settings or an earlier "allow for this session" of a file tool
// allow it. It is approve with a diff, which approve has no way to show.
// accepted are the hunks the person kept (nil: all of them).
func (s *Session) approveChange(ctx context.Context, use session.Block, ch *tools.Change) (accepted []int, ok bool, out toolOutcome) {
	s.mu.Lock()
	allowed := s.m.settings().Approvals.Edit == profiles.ApprovalAllow
	for _, name := range fileTools {
		allowed = allowed || s.allowed[name]
	}
	s.mu.Unlock()
	if allowed {
		return nil, true, toolOutcome{}
	}
	a := &approval{ToolUseID: use.ID, Name: use.Name, Input: rawJSON(use.Input), Diff: ch.Diff, hunks: ch.HunkCount()}
	ok, out = s.askApproval(ctx, a,
		"The person denied this change to "+ch.Path+": the file is unchanged. Do not retry it; ask them what they want instead.",
		"Not run: the person stopped the turn; the file is unchanged.")
	// Approve set accepted before it sent the decision askApproval got.
	return a.accepted, ok, out
}

// pick keeps the hunks a decision accepts, as indexes into the diff's
// hunks; none accepted is a denial. s.mu is held.
func (a *approval) pick(decision string, hunks []int) (string, error) {
	if hunks == nil {
		return decision, nil
	}
	if a.hunks == 0 {
		return "", fmt.Errorf("%w: this approval has no hunks to pick from", ErrBadHunks)
	}
	seen := make([]bool, a.hunks)
	var accepted []int
	for _, i := range hunks {
		if i < 0 || i >= a.hunks {
			return "", fmt.Errorf("%w: %d is not one of 0 to %d", ErrBadHunks, i, a.hunks-1)
		}
		if !seen[i] {
			seen[i] = true
			accepted = append(accepted, i)
		}
	}
	if len(accepted) == 0 {
		return DecisionDeny, nil
	}
	slices.Sort(accepted)
	a.accepted = accepted
	return decision, nil
}

// fileTarget resolves a path the agent gave: relative to the session's
// folder, links followed, denied paths refused.
func (s *Session) fileTarget(p string) (tools.Target, error) {
	s.mu.Lock()
	cwd := s.cwd()
	s.mu.Unlock()
	home, _ := os.UserHomeDir()
	abs, err := tools.AbsPath(cwd, home, p)
	if err != nil {
		return tools.Target{}, err
	}
	return s.m.denied().Resolve(abs)
}

// decodeInput reads a tool's input strictly: a misnamed field (old_string
// for old_text) is an error that names it, not a silent empty value.
func decodeInput(input []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(rawJSON(input)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %w", tools.ErrFileInput, err)
	}
	return nil
}

func fileFailed(tool string, err error) toolOutcome {
	return toolOutcome{output: tool + ": " + err.Error(), isError: true}
}

// denied is the denied-path rule (tools.Denied) every path a session
// reads, shows or restores is held to.
func (m *Manager) denied() *tools.Denied {
	return tools.DeniedRule(m.settings().DeniedPaths, m.opts.ProfileDir)
}
