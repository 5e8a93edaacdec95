package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// change is one benchmark's figure in one unit, baseline against new, as
// benchstat's CSV gives it.
type change struct {
	pkg, name, unit string
	old, new        string  // benchstat's medians, as printed
	delta           float64 // percent, new against old
	significant     bool    // benchstat found the difference unlikely to be noise
	p               string  // "p=0.002 n=6"
}

// worse reports whether c got worse by at least minPercent: a
// significant change upward, or downward for a throughput (a unit per
// second), where more is better.
func (c change) worse(minPercent float64) bool {
	if !c.significant {
		return false
	}
	if strings.HasSuffix(c.unit, "/s") {
		return -c.delta >= minPercent
	}
	return c.delta >= minPercent
}

// parseChanges reads `benchstat -format csv base new`: per unit a table
// whose header names the unit, then one record per benchmark (name, old,
// CI, new, CI, vs base, P), and the config lines ("pkg: myco/server")
// that say which package the tables after them are of.
func parseChanges(data []byte) ([]change, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	var out []change
	var pkg, unit string
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("benchstat csv: %w", err)
		}
		switch {
		case len(rec) == 1:
			if k, v, ok := strings.Cut(rec[0], ":"); ok && k == "pkg" {
				pkg = strings.TrimSpace(v)
			}
		case rec[0] == "" && len(rec) > 1 && rec[1] != "" && len(rec) >= 7 && rec[2] == "CI":
			unit = rec[1]
		case rec[0] == "" || rec[0] == "geomean" || len(rec) < 7:
			// A file header, a geometric mean, or a benchmark only one
			// side has: nothing to compare.
		default:
			out = append(out, newChange(pkg, unit, rec))
		}
	}
}

func newChange(pkg, unit string, rec []string) change {
	c := change{pkg: pkg, name: rec[0], unit: unit, old: rec[1], new: rec[3], p: rec[6]}
	if pct, ok := strings.CutSuffix(rec[5], "%"); ok {
		if d, err := strconv.ParseFloat(pct, 64); err == nil {
			c.delta, c.significant = d, true
		}
	}
	return c
}
