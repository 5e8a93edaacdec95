package tools

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// ApplyEdits applies edits to content in order, each to the result of the
// ones before. Each old_text must occur exactly once; if one does not, the
// error says which edit failed and why, shows where the text nearly
// occurs, and nothing is applied.
func ApplyEdits(content string, edits []Edit) (string, error) {
	if len(edits) == 0 {
		return "", fail(ErrFileInput, "edits is empty: give at least one {old_text, new_text}")
	}
	out := content
	for i, e := range edits {
		next, err := applyEdit(out, e)
		if err != nil {
			which := ""
			if len(edits) > 1 {
				which = fmt.Sprintf("edit %d of %d: ", i+1, len(edits))
			}
			return "", fmt.Errorf("%s%w", which, err)
		}
		out = next
	}
	return out, nil
}

func applyEdit(content string, e Edit) (string, error) {
	switch {
	case e.OldText == "":
		return "", fail(ErrFileInput, "old_text is empty: to insert text, put a line next to it in old_text and again in new_text; "+
			"to create a file use write_file")
	case e.OldText == e.NewText:
		return "", fail(ErrFileInput, "old_text and new_text are the same: that changes nothing")
	}
	old, new := e.OldText, e.NewText
	at := occurrences(content, old, 2)
	// A model writes \n; a file may end its lines with \r\n.
	if len(at) == 0 && strings.Contains(content, "\r\n") && !strings.Contains(old, "\r") {
		old, new = toCRLF(old), toCRLF(new)
		at = occurrences(content, old, 2)
	}
	switch len(at) {
	case 1:
		return content[:at[0]] + new + content[at[0]+len(old):], nil
	case 0:
		return "", notFound(content, e.OldText)
	}
	return "", notUnique(content, old)
}

func toCRLF(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// occurrences returns the offsets where old starts in content, overlapping
// ones too, at most limit of them (all when limit is 0).
func occurrences(content, old string, limit int) []int {
	var at []int
	for from := 0; limit == 0 || len(at) < limit; {
		i := strings.Index(content[from:], old)
		if i < 0 {
			break
		}
		at = append(at, from+i)
		from += i + 1
	}
	return at
}

func lineAt(content string, offset int) int { return 1 + strings.Count(content[:offset], "\n") }

// notUnique names every line where old starts.
func notUnique(content, old string) error {
	at := occurrences(content, old, 0)
	lines := splitLines(content)
	var b strings.Builder
	fmt.Fprintf(&b, "old_text occurs %d times; it must occur once: add lines around it so that it matches one place only. It starts at:\n",
		len(at))
	var starts []int // line numbers, each once
	times := map[int]int{}
	for _, off := range at {
		n := lineAt(content, off)
		if times[n] == 0 {
			starts = append(starts, n)
		}
		times[n]++
	}
	for i, n := range starts {
		if i == 8 {
			fmt.Fprintf(&b, "… and %d more lines\n", len(starts)-8)
			break
		}
		row := numberedLine(n, lines[n-1])
		if times[n] > 1 {
			row = strings.TrimSuffix(row, "\n") + fmt.Sprintf("    (%d times on this line)\n", times[n])
		}
		b.WriteString(row)
	}
	return fail(ErrEdit, "%s", strings.TrimSuffix(b.String(), "\n"))
}

// lineNumbers is read_file's line-number prefix, which a model may copy
// into old_text by mistake.
var lineNumbers = regexp.MustCompile(`^\s*\d+\t`)

// notFound shows the places most like old, with their line numbers, so
// the agent sees what the file really holds there.
func notFound(content, old string) error {
	var b strings.Builder
	b.WriteString("old_text was not found in the file (it must match exactly, whitespace included).")
	if oldLines := splitLines(old); len(oldLines) > 0 && allMatch(oldLines, lineNumbers) {
		b.WriteString(" It seems to start its lines with the line numbers read_file shows: leave them out.")
	}
	near := nearMatches(splitLines(content), splitLines(strings.Trim(old, "\r\n")), 3)
	if len(near) == 0 {
		b.WriteString(" No similar lines are in the file: read it again.")
		return fail(ErrEdit, "%s", b.String())
	}
	if near[0].score > 0.999 {
		b.WriteString(" The first place below differs only in whitespace: copy its indentation exactly (tabs or spaces).")
	}
	b.WriteString(" The most similar places:\n")
	for _, m := range near {
		fmt.Fprintf(&b, "lines %d–%d (%d%% alike):\n", m.line, m.line+len(m.lines)-1, int(m.score*100))
		for i, l := range m.lines {
			if i == maxShownLines {
				fmt.Fprintf(&b, "       … %d more lines\n", len(m.lines)-i)
				break
			}
			b.WriteString(numberedLine(m.line+i, l))
		}
	}
	return fail(ErrEdit, "%s", strings.TrimSuffix(b.String(), "\n"))
}

// maxShownLines bounds the lines shown of one near match.
const maxShownLines = 12

func allMatch(lines []string, re *regexp.Regexp) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" && !re.MatchString(l) {
			return false
		}
	}
	return true
}

func numberedLine(n int, text string) string {
	if r := []rune(text); len(r) > 200 {
		text = string(r[:200]) + " …"
	}
	return fmt.Sprintf("%6d\t%s\n", n, text)
}

// splitLines splits s into lines without their endings.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// nearMatch is a run of file lines like the text looked for.
type nearMatch struct {
	line  int // 1-based
	lines []string
	score float64 // 0 to 1
}

// nearBudget bounds the line comparisons one search makes: a long file is
// compared on fewer lines of the text looked for.
const nearBudget = 2_000_000

// nearMatches returns up to n places in file, not overlapping, whose
// lines are most like want's, best first. Each window of len(want) lines
// scores the mean likeness of its lines to want's, line by line.
func nearMatches(file, want []string, n int) []nearMatch {
	if len(file) == 0 || len(want) == 0 {
		return nil
	}
	k := min(len(want), len(file), max(1, nearBudget/len(file)))
	probes := make([]bigrams, k)
	for j := range k {
		probes[j] = newBigrams(want[j])
	}
	windows := len(file) - min(len(want), len(file)) + 1
	scores := make([]float64, windows)
	for l, text := range file {
		b := newBigrams(text)
		for j := range k {
			if w := l - j; w >= 0 && w < windows {
				scores[w] += likeness(b, probes[j])
			}
		}
	}
	order := make([]int, windows)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	var out []nearMatch
	size := min(len(want), len(file))
	for _, w := range order {
		score := scores[w] / float64(k)
		if len(out) == n || score < 0.3 {
			break
		}
		if slices.ContainsFunc(out, func(m nearMatch) bool { return abs(m.line-1-w) < size }) {
			continue
		}
		out = append(out, nearMatch{line: w + 1, lines: file[w : w+size], score: score})
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// bigrams are the distinct pairs of adjacent characters of a line, its
// whitespace collapsed, and the collapsed line itself.
type bigrams struct {
	norm string
	set  map[[2]rune]struct{}
}

func newBigrams(line string) bigrams {
	norm := strings.Join(strings.Fields(line), " ")
	b := bigrams{norm: norm, set: map[[2]rune]struct{}{}}
	var prev rune = -1
	for _, r := range norm {
		if prev >= 0 {
			b.set[[2]rune{prev, r}] = struct{}{}
		}
		prev = r
	}
	return b
}

// likeness is 1 for lines equal but for whitespace, else the Dice
// coefficient of their bigrams.
func likeness(a, b bigrams) float64 {
	if a.norm == b.norm {
		return 1
	}
	if len(a.set) == 0 || len(b.set) == 0 {
		return 0
	}
	small, large := a.set, b.set
	if len(small) > len(large) {
		small, large = large, small
	}
	common := 0
	for k := range small {
		if _, ok := large[k]; ok {
			common++
		}
	}
	return 2 * float64(common) / float64(len(a.set)+len(b.set))
}
