package live

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"myco/internal/atomicfile"
	"myco/internal/errkind"
	"myco/profiles"
	"myco/server/llm"
	"myco/server/tools"
	"myco/session"
)

// Project memory. The remember tool adds a lasting fact about the
// project (how to build and test it, its layout, its conventions) to
// .myco/memory.md in the project's root folder (projectRoot), with the
// person's approval, shown as the file's diff (or allowed in settings,
// approvals.memory). The file is read with the instruction files, last
// (instructions.go), so later sessions know what earlier ones learned;
// the session that saves it does not see it in its prompt until
// /init reload, which keeps its cached prefix. The person reads and edits
// the file from the side panel (GET/PUT …/memory).

const rememberTool = "remember"

// memoryFile is where a project's memory lives, under its root folder.
var memoryFile = filepath.Join(".myco", "memory.md")

// maxMemoryFact bounds one fact; maxMemoryFile the whole file, which
// goes into every later session's prompt (it is read like an
// instruction file, whose limit it shares).
const (
	maxMemoryFact = 2000
	maxMemoryFile = maxInstructionFile
)

// memoryHead starts a memory file remember creates.
const memoryHead = "# Memory\n\nFacts about this project that agents saved with myco's remember tool. myco reads this file into new sessions after AGENTS.md; edit it freely.\n\n"

var rememberToolDef = llm.Tool{
	Name: rememberTool,
	Description: "Save a lasting fact about this project for later sessions: how to build, test or run it, where things are, a convention the person asked for. " +
		"It is added to .myco/memory.md in the project's root folder, which every new session reads (this one does not re-read it). " +
		"The person approves each fact. Save only what stays true and helps next time, one fact per call, in a sentence or two; not what this task alone needs.",
	InputSchema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"fact": map[string]any{"type": "string", "description": "The fact, in a sentence or two (at most 2,000 characters)."},
		},
		"required":             []string{"fact"},
		"additionalProperties": false,
	},
}

type rememberInput struct {
	Fact string `json:"fact"`
}

// memoryPath is the memory file of the project the folder is in.
func memoryPath(folder string) string {
	if folder == "" {
		return ""
	}
	return filepath.Join(projectRoot(filepath.Clean(folder)), memoryFile)
}

// memoryLine is a fact as a Markdown list item: its lines after the first
// indented under it, blank lines dropped so the item stays one.
func memoryLine(fact string) string {
	var lines []string
	for l := range strings.SplitSeq(strings.TrimSpace(fact), "\n") {
		if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return "- " + strings.Join(lines, "\n  ") + "\n"
}

func (s *Session) runRemember(ctx context.Context, use session.Block) toolOutcome {
	var in rememberInput
	if err := decodeInput(use.Input, &in); err != nil || strings.TrimSpace(in.Fact) == "" {
		return toolOutcome{output: `remember needs {"fact": "…"}: the fact to save, in a sentence or two.`, isError: true}
	}
	if n := len([]rune(in.Fact)); n > maxMemoryFact {
		return toolOutcome{output: fmt.Sprintf("remember: the fact has %d characters; save at most %d, in a sentence or two.", n, maxMemoryFact), isError: true}
	}
	path := memoryPath(s.folder())
	if path == "" {
		return toolOutcome{output: "remember: this session has no folder, so there is no project to remember for.", isError: true}
	}
	t, err := s.m.denied().Resolve(path)
	if err != nil {
		return fileFailed(rememberTool, err)
	}
	ch, err := tools.PrepareAppend(t, memoryHead, memoryLine(in.Fact))
	if err != nil {
		return fileFailed(rememberTool, err)
	}
	if len(ch.New) > maxMemoryFile {
		return toolOutcome{output: fmt.Sprintf("remember: %s would pass %d KB, which is all later sessions read of it. Nothing was saved; ask the person to tidy it (the side panel edits it).", path, maxMemoryFile>>10), isError: true}
	}
	withDiff := func(out toolOutcome) toolOutcome {
		member, _ := json.Marshal(map[string]string{"diff": ch.Diff})
		out.record = func(b *session.Block) { b.Unknown = member }
		return out
	}
	if ok, out := s.approveMemory(ctx, use, ch); !ok {
		return withDiff(out)
	}
	s.enter(StatusTool, rememberTool)
	if _, err := ch.Apply(); err != nil {
		return withDiff(fileFailed(rememberTool, err))
	}
	s.publishPanel()
	return withDiff(toolOutcome{output: "Saved to " + path + ". New sessions of this project read it; this session's prompt stays as it is until the person runs /init reload."})
}

// approveMemory asks the tab before a fact is saved, showing the diff of
// the memory file, unless settings or an earlier "allow for this
// session" of remember allow it.
func (s *Session) approveMemory(ctx context.Context, use session.Block, ch *tools.Change) (bool, toolOutcome) {
	s.mu.Lock()
	allowed := s.m.settings().Approvals.Memory == profiles.ApprovalAllow || s.allowed[rememberTool]
	s.mu.Unlock()
	if allowed {
		return true, toolOutcome{}
	}
	// The card shows the file's path above the diff (web.NewApprovalView
	// reads it from the input), so the input it carries names the file.
	input, _ := json.Marshal(map[string]string{"path": ch.Path, "fact": strings.TrimSpace(factOf(use.Input))})
	a := &approval{ToolUseID: use.ID, Name: use.Name, Input: input, Diff: ch.Diff}
	return s.askApproval(ctx, a,
		"The person denied saving this fact: nothing was saved. Do not retry it.",
		"Not run: the person stopped the turn; nothing was saved.")
}

func factOf(input []byte) string {
	var in rememberInput
	_ = json.Unmarshal(rawJSON(input), &in)
	return in.Fact
}

// Memory is a project's memory file as the side panel edits it.
type Memory struct {
	Path   string `json:"path"`
	Text   string `json:"text"`
	Exists bool   `json:"exists"`
	// SHA256 is of Text; a write gives it back as base_sha256, so an
	// edit made meanwhile (by remember, or in an editor) is not lost.
	SHA256 string `json:"sha256"`
}

// Errors of the memory file's API.
var (
	ErrNoMemoryFolder = errkind.New(errkind.Conflict, "this session has no folder, so it has no project memory")
	ErrMemoryChanged  = errkind.New(errkind.Conflict, "the memory file changed since it was read")
	ErrMemoryTooLarge = errkind.New(errkind.TooLarge, "the memory file is too large")
)

// ReadMemory reads the project's memory file (empty when there is none).
func (s *Session) ReadMemory() (Memory, error) {
	path := memoryPath(s.folder())
	if path == "" {
		return Memory{}, ErrNoMemoryFolder
	}
	t, err := s.m.denied().Resolve(path)
	if err != nil {
		return Memory{}, err
	}
	mem := Memory{Path: path, SHA256: sha256Hex(nil)}
	head, size, sum, err := tools.ReadHead(t, maxMemoryFile)
	switch {
	case errors.Is(err, tools.ErrNoFile), errors.Is(err, fs.ErrNotExist):
		return mem, nil
	case err != nil:
		return Memory{}, err
	case size > int64(len(head)):
		return Memory{}, fmt.Errorf("%w: %s has %d bytes; the side panel edits it up to %d KB (edit it in an editor)", ErrMemoryTooLarge, path, size, maxMemoryFile>>10)
	}
	mem.Text, mem.Exists, mem.SHA256 = string(head), true, sum
	return mem, nil
}

// WriteMemory replaces the project's memory file with text (the person's
// edit), when it still holds what base (its sha256 when read) says, and
// reads the instruction files again so the session's next request knows
// it: the person acted, so the prompt may change.
func (s *Session) WriteMemory(text, base string) (Memory, error) {
	if len(text) > maxMemoryFile {
		return Memory{}, fmt.Errorf("%w: %d bytes; later sessions read at most %d KB of it", ErrMemoryTooLarge, len(text), maxMemoryFile>>10)
	}
	cur, err := s.ReadMemory()
	if err != nil {
		return Memory{}, err
	}
	if base != "" && base != cur.SHA256 {
		return Memory{}, fmt.Errorf("%w: load it again, then make your change", ErrMemoryChanged)
	}
	t, err := s.m.denied().Resolve(cur.Path)
	if err != nil {
		return Memory{}, err
	}
	if err := os.MkdirAll(filepath.Dir(t.Real), 0o755); err != nil {
		return Memory{}, fmt.Errorf("create %s: %w", filepath.Dir(cur.Path), err)
	}
	if err := atomicfile.Write(t.Real, []byte(text), atomicfile.Options{Perm: 0o644}); err != nil {
		return Memory{}, fmt.Errorf("write %s: %w", cur.Path, err)
	}
	if _, err := s.ReloadInstructions(); err != nil && !errors.Is(err, ErrSessionClosed) {
		s.m.log.Warn("instructions not reloaded after a memory edit", "session", s.id, "err", err)
	}
	return Memory{Path: cur.Path, Text: text, Exists: true, SHA256: sha256Hex([]byte(text))}, nil
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
