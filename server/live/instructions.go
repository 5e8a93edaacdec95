package live

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"myco/internal/textcut"
	"myco/server/tools"
	"myco/session"
)

// Project instructions. The files a project keeps for agents (AGENTS.md,
// CLAUDE.md, MYCO.md) and the person's own file join the system prompt.
// The rules:
//
//   - The person's own file comes first (Options.PersonalInstructions,
//     ~/.config/myco/AGENTS.md), then each folder from the repository's
//     root (the nearest folder above the session's holding .git; without
//     one, the session's folder alone) down to the session's folder, and
//     within a folder AGENTS.md, CLAUDE.md, MYCO.md; last the project's
//     memory, .myco/memory.md in the root (memory.go). The prompt says
//     the later win on a conflict.
//   - A file with the same text as an earlier one goes in once; each is
//     cut at maxInstructionFile, and all together at maxInstructionTotal
//     (the files read first are cut first: the nearer ones win anyway),
//     with a note saying so.
//   - Denied paths (tools.Denied: settings denied_paths, myco's data)
//     are never read, nor what is not a regular text file.
//   - They are read when the live session opens and on /init reload
//     (ReloadInstructions), never between: the system prompt is the head
//     of the cached prefix, so every request of the session sends the
//     same bytes until the person asks. What was read is recorded in the
//     document (Document.Instructions) for the side panel; the text is
//     not, a reopened session reads the files again.
//   - A fork or a sub-agent opened in this process before it ran takes
//     its parent's text when they share the folder, so its first request
//     reads the parent's cached prefix even if a file changed since.

// instructionNames are the files read in each folder, in prompt order.
var instructionNames = []string{"AGENTS.md", "CLAUDE.md", "MYCO.md"}

const (
	maxInstructionFile  = 32 << 10
	maxInstructionTotal = 64 << 10
)

// instructions are the instruction files a live session read and what
// they make of its system prompt.
type instructions struct {
	folder string // the session's folder they were read for
	text   string // "" when there are none
	files  []session.Instruction
}

const instructionsIntro = `

# Instructions from files

The person and the project wrote these instructions for agents working here, in files. They come from the broadest to the most specific: the person's own file first, then the project's from its root folder down to the session's folder, and in a folder AGENTS.md, CLAUDE.md, then MYCO.md; last the project's memory (.myco/memory.md), facts agents saved with the remember tool. Where two disagree, the later one wins; what the person says in the conversation wins over all of them.`

// instructionPaths are the files to look for, in prompt order.
func instructionPaths(folder, personal string) []string {
	var out []string
	if personal != "" {
		out = append(out, filepath.Clean(personal))
	}
	if folder == "" {
		return out
	}
	folder = filepath.Clean(folder)
	root := projectRoot(folder)
	var dirs []string
	for d := folder; ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	slices.Reverse(dirs)
	for _, d := range dirs {
		for _, n := range instructionNames {
			out = append(out, filepath.Join(d, n))
		}
	}
	// The project's memory (memory.go) last: what agents learned here.
	return append(out, filepath.Join(root, memoryFile))
}

// projectRoot is the nearest folder at or above folder that holds .git
// (a folder, or a worktree's file); folder itself when none does.
func projectRoot(folder string) string {
	for d := folder; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return folder
		}
	}
}

// readInstructions reads the instruction files of folder (and the
// person's own file, personal) under the denied-path rule.
func readInstructions(folder, personal string, denied *tools.Denied) instructions {
	type loaded struct {
		rec  session.Instruction
		text string
	}
	var all []loaded
	seen := map[string]string{} // hash → the path that went in
	for _, p := range instructionPaths(folder, personal) {
		if _, err := os.Stat(p); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				all = append(all, loaded{rec: session.Instruction{Path: p, Skipped: "not readable: " + err.Error()}})
			}
			continue
		}
		rec := session.Instruction{Path: p}
		t, err := denied.Resolve(p)
		if err != nil {
			rec.Skipped = skipReason(err)
			all = append(all, loaded{rec: rec})
			continue
		}
		head, size, sum, err := tools.ReadHead(t, maxInstructionFile)
		if err != nil {
			rec.Skipped = skipReason(err)
			all = append(all, loaded{rec: rec})
			continue
		}
		text := strings.ToValidUTF8(string(head), "\uFFFD")
		if strings.TrimSpace(text) == "" {
			continue // an empty file says nothing
		}
		rec.Bytes, rec.SHA256 = size, sum
		if first, ok := seen[sum]; ok {
			rec.SameAs = first
			all = append(all, loaded{rec: rec})
			continue
		}
		seen[sum] = p
		if size > int64(len(head)) {
			text = textcut.Bytes(text, maxInstructionFile)
			rec.Cut, rec.Kept = true, int64(len(text))
		}
		all = append(all, loaded{rec: rec, text: text})
	}
	// The total: the nearest files keep theirs first.
	left := maxInstructionTotal
	for i := len(all) - 1; i >= 0; i-- {
		l := &all[i]
		if !l.rec.Loaded() {
			continue
		}
		if len(l.text) > left {
			l.text = textcut.Bytes(l.text, left)
			l.rec.Cut, l.rec.Kept = true, int64(len(l.text))
		}
		left -= len(l.text)
	}
	in := instructions{folder: folder, files: make([]session.Instruction, 0, len(all))}
	var b strings.Builder
	for _, l := range all {
		in.files = append(in.files, l.rec)
		if !l.rec.Loaded() {
			continue
		}
		if b.Len() == 0 {
			b.WriteString(instructionsIntro)
		}
		fmt.Fprintf(&b, "\n\n<instructions file=%q>\n%s", l.rec.Path, strings.TrimRight(l.text, "\n"))
		if l.rec.Cut {
			fmt.Fprintf(&b, "\n[myco cut this file here: it has %d bytes, of which the first %d are above (at most %d KB of each file and %d KB of all of them are read).]",
				l.rec.Bytes, l.rec.Kept, maxInstructionFile>>10, maxInstructionTotal>>10)
		}
		b.WriteString("\n</instructions>")
	}
	in.text = b.String()
	return in
}

// skipReason says in a few words why a file was not read.
func skipReason(err error) string {
	switch {
	case errors.Is(err, tools.ErrDenied):
		var d *tools.DeniedError
		if errors.As(err, &d) {
			return "denied: it is " + d.Rule
		}
		return "denied"
	case errors.Is(err, tools.ErrNotText):
		return "not a text file"
	case errors.Is(err, tools.ErrNotFile):
		return "not a regular file"
	case errors.Is(err, tools.ErrTooLarge):
		return "too large"
	}
	return "not readable: " + err.Error()
}

// loadInstructions reads the session's instruction files into it, and
// records what it read in the document when that changed.
func (s *Session) loadInstructions() error {
	in := readInstructions(s.folder(), s.m.opts.PersonalInstructions, s.m.denied())
	return s.keepInstructions(&in)
}

// keepInstructions makes in the session's instructions, from its next
// request on, and records them in the document.
func (s *Session) keepInstructions(in *instructions) error {
	s.instr.Store(in)
	var same bool
	s.w.View(func(d *session.Document) {
		same = slices.EqualFunc(d.Instructions, in.files, session.Instruction.Same)
	})
	if same {
		return nil
	}
	_, err := s.w.Update(func(d *session.Document) error {
		d.Instructions = slices.Clone(in.files)
		return nil
	})
	if isClosed(err) {
		err = ErrSessionClosed
	}
	return err
}

// instructionsText is what the instruction files add to the system
// prompt ("" for none).
func (s *Session) instructionsText() string {
	if in := s.instr.Load(); in != nil {
		return in.text
	}
	return ""
}

// ReloadInstructions reads the instruction files again (/init reload):
// the next request carries what they say now, which starts a new cached
// prefix when it changed. It returns what was read.
func (s *Session) ReloadInstructions() ([]session.Instruction, error) {
	s.mu.Lock()
	err := s.refuseLocked()
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if err := s.loadInstructions(); err != nil {
		return nil, fmt.Errorf("reload instructions: %w", err)
	}
	if err := s.loadSkills(); err != nil { // custom.go
		return nil, fmt.Errorf("reload skills: %w", err)
	}
	s.publishPanel()
	return slices.Clone(s.instr.Load().files), nil
}

// inheritInstructions gives a fork or a sub-agent opened before it ran
// its parent's instructions, when the parent is open in this process and
// works in the same folder: the fork's first request then starts with
// the parent's bytes. It reports whether it did.
func (s *Session) inheritInstructions() bool {
	var parent string
	var fresh bool
	s.w.View(func(d *session.Document) {
		if d.Parent != nil {
			parent = d.Parent.Session
		}
		fresh = s.shellNote != resumedNote
	})
	if parent == "" || !fresh {
		return false
	}
	p, ok := s.m.Get(parent)
	if !ok {
		return false
	}
	in := p.instr.Load()
	if in == nil || in.folder != s.folder() {
		return false
	}
	if err := s.keepInstructions(in); err != nil {
		s.m.log.Warn("instructions not recorded", "session", s.id, "err", err)
	}
	return true
}

// inheritApprovals gives a fork opened before it ran the approvals its
// parent was given "for this session", when the parent is open in this
// process: they are the person's word about this way of working, not
// about a point of the conversation, so a fork made at an earlier point
// keeps them too. (A sub-agent gets them in runTask.)
func (s *Session) inheritApprovals() {
	var parent string
	var fresh bool
	s.w.View(func(d *session.Document) {
		if d.Parent != nil && !d.IsSubagent() {
			parent = d.Parent.Session
		}
		fresh = s.shellNote != resumedNote
	})
	if parent == "" || !fresh {
		return
	}
	p, ok := s.m.Get(parent)
	if !ok {
		return
	}
	p.mu.Lock()
	allowed := maps.Clone(p.allowed)
	p.mu.Unlock()
	s.mu.Lock()
	maps.Copy(s.allowed, allowed)
	s.mu.Unlock()
}
