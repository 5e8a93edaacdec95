package live

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"myco/server/event"
	"myco/server/tools"
	"myco/session"
	"myco/snapshot"
)

// newUndoEnv is a fake-model env with snapshots on and bash allowed.
func newUndoEnv(t *testing.T) *fileEnv {
	t.Helper()
	e, _ := newGoalEnv(t)
	e.opts.Snapshots = snapshot.Open(filepath.Join(e.profile, "snapshots"), tools.DeniedRule(e.opts.Settings.Current().DeniedPaths, e.opts.ProfileDir))
	allowBash(&e.opts)
	return e
}

// turn submits text and waits for the turn to end.
func turn(t *testing.T, e *fileEnv, s *Session, text string) {
	t.Helper()
	if _, _, err := s.Submit(text, nil, false); err != nil {
		t.Fatal(err)
	}
	e.events.next(t, "turn.end")
}

func exists(e *fileEnv, name string) bool {
	_, err := os.Stat(filepath.Join(e.work, name))
	return err == nil
}

// A turn whose bash command edits a file, creates one, deletes one and
// appends to another; then a hand edit after it.
const changingTurn = `change things [[steps: tool:bash {"command":"echo edited > edit.txt && echo new > made.txt && rm gone.txt && echo more >> cmd.txt"} ;; say:done]]`

func TestUndoRestoresFilesAndForgetsTheTurn(t *testing.T) {
	e := newUndoEnv(t)
	e.write(t, "edit.txt", "original\n")
	e.write(t, "gone.txt", "keep me\n")
	e.write(t, "cmd.txt", "line\n")
	s := e.newSession(t)
	turn(t, e, s, "first turn [[say:hello]]")
	turn(t, e, s, changingTurn)
	if !exists(e, "made.txt") || exists(e, "gone.txt") {
		t.Fatal("the turn did not change the folder")
	}
	e.write(t, "cmd.txt", "by hand\n") // after the turn

	p, err := s.PlanUndo()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range p.Files {
		got[f.Path] = f.Action
		if f.ByHand != (f.Path == "cmd.txt") {
			t.Errorf("%s by hand = %v", f.Path, f.ByHand)
		}
	}
	want := map[string]string{"edit.txt": ActionRestore, "made.txt": ActionDelete, "gone.txt": ActionCreate, "cmd.txt": ActionRestore}
	if len(got) != len(want) {
		t.Fatalf("plan files %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("plan %s = %q, want %q", k, got[k], v)
		}
	}
	if p.FilesOnly || !strings.HasPrefix(p.Text, "change things") {
		t.Errorf("plan %+v", p)
	}
	if _, err := s.Undo("not-the-turn"); !errors.Is(err, ErrUndoStale) {
		t.Fatalf("undo of another turn: %v", err)
	}
	if _, err := s.Undo(p.Turn); err != nil {
		t.Fatal(err)
	}
	// Every tab hears of it, not only the one that asked.
	if ev, ok := e.events.next(t, "turn.undone").data.(event.TurnUndone); !ok || ev.Turn != p.Turn || !ev.Undone || len(ev.Messages) != len(p.Messages) {
		t.Errorf("turn.undone event %+v, want the turn's %d messages undone", ev, len(p.Messages))
	}
	if e.read(t, "edit.txt") != "original\n" || e.read(t, "gone.txt") != "keep me\n" || e.read(t, "cmd.txt") != "line\n" || exists(e, "made.txt") {
		t.Error("files not restored")
	}
	if texts := modelTexts(s); count(texts, "change things") != 0 || count(texts, "first turn") != 1 {
		t.Errorf("model still sees the undone turn: %q", texts)
	}

	// Redo brings the turn and its files back (as the turn left them).
	r, err := s.PlanRedo()
	if err != nil || r.Turn != p.Turn {
		t.Fatalf("plan redo %+v, %v", r, err)
	}
	if _, err := s.Redo(r.Turn); err != nil {
		t.Fatal(err)
	}
	if e.read(t, "edit.txt") != "edited\n" || exists(e, "gone.txt") || !exists(e, "made.txt") || e.read(t, "cmd.txt") != "line\nmore\n" {
		t.Error("redo did not bring the files back")
	}
	if count(modelTexts(s), "change things") != 1 {
		t.Error("redo did not bring the turn back to the model")
	}
	if _, err := s.PlanRedo(); !errors.Is(err, ErrNothingToRedo) {
		t.Errorf("a second redo: %v", err)
	}

	// Undo twice goes back two turns; a restart keeps all of it.
	for range 2 {
		p, err := s.PlanUndo()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Undo(p.Turn); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.PlanUndo(); !errors.Is(err, ErrNothingToUndo) {
		t.Errorf("undo past the first turn: %v", err)
	}
	id := s.ID()
	s.m.Close()
	again := e.open(t, id)
	if texts := modelTexts(again); len(texts) != 0 {
		t.Errorf("after a restart the model sees %q", texts)
	}
	r, err = again.PlanRedo()
	if err != nil || !strings.HasPrefix(r.Text, "first turn") {
		t.Fatalf("redo after a restart: %+v, %v", r, err)
	}
	if _, err := again.Redo(r.Turn); err != nil {
		t.Fatal(err)
	}
	if texts := modelTexts(again); count(texts, "first turn") != 1 || count(texts, "change things") != 0 {
		t.Errorf("after redo of the first turn the model sees %q", texts)
	}
	var undone int
	again.w.View(func(d *session.Document) {
		for _, m := range d.Threads[0].Messages {
			if m.Undone {
				undone++
			}
		}
	})
	if undone == 0 {
		t.Error("the undone turn's messages were removed from the document; they stay marked")
	}
}

func TestUndoAfterACompactionRestoresFilesOnly(t *testing.T) {
	e := newUndoEnv(t)
	e.write(t, "edit.txt", "original\n")
	e.write(t, "gone.txt", "keep me\n")
	e.write(t, "cmd.txt", "line\n")
	s := e.newSession(t)
	turn(t, e, s, changingTurn)
	if err := s.Compact(""); err != nil {
		t.Fatal(err)
	}
	var threads int
	s.w.View(func(d *session.Document) { threads = len(d.Threads) })
	if threads != 2 {
		t.Fatalf("%d threads after compaction", threads)
	}
	p, err := s.PlanUndo()
	if err != nil {
		t.Fatal(err)
	}
	if !p.FilesOnly {
		t.Error("plan after a compaction does not say files only")
	}
	before := modelTexts(s)
	if _, err := s.Undo(p.Turn); err != nil {
		t.Fatal(err)
	}
	if e.read(t, "edit.txt") != "original\n" || !exists(e, "gone.txt") || exists(e, "made.txt") {
		t.Error("files not restored after a compaction")
	}
	if after := modelTexts(s); !slices.Equal(before, after) {
		t.Errorf("the latest thread changed: %q → %q", before, after)
	}
}

func TestDiffSinceFirstAndLast(t *testing.T) {
	e := newUndoEnv(t)
	e.write(t, "a.txt", "one\n")
	s := e.newSession(t)
	turn(t, e, s, `one [[steps: tool:bash {"command":"echo two >> a.txt"} ;; say:ok]]`)
	turn(t, e, s, `two [[steps: tool:bash {"command":"mkdir -p sub && echo b > sub/b.txt"} ;; say:ok]]`)
	e.write(t, "hand.txt", "x\n")
	all, err := s.Diff("first", "")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range all {
		paths = append(paths, f.Path)
	}
	if !slices.Equal(paths, []string{"a.txt", "hand.txt", "sub/b.txt"}) {
		t.Fatalf("diff since first: %v", paths)
	}
	if all[0].Added != 1 || all[0].Removed != 0 || !strings.Contains(all[0].Diff, "+two") {
		t.Errorf("a.txt: %+v", all[0])
	}
	last, _ := s.Diff("last", "")
	if len(last) != 2 { // sub/b.txt and hand.txt
		t.Errorf("diff last: %+v", last)
	}
	one, _ := s.Diff("first", "sub")
	if len(one) != 1 || one[0].Path != "sub/b.txt" || one[0].Kind != snapshot.Added {
		t.Errorf("diff of sub: %+v", one)
	}
}

func TestUndoOff(t *testing.T) {
	e, _ := newGoalEnv(t)
	s := e.newSession(t)
	if _, err := s.PlanUndo(); !errors.Is(err, ErrUndoOff) {
		t.Errorf("undo with no store: %v", err)
	}
}
