package lsp

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// MaxShown caps the diagnostics one result lists; the rest are counted.
const MaxShown = 50

// Format is path's diagnostics as the agent reads them: a count, then
// one line each, errors first, "line:col severity: message (source)",
// line and column from 1.
func Format(server, path string, diags []Diagnostic) string {
	if len(diags) == 0 {
		return fmt.Sprintf("%s: no diagnostics (%s reports no errors or warnings).", path, server)
	}
	sorted := slices.Clone(diags)
	slices.SortStableFunc(sorted, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(rank(a.Severity), rank(b.Severity)),
			cmp.Compare(a.Range.Start.Line, b.Range.Start.Line), cmp.Compare(a.Range.Start.Character, b.Range.Start.Character))
	})
	counts := map[int]int{}
	for _, d := range sorted {
		counts[rank(d.Severity)]++
	}
	var parts []string
	for _, s := range []int{SeverityError, SeverityWarning, SeverityInformation, SeverityHint} {
		if n := counts[s]; n > 0 {
			parts = append(parts, plural(n, severityName(s)))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s (from %s)\n", path, strings.Join(parts, ", "), server)
	for i, d := range sorted {
		if i == MaxShown {
			fmt.Fprintf(&b, "[… %d more not shown]\n", len(sorted)-MaxShown)
			break
		}
		msg := strings.Join(strings.Fields(d.Message), " ")
		fmt.Fprintf(&b, "%d:%d %s: %s", d.Range.Start.Line+1, d.Range.Start.Character+1, severityName(rank(d.Severity)), msg)
		if d.Source != "" {
			fmt.Fprintf(&b, " (%s)", d.Source)
		}
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// rank is a severity with absent taken as error.
func rank(s int) int {
	if s < SeverityError || s > SeverityHint {
		return SeverityError
	}
	return s
}

func severityName(s int) string {
	switch s {
	case SeverityWarning:
		return "warning"
	case SeverityInformation:
		return "info"
	case SeverityHint:
		return "hint"
	}
	return "error"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
