package tools

import (
	"fmt"
	"strings"

	// A maintained copy of the Myers diff gopls uses
	// (golang.org/x/tools/internal/diff), exported: line-based, three lines
	// of context, "\ No newline at end of file" where it applies. The other
	// candidate, pmezard/go-difflib, is archived and unreleased since 2016.
	udiff "github.com/aymanbagabas/go-udiff"
)

// DiffMax bounds the diff shown for approval and kept in the history; a
// longer one is cut at a line with a note saying how much was left out.
const DiffMax = 256 << 10

// Unified is the unified diff that turns old into new, both labelled path
// (a new file's old side is /dev/null); "" when they are equal.
func Unified(path, old, new string, created bool) string {
	from := path
	if created {
		from = "/dev/null"
	}
	return capDiff(udiff.Unified(from, path, old, new))
}

func capDiff(d string) string {
	if len(d) <= DiffMax {
		return d
	}
	cut := strings.LastIndexByte(d[:DiffMax], '\n') + 1
	rest := d[cut:]
	return d[:cut] + fmt.Sprintf("\\ [diff cut here: %d more lines (%d bytes) not shown]\n", strings.Count(rest, "\n"), len(rest))
}

// DiffStat counts the lines a unified diff of one file adds and removes.
// The file header comes before the first hunk: after it, a line of "---"
// is a removed line that began with "--".
func DiffStat(diff string) (added, removed int) {
	inHunks := false
	for line := range strings.Lines(diff) {
		switch {
		case strings.HasPrefix(line, "@@"):
			inHunks = true
		case !inHunks:
		case strings.HasPrefix(line, "+"):
			added++
		case strings.HasPrefix(line, "-"):
			removed++
		}
	}
	return added, removed
}
