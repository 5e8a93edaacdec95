package tools_test

import (
	"errors"
	"strings"
	"testing"

	"myco/server/tools"
)

// threeHunks prepares an edit of a 30-line file changing lines 3, 20 and
// 28 (replacing line 20 by two lines): three hunks, far enough apart.
func threeHunks(t *testing.T) (*tools.Change, string) {
	t.Helper()
	dir := t.TempDir()
	tg := target(t, dir, "f.txt")
	writeFile(t, tg.Real, lines(30))
	res, err := tools.ReadFile(tg, tools.ReadInput{Path: tg.Path})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := tools.PrepareEdit(tg, []tools.Edit{
		{OldText: "line 3\n", NewText: "LINE 3\n"},
		{OldText: "line 20\n", NewText: "LINE 20a\nLINE 20b\n"},
		{OldText: "line 28\n", NewText: "LINE 28\n"},
	}, &res.Stamp)
	if err != nil {
		t.Fatal(err)
	}
	return ch, tg.Real
}

func TestSelectAppliesOnlyTheAcceptedHunks(t *testing.T) {
	tests := []struct {
		name     string
		accepted []int
		want     []string // lines changed in the result
		wantNot  []string
		summary  []string // in the agent's summary; none when all applied
	}{
		{name: "nil accepts all", accepted: nil, want: []string{"LINE 3", "LINE 20b", "LINE 28"}},
		{name: "all listed", accepted: []int{2, 0, 1}, want: []string{"LINE 3", "LINE 20b", "LINE 28"}},
		{name: "the middle one rejected", accepted: []int{0, 2}, want: []string{"LINE 3", "line 20\n", "LINE 28"}, wantNot: []string{"LINE 20"},
			summary: []string{"Applied hunks 1 and 3 of 3", "Hunk 2 (lines 17–23 of the file now) was rejected", "+LINE 20a\n"}},
		{name: "the first one rejected: the others move", accepted: []int{1, 2}, want: []string{"line 3\n", "LINE 20a", "LINE 28"},
			summary: []string{"Applied hunks 2 and 3 of 3", "Hunk 1 (lines 1–6 of the file now)", "-line 3\n+LINE 3\n"}},
		{name: "the last one rejected after a hunk that added a line", accepted: []int{0, 1}, want: []string{"LINE 3", "LINE 20b", "line 28\n"},
			summary: []string{"Applied hunks 1 and 2 of 3", "Hunk 3 (lines 26–31 of the file now)", "(+3 −2 lines; 31 lines now)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, path := threeHunks(t)
			if n := ch.HunkCount(); n != 3 {
				t.Fatalf("%d hunks, want 3:\n%s", n, ch.Diff)
			}
			part, sel, err := ch.Select(tt.accepted)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(part.New, w) {
					t.Errorf("the new content lacks %q:\n%s", w, part.New)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(part.New, w) {
					t.Errorf("the new content has %q:\n%s", w, part.New)
				}
			}
			// The diff is the one applied: the rejected hunk is not in it.
			if part.Diff != tools.Unified(part.Path, part.Old, part.New, false) {
				t.Errorf("the diff is not that of the content applied:\n%s", part.Diff)
			}
			if sel.Partial() != (len(tt.summary) > 0) {
				t.Errorf("Partial() = %v", sel.Partial())
			}
			if sel.Partial() {
				sum := sel.Summary(part)
				for _, w := range tt.summary {
					if !strings.Contains(sum, w) {
						t.Errorf("the summary lacks %q:\n%s", w, sum)
					}
				}
			}
			// Applied over the same read: the stamp check still holds.
			if _, err := part.Apply(); err != nil {
				t.Fatal(err)
			}
			if got := readBack(t, path); got != part.New {
				t.Errorf("on disk %q, want %q", got, part.New)
			}
		})
	}
}

func TestSelectRefuses(t *testing.T) {
	tests := []struct {
		name     string
		accepted []int
	}{
		{"none accepted", []int{}},
		{"an index past the end", []int{0, 3}},
		{"a negative index", []int{-1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, _ := threeHunks(t)
			if _, _, err := ch.Select(tt.accepted); !errors.Is(err, tools.ErrHunks) {
				t.Errorf("err = %v, want ErrHunks", err)
			}
		})
	}
}

func TestSelectOverAStaleFileRefusesToWrite(t *testing.T) {
	ch, path := threeHunks(t)
	part, _, err := ch.Select([]int{1})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, "someone else's\n")
	if _, err := part.Apply(); !errors.Is(err, tools.ErrStale) {
		t.Errorf("err = %v, want ErrStale", err)
	}
	if got := readBack(t, path); got != "someone else's\n" {
		t.Errorf("on disk %q", got)
	}
}

func TestHunkCountOfACutDiffIsZero(t *testing.T) {
	dir := t.TempDir()
	tg := target(t, dir, "big.txt")
	big := strings.Repeat(strings.Repeat("y", 99)+"\n", 6000) // 600 KB
	ch, err := tools.PrepareWrite(tg, big, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := ch.HunkCount(); n != 0 {
		t.Errorf("HunkCount = %d of a cut diff", n)
	}
	if _, _, err := ch.Select([]int{0}); !errors.Is(err, tools.ErrHunks) {
		t.Errorf("err = %v, want ErrHunks", err)
	}
}
