package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// entry is one line of benchmarks.txt: a benchmark behind a row of the
// table.
type entry struct {
	row   string
	pkg   string   // "./server/"; "" when the row has no benchmark yet
	regex string   // go test's -bench
	flags []string // passed to go test after the common ones
	env   []string // KEY=VALUE set for its go test
}

func (e entry) measured() bool { return e.pkg != "" }

// readList parses benchmarks.txt: blank lines and lines starting with #
// are skipped.
func readList(r io.Reader) ([]entry, error) {
	var out []entry
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		e, err := parseEntry(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

func parseEntry(line string) (entry, error) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return entry{}, fmt.Errorf("want row, package and regex, got %q", line)
	}
	e := entry{row: f[0]}
	if f[1] == "-" {
		return e, nil
	}
	if _, err := regexp.Compile(f[2]); err != nil {
		return entry{}, fmt.Errorf("regex %q: %w", f[2], err)
	}
	e.pkg, e.regex = f[1], f[2]
	for _, a := range f[3:] {
		if strings.HasPrefix(a, "-") {
			e.flags = append(e.flags, a)
		} else if strings.Contains(a, "=") {
			e.env = append(e.env, a)
		} else {
			return entry{}, fmt.Errorf("%q is neither a -flag nor KEY=VALUE", a)
		}
	}
	return e, nil
}

// rows is the table's rows in the order the list first names them.
func rows(es []entry) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range es {
		if !seen[e.row] {
			seen[e.row] = true
			out = append(out, e.row)
		}
	}
	return out
}

// matches reports whether e ran the benchmark that benchstat names name
// ("TurnOverheadAt500-2", "StreamAnswer/blocks-while-streaming-2") in the
// package pkg ("myco/server"): go test matches its -bench regex one
// slash-separated level at a time.
func (e entry) matches(pkg, name string) bool {
	if !e.measured() || !samePackage(e.pkg, pkg) {
		return false
	}
	levels := strings.Split(trimProcs("Benchmark"+name), "/")
	for i, re := range strings.Split(e.regex, "/") {
		if i >= len(levels) {
			return false
		}
		if ok, _ := regexp.MatchString(re, levels[i]); !ok {
			return false
		}
	}
	return true
}

// trimProcs drops the -GOMAXPROCS suffix benchstat keeps ("X-2").
func trimProcs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return name
	}
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' {
			return name
		}
	}
	return name[:i]
}

// samePackage reports whether the relative package path of the list
// ("./server/") names the import path of a result ("myco/server").
func samePackage(rel, importPath string) bool {
	rel = strings.Trim(strings.TrimPrefix(rel, "."), "/")
	if rel == "" {
		return !strings.Contains(importPath, "/")
	}
	return strings.HasSuffix(importPath, "/"+rel)
}
