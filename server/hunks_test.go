package server_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReviewByHunkThroughTheModel: the model edits two places of a file,
// the person accepts the second hunk only. The file gets that change
// alone, and the tool result the model receives says which hunk was
// rejected; [] accepted is a denial the model is told of.
func TestReviewByHunkThroughTheModel(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic")
	s := cs.create("hunks")
	st := cs.stream(t, s.ID)
	file := filepath.Join(cs.dir, "h.txt")
	var orig strings.Builder
	for i := 1; i <= 20; i++ {
		orig.WriteString("line " + string(rune('a'+i-1)) + "\n")
	}
	if err := os.WriteFile(file, []byte(orig.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	editTurn := `[[steps: tool:read_file {"path":"h.txt"} ;; ` +
		`tool:edit_file {"path":"h.txt","edits":[{"old_text":"line b\n","new_text":"LINE B\n"},{"old_text":"line s\n","new_text":"LINE S\n"}]} ;; say:done]]`
	approvals := "/api/sessions/" + s.ID + "/approvals/"

	wantStatus(t, cs.send(s.ID, editTurn), http.StatusAccepted)
	evs := st.until("tool.approval")
	id := data(t, evs[len(evs)-1])["tool_use_id"].(string)
	for _, bad := range []string{`{"decision":"once","hunks":[2]}`, `{"decision":"once","hunks":[-1]}`, `{"decision":"once","hunks":"all"}`} {
		wantStatus(t, cs.do("POST", approvals+id, strings.NewReader(bad)), http.StatusBadRequest)
	}
	wantStatus(t, cs.do("POST", approvals+id, strings.NewReader(`{"decision":"once","hunks":[1]}`)), http.StatusOK)
	evs = st.until("turn.end")
	want := strings.Replace(orig.String(), "line s\n", "LINE S\n", 1)
	if got, _ := os.ReadFile(file); string(got) != want {
		t.Errorf("file is\n%s\nwant\n%s", got, want)
	}
	var out string
	for _, ev := range evs {
		if ev.name == "tool.end" {
			out = data(t, ev)["output"].(string)
		}
	}
	if !strings.Contains(out, "Applied hunk 2 of 2") {
		t.Errorf("tool.end output %q", out)
	}
	reqs := cs.fake.Requests()
	body := string(reqs[len(reqs)-1].Body)
	for _, w := range []string{"Applied hunk 2 of 2", "Hunk 1 (lines 1", "was rejected by the person", `-line b\n+LINE B\n`} {
		if !strings.Contains(body, w) {
			t.Errorf("the model's last request lacks %q: %s", w, body)
		}
	}

	// None accepted: a denial, and the model is told so.
	if err := os.WriteFile(file, []byte(orig.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, cs.send(s.ID, editTurn), http.StatusAccepted)
	evs = st.until("tool.approval")
	id = data(t, evs[len(evs)-1])["tool_use_id"].(string)
	wantStatus(t, cs.do("POST", approvals+id, strings.NewReader(`{"decision":"once","hunks":[]}`)), http.StatusOK)
	st.until("turn.end")
	if got, _ := os.ReadFile(file); string(got) != orig.String() {
		t.Errorf("file changed after no hunk was accepted: %q", got)
	}
	reqs = cs.fake.Requests()
	if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, "The person denied this change") {
		t.Errorf("the model was not told of the denial: %s", body)
	}
}
