package main

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testList is a list as benchmarks.txt writes it.
const testList = `# comment
startup   -            -
turn-500  ./server/    ^BenchmarkTurnOverheadAt500$  -benchtime=1x
search    ./session/   ^BenchmarkSearch$/^1GB$       -benchtime=3x MYCO_BENCH_1GB=1
list      ./server/    ^BenchmarkListSessions$
`

func TestReadList(t *testing.T) {
	got, err := readList(strings.NewReader(testList))
	if err != nil {
		t.Fatal(err)
	}
	want := []entry{
		{row: "startup"},
		{row: "turn-500", pkg: "./server/", regex: "^BenchmarkTurnOverheadAt500$", flags: []string{"-benchtime=1x"}},
		{row: "search", pkg: "./session/", regex: "^BenchmarkSearch$/^1GB$", flags: []string{"-benchtime=3x"}, env: []string{"MYCO_BENCH_1GB=1"}},
		{row: "list", pkg: "./server/", regex: "^BenchmarkListSessions$"},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(entry{})); diff != "" {
		t.Errorf("readList (-want +got):\n%s", diff)
	}
}

func TestReadListRejects(t *testing.T) {
	for _, line := range []string{"row ./server/", "row ./server/ ^Bench( ", "row ./server/ ^B$ junk"} {
		if _, err := readList(strings.NewReader(line)); err == nil {
			t.Errorf("readList(%q): no error", line)
		}
	}
}

// TestMatches checks that a benchstat name finds the line that ran it, a
// slash-separated level at a time, in its own package only.
func TestMatches(t *testing.T) {
	list, err := readList(strings.NewReader(testList))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ pkg, name, want string }{
		{"myco/server", "TurnOverheadAt500-2", "turn-500"},
		{"myco/server", "TurnOverheadAt500-16", "turn-500"},
		{"myco/session", "TurnOverheadAt500-2", ""},
		{"myco/session", "Search/1GB-2", "search"},
		{"myco/session", "Search/100MB-2", ""},
		{"myco/session", "SearchGroups/1GB-2", ""},
		{"myco/server", "ListSessions/10000/unchanged-2", "list"},
	}
	for _, tt := range tests {
		if got := rowOf(list, change{pkg: tt.pkg, name: tt.name}); got != tt.want {
			t.Errorf("rowOf(%s %s) = %q, want %q", tt.pkg, tt.name, got, tt.want)
		}
	}
}

// TestSummary reads benchstat's CSV of testdata/base.txt against
// testdata/new.txt (regenerate with: cd bench/testdata && go tool
// -modfile=../../tools/go.mod benchstat -ignore cpu -format csv
// base=base.txt new=new.txt > compare.csv): the overhead doubled (worse),
// the search's throughput halved (worse, though the figure fell), the
// rest is the same or noise.
func TestSummary(t *testing.T) {
	data, err := os.ReadFile("testdata/compare.csv")
	if err != nil {
		t.Fatal(err)
	}
	changes, err := parseChanges(data)
	if err != nil {
		t.Fatal(err)
	}
	list, err := readList(strings.NewReader(testList))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	summarize(&b, list, changes, []string{"list"}, 5)
	want := `Rows worse than the baseline (by 5% or more, p < 0.05):
WORSE  turn-500      TurnOverheadAt500-2 last50-overhead-ms: 10.05 → 20.05 (+99.50%, p=0.002 n=6)
WORSE  search        Search/1GB-2 B/s: 2.0005e+09 → 1.003e+09 (-49.86%, p=0.004 n=6)
FAILED list          its benchmark did not run to the end (see above)
NOT MEASURED startup: no benchmark in bench/benchmarks.txt yet
NOT COMPARED list: the baseline or this run has no figure for it
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	// A worse figure below the threshold is not reported.
	b.Reset()
	summarize(&b, list, changes, nil, 100)
	if strings.Contains(b.String(), "WORSE") {
		t.Errorf("at 100%%, still reported:\n%s", b.String())
	}
}

// TestMachineNote: the note appears only when the floor moved by a
// quarter or more.
func TestMachineNote(t *testing.T) {
	floor := func(old, cur string) []change {
		return []change{{name: "StartupFloor-2", unit: "sec/op", old: old, new: cur}}
	}
	tests := []struct {
		name    string
		changes []change
		want    string // in the note; "" for no note
	}{
		{"same machine", floor("0.046", "0.044"), ""},
		{"a faster machine", floor("0.04597", "0.008864"), "took 8.9 ms here, 46.0 ms in the baseline (0.19x)"},
		{"a slower machine", floor("0.010", "0.030"), "(3.00x)"},
		{"no floor measured", nil, ""},
		{"the floor in another unit", []change{{name: "StartupFloor-2", unit: "B/op", old: "1", new: "9"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := machineNote(tt.changes)
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("machineNote = %q, want one holding %q", got, tt.want)
			}
		})
	}
}

// TestBaselineTakesEveryRow: a baseline of some rows would drop the
// others' figures, so baseline refuses -rows before running anything.
func TestBaselineTakesEveryRow(t *testing.T) {
	var stderr strings.Builder
	err := run(t.Context(), []string{"baseline", "-rows", "burst"}, io.Discard, &stderr)
	if err == nil || !strings.Contains(err.Error(), "every row") {
		t.Errorf("baseline -rows burst = %v, want a refusal", err)
	}
}
