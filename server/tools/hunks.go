package tools

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Review by hunk: the person may accept some hunks of a change's diff and
// reject the others. The hunks are go-udiff's own (the ones Unified
// prints, in order), and so are the edits applied: each line edit of the
// diff belongs to the hunk that shows it, and only the accepted hunks'
// edits are applied to the file as read. No second diff algorithm.

// ErrHunks is a selection of hunks that does not fit the change's diff.
var ErrHunks = errors.New("bad hunk selection")

// cutMark starts the note capDiff puts where it cut a diff: a diff cut
// short does not show all its hunks, so none can be picked in it.
const cutMark = "\\ [diff cut here"

// Hunk is one hunk of a change's diff.
type Hunk struct {
	FromLine  int    // first line it shows of the file as read, 1-based
	FromCount int    // lines it shows of the file as read (context included)
	Added     int    // lines it adds
	Removed   int    // lines it removes
	Text      string // its lines, the "@@ … @@" header first
	edits     []udiff.Edit
}

// HunkCount is how many hunks the change's diff has that the person may
// pick from: 0 when its diff was cut short (all or nothing then).
func (c *Change) HunkCount() int {
	if c.Diff == "" || strings.Contains(c.Diff, "\n"+cutMark) {
		return 0
	}
	n := 0
	for line := range strings.Lines(c.Diff) {
		if strings.HasPrefix(line, "@@") {
			n++
		}
	}
	return n
}

// Hunks splits the change into the hunks its diff shows.
func (c *Change) Hunks() ([]Hunk, error) {
	from := c.Path
	if c.Created {
		from = "/dev/null"
	}
	edits := udiff.Lines(c.Old, c.New)
	u, err := udiff.ToUnifiedDiff(from, c.Path, c.Old, edits, udiff.DefaultContextLines)
	if err != nil {
		return nil, fmt.Errorf("diff of %s: %w", c.Path, err)
	}
	hs := make([]Hunk, len(u.Hunks))
	for i, h := range u.Hunks {
		one := udiff.UnifiedDiff{From: from, To: c.Path, Hunks: []*udiff.Hunk{h}}.String()
		// Past the "---" and "+++" lines: the header and the lines.
		_, one, _ = strings.Cut(one, "\n")
		_, one, _ = strings.Cut(one, "\n")
		hs[i] = Hunk{FromLine: h.FromLine, Text: one}
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Insert:
				hs[i].Added++
			case udiff.Delete:
				hs[i].Removed++
				hs[i].FromCount++
			default:
				hs[i].FromCount++
			}
		}
	}
	// An edit belongs to the last hunk that starts at or before its
	// first line: a hunk starts at most three lines of context before
	// its first edit, and after the last line of the hunk before.
	for _, e := range edits {
		line := strings.Count(c.Old[:e.Start], "\n") + 1
		i := sort.Search(len(hs), func(i int) bool { return hs[i].FromLine > line }) - 1
		if i < 0 {
			return nil, fmt.Errorf("diff of %s: an edit at line %d is in no hunk", c.Path, line)
		}
		hs[i].edits = append(hs[i].edits, e)
	}
	return hs, nil
}

// Selection is what a review by hunk kept of a change: the hunks of its
// diff applied and the ones the person rejected, by index from 0.
type Selection struct {
	Hunks    []Hunk
	Accepted []int
	Rejected []int
}

// Partial reports whether some hunk was rejected.
func (s Selection) Partial() bool { return len(s.Rejected) > 0 }

// Select returns the change with only the hunks at accepted applied (to
// the file as read: the same base, checked again by Apply), its diff the
// one applied, and what was kept. accepted are indexes into the hunks of
// c's diff, from 0; nil accepts them all. None accepted is not a change:
// the caller denies it.
func (c *Change) Select(accepted []int) (*Change, Selection, error) {
	if accepted == nil {
		return c, Selection{}, nil
	}
	n := c.HunkCount()
	if n == 0 {
		return nil, Selection{}, fmt.Errorf("%w: the diff of %s was cut short; take the change whole or deny it", ErrHunks, c.Path)
	}
	keep := make([]bool, n)
	for _, i := range accepted {
		if i < 0 || i >= n {
			return nil, Selection{}, fmt.Errorf("%w: hunk %d: the diff of %s has hunks 0 to %d", ErrHunks, i, c.Path, n-1)
		}
		keep[i] = true
	}
	hs, err := c.Hunks()
	if err != nil {
		return nil, Selection{}, err
	}
	if len(hs) != n {
		return nil, Selection{}, fmt.Errorf("diff of %s: %d hunks, its text shows %d", c.Path, len(hs), n)
	}
	sel := Selection{Hunks: hs}
	var edits []udiff.Edit
	for i, h := range hs {
		if keep[i] {
			sel.Accepted = append(sel.Accepted, i)
			edits = append(edits, h.edits...)
		} else {
			sel.Rejected = append(sel.Rejected, i)
		}
	}
	if !sel.Partial() {
		return c, sel, nil
	}
	if len(sel.Accepted) == 0 {
		return nil, sel, fmt.Errorf("%w: no hunk accepted", ErrHunks)
	}
	out, err := udiff.Apply(c.Old, edits)
	if err != nil {
		return nil, Selection{}, fmt.Errorf("apply the accepted hunks of %s: %w", c.Path, err)
	}
	return newChange(c.Target, c.Old, out, c.Created, c.base, c.info), sel, nil
}

// maxRejectedShown bounds the text of the rejected hunks quoted back to
// the agent.
const maxRejectedShown = 16 << 10

// Summary tells the agent which hunks were applied and which the person
// rejected, quoting the rejected ones with where they are in the file now
// (the accepted hunks before one may have moved it).
func (s Selection) Summary(c *Change) string {
	var b strings.Builder
	added, removed := DiffStat(c.Diff)
	fmt.Fprintf(&b, "Applied %s of %d to %s (+%d −%d lines; %d lines now).\n",
		hunkList(s.Accepted), len(s.Hunks), c.Path, added, removed, lineCount(c.New))
	shift, shown := 0, 0
	for i, h := range s.Hunks {
		if slices.Contains(s.Accepted, i) {
			shift += h.Added - h.Removed
			continue
		}
		first := h.FromLine + shift
		fmt.Fprintf(&b, "Hunk %d (lines %d–%d of the file now) was rejected by the person and not applied; those lines hold what they held:\n",
			i+1, first, first+max(h.FromCount, 1)-1)
		if shown+len(h.Text) <= maxRejectedShown {
			b.WriteString(h.Text)
			shown += len(h.Text)
		} else {
			b.WriteString("(its diff is too long to show here)\n")
		}
	}
	b.WriteString("Do not make a rejected change again unless the person asks for it; if what was applied needs it, ask them.")
	return b.String()
}

// hunkList names hunks by number from 1: "hunk 2", "hunks 1 and 3",
// "hunks 1, 2 and 4".
func hunkList(idx []int) string {
	nums := make([]string, len(idx))
	for i, x := range idx {
		nums[i] = fmt.Sprint(x + 1)
	}
	switch len(nums) {
	case 0:
		return "no hunk"
	case 1:
		return "hunk " + nums[0]
	}
	return "hunks " + strings.Join(nums[:len(nums)-1], ", ") + " and " + nums[len(nums)-1]
}

func lineCount(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
