package web

import (
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"

	"myco/session"
)

// DiffFold is how many lines of a diff show before "Show all".
const DiffFold = 40

// Kinds of diff lines; each is a CSS class.
const (
	DiffFile    = "file"    // --- and +++ headers
	DiffHunk    = "hunk"    // @@ … @@
	DiffAdd     = "add"     // +
	DiffDel     = "del"     // -
	DiffContext = "context" // unchanged
	DiffNote    = "note"    // \ No newline at end of file, a cut
)

// DiffView is a unified diff as the page shows it: each line marked by
// kind, a long one folded after DiffFold lines.
type DiffView struct {
	Lines          []DiffLine
	Added, Removed int
}

// DiffLine is one line of a diff, as it was.
type DiffLine struct {
	Kind string
	Text string
}

// NewDiffView returns the view of a unified diff of one file, or nil when
// there is none.
func NewDiffView(diff string) *DiffView {
	if diff == "" {
		return nil
	}
	d := &DiffView{}
	inHunks := false
	for _, line := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		kind := DiffContext
		switch {
		case strings.HasPrefix(line, "@@"):
			kind, inHunks = DiffHunk, true
		case !inHunks:
			kind = DiffFile
		case strings.HasPrefix(line, "+"):
			kind = DiffAdd
			d.Added++
		case strings.HasPrefix(line, "-"):
			kind = DiffDel
			d.Removed++
		case strings.HasPrefix(line, `\`):
			kind = DiffNote
		}
		d.Lines = append(d.Lines, DiffLine{Kind: kind, Text: line})
	}
	return d
}

// Head is what shows at once.
func (d *DiffView) Head() []DiffLine { return d.Lines[:min(len(d.Lines), DiffFold)] }

// Rest is what "Show all" unfolds.
func (d *DiffView) Rest() []DiffLine { return d.Lines[min(len(d.Lines), DiffFold):] }

// Folded reports whether part of the diff waits behind "Show all".
func (d *DiffView) Folded() bool { return len(d.Lines) > DiffFold }

// Stat is the lines added and removed, as "+3 −1".
func (d *DiffView) Stat() string {
	return "+" + strconv.Itoa(d.Added) + " −" + strconv.Itoa(d.Removed)
}

// ShowAllText labels the control that unfolds the diff.
func (d *DiffView) ShowAllText() string {
	return "Show all " + strconv.Itoa(len(d.Lines)) + " lines (" + strconv.Itoa(len(d.Lines)-DiffFold) + " more)"
}

// resultDiff is the diff a file tool recorded beside its result: the
// "diff" member of the tool_result block.
func resultDiff(b session.Block) string {
	if b.Unknown.Kind() != '{' {
		return ""
	}
	var extra struct {
		Diff string `json:"diff"`
	}
	if json.Unmarshal(b.Unknown, &extra) != nil {
		return ""
	}
	return extra.Diff
}
