package main

import (
	"fmt"
	"io"
)

// summarize prints, per row of the table, whether it got worse: one line
// per figure that grew by min percent or more and that benchstat finds
// unlikely to be noise, then the rows not measured.
func summarize(w io.Writer, list []entry, changes []change, failed []string, min float64) {
	fmt.Fprintf(w, "Rows worse than the baseline (by %g%% or more, p < 0.05):\n", min)
	n := 0
	for _, row := range rows(list) {
		for _, c := range changes {
			if rowOf(list, c) == row && c.worse(min) {
				fmt.Fprintf(w, "WORSE  %-13s %s %s: %s → %s (%+.2f%%, %s)\n", row, c.name, c.unit, c.old, c.new, c.delta, c.p)
				n++
			}
		}
	}
	if n == 0 {
		fmt.Fprintln(w, "none")
	}
	for _, row := range failed {
		fmt.Fprintf(w, "FAILED %-13s its benchmark did not run to the end (see above)\n", row)
	}
	for _, row := range rows(list) {
		if !rowMeasured(list, row) {
			fmt.Fprintf(w, "NOT MEASURED %s: no benchmark in %s yet\n", row, listPath)
		} else if !rowCompared(list, changes, row) {
			fmt.Fprintf(w, "NOT COMPARED %s: the baseline or this run has no figure for it\n", row)
		}
	}
}

// rowOf is the row whose benchmark c is, or "" when none of the list ran
// it.
func rowOf(list []entry, c change) string {
	for _, e := range list {
		if e.matches(c.pkg, c.name) {
			return e.row
		}
	}
	return ""
}

func rowMeasured(list []entry, row string) bool {
	for _, e := range list {
		if e.row == row && e.measured() {
			return true
		}
	}
	return false
}

func rowCompared(list []entry, changes []change, row string) bool {
	for _, c := range changes {
		if rowOf(list, c) == row {
			return true
		}
	}
	return false
}
