package live

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"myco/internal/errkind"
	"myco/server/event"
	"myco/server/tools"
	"myco/session"
	"myco/snapshot"
)

// Undo and redo of a turn. Before each turn the session's folder is
// snapshotted as "<message>.before" (the message that started the turn),
// after it as "<message>.after" (Options.Snapshots; nil: undo is off).
// /undo restores the before snapshot of the latest turn not yet undone and
// marks its messages undone (seen() leaves them out); /redo restores the
// after snapshot of the earliest undone turn after the last kept one and
// clears the marks. All of it is on disk, so it works after a restart.

var (
	// ErrUndoOff: settings say undo false.
	ErrUndoOff = errkind.New(errkind.Conflict, "undo is off (settings undo: false)")
	// ErrNothingToUndo / ErrNothingToRedo: no turn to take back or bring back.
	ErrNothingToUndo = errkind.New(errkind.NotFound, "there is no turn to undo")
	ErrNothingToRedo = errkind.New(errkind.NotFound, "there is no undone turn to redo")
	// ErrUndoStale: the turn confirmed is no longer the one an undo or
	// redo would take (another tab did it first, or a turn ran).
	ErrUndoStale = errkind.New(errkind.Conflict, "that turn is no longer the one to undo or redo; ask again")
	// ErrOutsideFolder: a path (@path, /diff PATH) that is not in the
	// session's folder.
	ErrOutsideFolder = errkind.New(errkind.Forbidden, "only paths in the session's folder are taken")
)

// File actions of an undo or redo plan.
const (
	ActionRestore = "restore" // the file gets its earlier contents back
	ActionCreate  = "create"  // the file comes back (the turn deleted it)
	ActionDelete  = "delete"  // the file goes (the turn made it)
)

// UndoFile is one file an undo or redo changes.
type UndoFile struct {
	Path   string `json:"path"`
	Action string `json:"action"`
	// ByHand: the file was changed after the turn ended (by the person or
	// another program): that change goes back too.
	ByHand bool `json:"by_hand,omitzero"`
}

// UndoPlan is what an undo or redo of Turn does.
type UndoPlan struct {
	Turn  string     `json:"turn"`
	Redo  bool       `json:"redo,omitzero"`
	Files []UndoFile `json:"files"`
	// Messages are the turn's messages marked (or unmarked) undone.
	Messages []string `json:"messages"`
	// FilesOnly: the turn's messages are in an earlier thread (a
	// compaction came after it): the model no longer sees them anyway,
	// only the files change.
	FilesOnly bool `json:"files_only,omitzero"`
	// Text is the turn's first words, to name it.
	Text string `json:"text,omitempty"`
	// thread holds the messages marked.
	thread int
}

func beforeName(turn string) string { return turn + ".before" }
func afterName(turn string) string  { return turn + ".after" }

// snapshotTurn takes the folder's snapshot before (or after) the turn
// started by message turn. A retry answers the same message again: its
// before snapshot is the first one's. A failure is logged, never the
// turn's: undo is a safety net, not a gate.
func (s *Session) snapshotTurn(turn string, after bool) {
	st := s.m.snapshots()
	if st == nil || turn == "" {
		return
	}
	name := beforeName(turn)
	if after {
		name = afterName(turn)
	} else if st.Has(s.id, name) {
		return
	}
	// Not under s.mu: the turn's snapshots run under snapMu, which /undo
	// takes while it holds s.mu (cwdRoot needs only the writer's view).
	dir := s.cwdRoot()
	if _, err := st.Take(s.id, name, dir); err != nil {
		s.m.opts.Logger.Warn("snapshot failed", "session", s.id, "turn", turn, "err", err)
	}
}

// cwdRoot is the session's folder (its recorded cwd, not where the shell
// went since): what the snapshots cover.
func (s *Session) cwdRoot() string {
	var cwd string
	s.w.View(func(d *session.Document) { cwd = d.Cwd })
	if cwd == "" {
		cwd = s.m.opts.DefaultCwd
	}
	return cwd
}

// turnRef is a turn's starting message and where it is.
type turnRef struct {
	id     string
	thread int
	index  int
	undone bool
}

// snapshots is the store of undo's snapshots, nil while the settings
// turn undo off (read at each use: a change applies to the next turn).
func (m *Manager) snapshots() *snapshot.Store {
	if !m.settings().Undoes() {
		return nil
	}
	return m.opts.Snapshots
}

// turns lists the session's turns that have a before snapshot, in order.
// A message a compaction carried into a later thread is counted where it
// first was: that is where its undone mark goes, and the copy the latest
// thread carries stays as the compaction left it (files only).
func (s *Session) turns() []turnRef {
	st := s.m.opts.Snapshots
	var refs []turnRef
	seenIDs := map[string]bool{}
	s.w.View(func(d *session.Document) {
		for ti, t := range d.Threads {
			for mi, m := range t.Messages {
				if m.Role != "user" || seenIDs[m.ID] || !st.Has(s.id, beforeName(m.ID)) {
					continue
				}
				seenIDs[m.ID] = true
				refs = append(refs, turnRef{id: m.ID, thread: ti, index: mi, undone: m.Undone})
			}
		}
	})
	return refs
}

// turnMessages are the IDs of turn r's messages: its own and those after
// it in its thread up to the next turn's, and whether the thread is the
// latest, with the turn's first words.
func (s *Session) turnMessages(r turnRef, starts map[string]bool) (ids []string, latest bool, text string) {
	s.w.View(func(d *session.Document) {
		latest = r.thread == len(d.Threads)-1
		msgs := d.Threads[r.thread].Messages
		for i := r.index; i < len(msgs); i++ {
			if i > r.index && starts[msgs[i].ID] {
				break
			}
			ids = append(ids, msgs[i].ID)
		}
		for _, b := range msgs[r.index].Content {
			if b.Type == session.BlockText && text == "" {
				text = b.Text
			}
		}
	})
	if rs := []rune(text); len(rs) > 80 {
		text = string(rs[:80]) + "…"
	}
	return ids, latest, text
}

// pick is the turn an undo (latest kept) or a redo (earliest undone after
// the last kept) would take.
func pick(refs []turnRef, redo bool) (turnRef, bool) {
	if !redo {
		for i := len(refs) - 1; i >= 0; i-- {
			if !refs[i].undone {
				return refs[i], true
			}
		}
		return turnRef{}, false
	}
	var cand turnRef
	found := false
	for _, r := range refs {
		switch {
		case !r.undone:
			found = false
		case !found:
			cand, found = r, true
		}
	}
	return cand, found
}

// PlanUndo says what /undo would do now, without doing it: the turn, the
// files restored, created or deleted (those changed by hand since the turn
// named), and its messages.
func (s *Session) PlanUndo() (*UndoPlan, error) { return s.plan(false) }

// PlanRedo says what /redo would do now.
func (s *Session) PlanRedo() (*UndoPlan, error) { return s.plan(true) }

func (s *Session) plan(redo bool) (*UndoPlan, error) {
	// A running turn holds the folder's snapshots (snapMu) until it ends:
	// the plan would wait for all of it, and then be of a folder the turn
	// is still changing. Say so at once instead.
	s.mu.Lock()
	running := s.slot != nil
	s.mu.Unlock()
	if running {
		return nil, errUndoWhileRunning
	}
	p, target, now, err := s.planFull(redo)
	if err != nil {
		return nil, err
	}
	// What would stop the restore halfway is said now, before the card.
	if err := s.m.opts.Snapshots.Check(target, now); err != nil {
		return nil, err
	}
	return p, nil
}

// errUndoWhileRunning is an undo, redo or its plan asked for while a turn
// (or a compaction) runs.
var errUndoWhileRunning = fmt.Errorf("%w: undo and redo wait until it ends (or stop it first)", ErrTurnRunning)

// planFull is plan with the manifests it compared: the target to restore
// and the folder now.
func (s *Session) planFull(redo bool) (*UndoPlan, *snapshot.Manifest, *snapshot.Manifest, error) {
	st := s.m.snapshots()
	if st == nil {
		return nil, nil, nil, ErrUndoOff
	}
	// The snapshots of a turn that just ended may still be being taken:
	// plan with them, and keep the next turn's from starting meanwhile.
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	refs := s.turns()
	r, ok := pick(refs, redo)
	if !ok {
		if redo {
			return nil, nil, nil, ErrNothingToRedo
		}
		return nil, nil, nil, ErrNothingToUndo
	}
	starts := make(map[string]bool, len(refs))
	for _, x := range refs {
		starts[x.id] = true
	}
	ids, latest, text := s.turnMessages(r, starts)
	before, err := st.Load(s.id, beforeName(r.id))
	if err != nil {
		// A folder past the limits says so (snapshot.TooLargeError).
		return nil, nil, nil, fmt.Errorf("cannot undo or redo %q: %w", text, err)
	}
	after, aerr := st.Load(s.id, afterName(r.id))
	if aerr != nil && !errors.Is(aerr, snapshot.ErrNotFound) {
		return nil, nil, nil, fmt.Errorf("cannot undo or redo %q: the snapshot after it: %w", text, aerr)
	}
	target := before
	if redo {
		if aerr != nil {
			return nil, nil, nil, fmt.Errorf("%w: the turn has no snapshot after it (it did not end)", ErrNothingToRedo)
		}
		target = after
	}
	now, err := st.Scan(s.id, target.Dir)
	if err != nil {
		return nil, nil, nil, err
	}
	p := &UndoPlan{Turn: r.id, Redo: redo, Messages: ids, FilesOnly: !latest, Text: text, Files: []UndoFile{}, thread: r.thread}
	for _, c := range snapshot.Compare(now, target) {
		f := UndoFile{Path: c.Path}
		switch c.Kind {
		case snapshot.Removed:
			f.Action = ActionDelete
		case snapshot.Added:
			f.Action = ActionCreate
		default:
			f.Action = ActionRestore
		}
		// Changed by hand: the file now is not what the turn left (for
		// an undo) or what was there before it (for a redo).
		ref := after
		if redo {
			ref = before
		}
		if ref != nil {
			f.ByHand = differs(now, ref, c.Path)
		}
		p.Files = append(p.Files, f)
	}
	return p, target, now, nil
}

func differs(a, b *snapshot.Manifest, p string) bool {
	ea, oka := a.Files[p]
	eb, okb := b.Files[p]
	return oka != okb || ea.SHA256 != eb.SHA256 || ea.Mode != eb.Mode
}

// Undo takes back turn (the one PlanUndo named): its files go back to
// the snapshot before it and its messages are marked undone.
func (s *Session) Undo(turn string) (*UndoPlan, error) { return s.apply(turn, false) }

// Redo brings back turn (the one PlanRedo named).
func (s *Session) Redo(turn string) (*UndoPlan, error) { return s.apply(turn, true) }

func (s *Session) apply(turn string, redo bool) (*UndoPlan, error) {
	s.mu.Lock()
	if err := s.refuseLocked(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	if s.slot != nil {
		s.mu.Unlock()
		return nil, ErrTurnRunning
	}
	// Held through the change: a turn cannot start meanwhile.
	defer s.mu.Unlock()
	p, target, now, err := s.planFull(redo)
	if err != nil {
		return nil, err
	}
	if turn != "" && p.Turn != turn {
		return nil, ErrUndoStale
	}
	// Restore checks the folder's shape first and changes nothing when
	// it cannot be done whole (snapshot.ConflictError).
	if _, err := s.m.opts.Snapshots.Restore(target, now); err != nil {
		return nil, err
	}
	if err := s.w.SetUndone(p.thread, p.Messages, !redo); err != nil {
		return nil, fmt.Errorf("mark turn undone: %w", err)
	}
	s.publish(event.TurnUndone{Turn: p.Turn, Messages: p.Messages, Undone: !redo})
	return p, nil
}

// DiffFile is one file of /diff.
type DiffFile struct {
	Path    string `json:"path"`
	Kind    string `json:"kind"` // snapshot.Added, Removed, Modified
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Binary  bool   `json:"binary,omitzero"`
	Diff    string `json:"diff"`
}

// Diff is what changed in the folder since the session's first turn
// (since "first") or since the latest turn began ("last"), compared with
// the files as they are now, limited to path (a file or folder; "" all).
// A denied path is refused, and no denied file is ever in it: the
// snapshots hold none, and the folder now is read under the same rule.
func (s *Session) Diff(since, path string) ([]DiffFile, error) {
	st := s.m.snapshots()
	if st == nil {
		return nil, ErrUndoOff
	}
	root := s.cwdRoot()
	if path != "" {
		rel, err := s.diffPath(root, path)
		if err != nil {
			return nil, err
		}
		path = rel
	}
	refs := s.turns()
	var kept []turnRef
	for _, r := range refs {
		if !r.undone {
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 {
		return []DiffFile{}, nil
	}
	r := kept[0]
	if since == "last" {
		r = kept[len(kept)-1]
	}
	base, err := st.Load(s.id, beforeName(r.id))
	if err != nil {
		return nil, fmt.Errorf("cannot show the changes: %w", err)
	}
	now, err := st.Scan(s.id, base.Dir)
	if err != nil {
		return nil, fmt.Errorf("cannot show the changes: %w", err)
	}
	dir, err := os.OpenRoot(base.Dir)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	out := []DiffFile{}
	for _, c := range snapshot.Under(snapshot.Compare(base, now), path) {
		f, err := diffFile(st, dir, c)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// diffPath is the path /diff was asked for, relative to the session's
// folder root, or why it is refused: a denied path (a .env file, ~/.ssh,
// myco's data) is refused as read_file refuses it.
func (s *Session) diffPath(root, p string) (string, error) {
	home, _ := os.UserHomeDir()
	abs, err := tools.AbsPath(root, home, p)
	if err != nil {
		return "", err
	}
	if _, err := s.m.denied().Resolve(abs); err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("%s is outside the session's folder %s: %w", p, root, ErrOutsideFolder)
	}
	return rel, nil
}

// diffFile is one change as /diff shows it: the snapshot's contents
// against the file now, read beneath the folder (os.Root) and never
// through a link (a link's contents are its target's name, as stored).
func diffFile(st *snapshot.Store, dir *os.Root, c snapshot.Change) (DiffFile, error) {
	f := DiffFile{Path: c.Path, Kind: c.Kind}
	var old, cur []byte
	var err error
	if c.Before != nil {
		if old, err = st.Blob(c.Before.SHA256); err != nil {
			return f, err
		}
	}
	if c.After != nil {
		cur = readNow(dir, c.Path)
	}
	if bytes.IndexByte(old, 0) >= 0 || bytes.IndexByte(cur, 0) >= 0 {
		f.Binary = true
	} else {
		f.Diff = tools.Unified(c.Path, string(old), string(cur), c.Kind == snapshot.Added)
		f.Added, f.Removed = tools.DiffStat(f.Diff)
	}
	return f, nil
}

// readNow reads rel as a snapshot stores it: a link's target, a file's
// bytes (up to snapshot.MaxFile); nothing when it is gone.
func readNow(dir *os.Root, rel string) []byte {
	fi, err := dir.Lstat(rel)
	if err != nil {
		return nil
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		to, _ := dir.Readlink(rel)
		return []byte(to)
	}
	f, err := dir.Open(rel)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, snapshot.MaxFile))
	return b
}
