package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"myco/internal/atomicfile"
)

// Change is a write prepared for approval: the file as it is, what will
// replace it, and the diff between them. Apply carries it out.
type Change struct {
	Target
	Old, New string
	Created  bool   // the file does not exist yet
	Diff     string // unified, capped at DiffMax
	base     Stamp  // what Old is; zero when Created
	info     fs.FileInfo
}

// Unchanged reports whether the change would leave the file as it is.
func (c *Change) Unchanged() bool { return !c.Created && c.Old == c.New }

// PrepareWrite prepares write_file: a new file needs no read, an existing
// one must have been read (read is its stamp, nil when it was not) and be
// unchanged since.
func PrepareWrite(t Target, content string, read *Stamp) (*Change, error) {
	if len(content) > ChangeMaxBytes {
		return nil, fail(ErrTooLarge, "content is %s; write_file writes at most %s", sizeText(int64(len(content))), sizeText(ChangeMaxBytes))
	}
	cur, err := loadForChange(t, read)
	if errors.Is(err, ErrNoFile) {
		return newChange(t, "", content, true, Stamp{}, nil), nil
	}
	if err != nil {
		return nil, err
	}
	return newChange(t, cur.text, content, false, cur.stamp, cur.info), nil
}

// PrepareEdit prepares edit_file: the file must exist, have been read
// (read is its stamp, nil when it was not) and be unchanged since, and
// every edit must apply.
func PrepareEdit(t Target, edits []Edit, read *Stamp) (*Change, error) {
	cur, err := loadForChange(t, read)
	if errors.Is(err, ErrNoFile) {
		return nil, fail(ErrNoFile, "%s does not exist: create it with write_file", t.Path)
	}
	if err != nil {
		return nil, err
	}
	if !utf8.ValidString(cur.text) {
		return nil, fail(ErrNotText, "%s is not valid UTF-8: edit_file cannot match its text; change it with bash", t.Path)
	}
	out, err := ApplyEdits(cur.text, edits)
	if err != nil {
		return nil, fmt.Errorf("%s: %w\nNo edit was applied: the file is unchanged", t.Path, err)
	}
	return newChange(t, cur.text, out, false, cur.stamp, cur.info), nil
}

func newChange(t Target, old, new string, created bool, base Stamp, info fs.FileInfo) *Change {
	return &Change{Target: t, Old: old, New: new, Created: created, Diff: Unified(t.Path, old, new, created), base: base, info: info}
}

type current struct {
	text  string
	stamp Stamp
	info  fs.FileInfo
}

// loadForChange reads the file a change replaces and checks it against
// the agent's read stamp.
func loadForChange(t Target, read *Stamp) (current, error) {
	info, err := os.Stat(t.Real)
	if err != nil {
		return current{}, statError(t, err)
	}
	if err := regular(t, info); err != nil {
		return current{}, err
	}
	if info.Size() > ChangeMaxBytes {
		return current{}, fail(ErrTooLarge, "%s is %s; the file tools change files up to %s: use bash", t.Path, sizeText(info.Size()), sizeText(ChangeMaxBytes))
	}
	data, info, err := readWhole(t)
	if err != nil {
		return current{}, err
	}
	cur := current{text: string(data), stamp: stampOf(data, info.ModTime()), info: info}
	return cur, fresh(t, cur.stamp, read)
}

func readWhole(t Target) ([]byte, fs.FileInfo, error) {
	f, info, err := openRegular(t)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, ChangeMaxBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", t.Path, err)
	}
	if len(data) > ChangeMaxBytes {
		return nil, nil, fail(ErrTooLarge, "%s grew past %s while being read", t.Path, sizeText(ChangeMaxBytes))
	}
	return data, info, nil
}

// fresh refuses to change a file the agent has not read, or that changed
// since it did: someone else may have edited it.
func fresh(t Target, cur Stamp, read *Stamp) error {
	switch {
	case read == nil:
		return fail(ErrNotRead, "%s exists and you have not read it in this session: "+
			"read it with read_file first, then make your change", t.Path)
	case !read.Same(cur):
		return fail(ErrStale, "%s changed since you read it (now %s, modified %s; you read %s): "+
			"someone else may have edited it. Read it again with read_file, then make your change against what it holds now", t.Path, sizeText(cur.Size), cur.ModTime.Format(time.TimeOnly), sizeText(read.Size))
	}
	return nil
}

// Apply writes the change atomically, keeping the file's mode (and owner,
// where the process may), and returns the new content's stamp. What is on
// disk is checked again first: the person may have taken a while to
// approve, and an editor may have saved meanwhile.
func (c *Change) Apply() (Stamp, error) {
	info, err := os.Stat(c.Real)
	switch {
	case c.Created && err == nil:
		return Stamp{}, fail(ErrStale, "%s was created by someone else while the change waited: read it, then make your change", c.Path)
	case c.Created && !errors.Is(err, fs.ErrNotExist):
		return Stamp{}, fmt.Errorf("%s: %w", c.Path, err)
	case !c.Created:
		if err != nil {
			return Stamp{}, fail(ErrStale, "%s changed while the change waited: %v", c.Path, statError(c.Target, err))
		}
		data, _, err := readWhole(c.Target)
		if err != nil {
			return Stamp{}, err
		}
		if now := stampOf(data, info.ModTime()); !now.Same(c.base) {
			return Stamp{}, fail(ErrStale, "%s changed while the change waited for approval: "+
				"read it again with read_file, then make your change", c.Path)
		}
	}
	if c.Created {
		if err := os.MkdirAll(filepath.Dir(c.Real), 0o755); err != nil {
			return Stamp{}, fmt.Errorf("create the folder of %s: %w", c.Path, err)
		}
	}
	if err := writeAtomic(c.Real, []byte(c.New), c.info); err != nil {
		return Stamp{}, fmt.Errorf("write %s: %w", c.Path, err)
	}
	after, err := os.Stat(c.Real)
	if err != nil {
		return Stamp{}, fmt.Errorf("%s: %w", c.Path, err)
	}
	return stampOf([]byte(c.New), after.ModTime()), nil
}

// Summary tells the agent what a change applied did.
func (c *Change) Summary(edits int) string {
	added, removed := DiffStat(c.Diff)
	lines := strings.Count(c.New, "\n")
	if c.New != "" && !strings.HasSuffix(c.New, "\n") {
		lines++
	}
	switch {
	case c.Created:
		return fmt.Sprintf("Created %s (%d lines, %s).", c.Path, lines, sizeText(int64(len(c.New))))
	case edits > 0:
		return fmt.Sprintf("Edited %s: %d %s applied (+%d −%d lines; %d lines now).", c.Path, edits, plural(edits, "edit"), added, removed, lines)
	}
	return fmt.Sprintf("Wrote %s (%d lines, %s; +%d −%d lines against what it held).", c.Path, lines, sizeText(int64(len(c.New))), added, removed)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// keptMode is what of a file's mode a rewrite keeps.
const keptMode = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// writeAtomic replaces path with data so that a crash leaves the old file
// or the new one (package atomicfile). old is the file replaced, nil for a
// new one: its mode is kept, and its owner when the process may set it. A
// new file is created with 0666 less the umask, as an editor would.
func writeAtomic(path string, data []byte, old fs.FileInfo) error {
	if old == nil {
		return atomicfile.Write(path, data, atomicfile.Options{Perm: 0o666})
	}
	// 0600 until the end: the data is no more readable than the old file.
	return atomicfile.Write(path, data, atomicfile.Options{Perm: 0o600, Prepare: func(f *os.File) error {
		if st, isUnix := old.Sys().(*syscall.Stat_t); isUnix && (int(st.Uid) != os.Geteuid() || int(st.Gid) != os.Getegid()) {
			_ = f.Chown(int(st.Uid), int(st.Gid)) // only root may give a file away; a group may still take
		}
		return f.Chmod(old.Mode() & keptMode)
	}})
}

// PrepareAppend prepares adding text at the end of a file the agent need
// not have read (the remember tool's memory file): the file as it is now
// is the base, so Apply still refuses when it changes before the person
// approves. A missing file is created holding head and then text.
func PrepareAppend(t Target, head, text string) (*Change, error) {
	cur, err := loadForChange(t, nil)
	switch {
	case errors.Is(err, ErrNoFile):
		return newChange(t, "", head+text, true, Stamp{}, nil), nil
	case errors.Is(err, ErrNotRead):
		// The one check skipped: the base is what is there now.
	case err != nil:
		return nil, err
	}
	if !utf8.ValidString(cur.text) {
		return nil, fail(ErrNotText, "%s is not valid UTF-8: nothing can be added to it", t.Path)
	}
	old := cur.text
	if old != "" && !strings.HasSuffix(old, "\n") {
		text = "\n" + text
	}
	if len(old)+len(text) > ChangeMaxBytes {
		return nil, fail(ErrTooLarge, "%s would pass %s", t.Path, sizeText(ChangeMaxBytes))
	}
	return newChange(t, old, old+text, false, cur.stamp, cur.info), nil
}
