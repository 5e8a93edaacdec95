package web_test

import (
	"strings"
	"testing"

	"myco/web"
)

// twoHunks is the diff of an edit of lines 2 and 18 of a 20-line file.
const twoHunks = "--- /w/h.txt\n+++ /w/h.txt\n" +
	"@@ -1,5 +1,5 @@\n a1\n-a2\n+TWO\n a3\n a4\n a5\n" +
	"@@ -15,6 +15,7 @@\n a15\n a16\n a17\n-a18\n+EIGHTEEN\n+MORE\n a19\n a20\n"

func TestApprovalCardOffersEachHunk(t *testing.T) {
	tests := []struct {
		name  string
		diff  string
		hunks []string // each hunk's label and where, in order; none: the whole diff as one
	}{
		{name: "two hunks, each its own toggle", diff: twoHunks,
			hunks: []string{"Accept hunk 1 of 2|lines 1–5 · +1 −1", "Accept hunk 2 of 2|lines 15–20 · +2 −1"}},
		{name: "one hunk is the whole change", diff: "--- a\n+++ a\n@@ -1 +1 @@\n-red\n+blue\n"},
		{name: "a cut diff is taken whole", diff: twoHunks + "\\ [diff cut here: 9 more lines (99 bytes) not shown]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			html, err := web.ApprovalHTML("toolu_1", "edit_file", []byte(`{"path":"/w/h.txt"}`), tt.diff)
			if err != nil {
				t.Fatal(err)
			}
			d := parseHTML(t, html)
			assertCSPClean(t, d)
			var got []string
			for i, h := range byTestID(d, "approval-hunk").EachIter() {
				box := h.Find("input[type=checkbox][data-hunk-accept]")
				v, _ := box.Attr("value")
				_, checked := box.Attr("checked")
				if idx, _ := h.Attr("data-hunk"); v != idx || idx != string(rune('0'+i)) || !checked {
					t.Errorf("hunk %d: data-hunk %q, value %q, checked %v", i, idx, v, checked)
				}
				got = append(got, h.Find("label span").First().Text()+"|"+h.Find(".hunk-where").Text())
			}
			if strings.Join(got, ",") != strings.Join(tt.hunks, ",") {
				t.Errorf("hunks %q, want %q", got, tt.hunks)
			}
			// Every line of the diff shows, once, in the card.
			want := strings.Count(tt.diff, "\n")
			if n := byTestID(d, "diff").Find(".line").Length(); n != want {
				t.Errorf("%d lines shown, want %d", n, want)
			}
			status := byTestID(d, "approval-hunks-status")
			if len(tt.hunks) > 0 && status.Text() != "All 2 hunks accepted" || len(tt.hunks) == 0 && status.Length() != 0 {
				t.Errorf("status %q", status.Text())
			}
		})
	}
}

// TestApprovalHunksGolden pins the card of a change of two hunks.
func TestApprovalHunksGolden(t *testing.T) {
	html, err := web.ApprovalHTML("toolu_7", "edit_file", []byte(`{"path":"/w/h.txt","edits":[]}`), twoHunks)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "approval-hunks", html)
}
