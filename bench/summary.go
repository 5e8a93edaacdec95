package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
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
	if note := machineNote(changes); note != "" {
		fmt.Fprintln(w, note)
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

// machineNote says so when the stack's floor (startup-floor: the
// libraries myco links, none of myco) ran at another speed than in the
// baseline: the time rows then compare machines as much as builds. A
// baseline taken on a machine twice as slow hides a regression of 100%.
func machineNote(changes []change) string {
	for _, c := range changes {
		if c.unit != "sec/op" || !strings.HasPrefix(c.name, "StartupFloor") {
			continue
		}
		old, err1 := strconv.ParseFloat(c.old, 64)
		cur, err2 := strconv.ParseFloat(c.new, 64)
		if err1 != nil || err2 != nil || old <= 0 || cur <= 0 {
			return ""
		}
		if r := cur / old; r > 0.8 && r < 1.25 {
			return ""
		}
		return fmt.Sprintf("MACHINE the stack's floor (startup-floor) took %.1f ms here, %.1f ms in the baseline (%.2fx):\n"+
			"        time rows moved with the machine; to compare builds, take both on this one (task bench:baseline on the build before)",
			cur*1e3, old*1e3, cur/old)
	}
	return ""
}
