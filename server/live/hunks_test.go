package live

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"myco/server/event"
	"myco/session"
)

// twoHunkFile is 20 lines; twoHunkEdit changes lines 2 and 18: two hunks.
const twoHunkFile = "a1\na2\na3\na4\na5\na6\na7\na8\na9\na10\na11\na12\na13\na14\na15\na16\na17\na18\na19\na20\n"

var twoHunkEdit = map[string]any{"path": "h.txt", "edits": []map[string]string{
	{"old_text": "a2\n", "new_text": "TWO\n"},
	{"old_text": "a18\n", "new_text": "EIGHTEEN\n"},
}}

// pendingEdit reads h.txt and starts the two-hunk edit, returning its
// pending approval and the channel its round ends on.
func pendingEdit(t *testing.T, e *fileEnv, s *Session) (event.ToolApproval, chan error) {
	t.Helper()
	e.write(t, "h.txt", twoHunkFile)
	wantOutcome(t, run(t, s, "read_file", map[string]any{"path": "h.txt"}), false)
	done := make(chan error, 1)
	go func() {
		done <- s.runTools(context.Background(), []session.Block{toolUse("edit_file", twoHunkEdit)})
	}()
	return e.events.next(t, "tool.approval").data.(event.ToolApproval), done
}

func resultDiff(t *testing.T, b session.Block) string {
	t.Helper()
	var extra struct{ Diff string }
	if err := json.Unmarshal(b.Unknown, &extra); err != nil {
		t.Fatalf("the result has no diff: %s (%v)", b.Unknown, err)
	}
	return extra.Diff
}

func TestHunkRejectedIsNotWrittenAndTheAgentIsTold(t *testing.T) {
	for _, decision := range []string{DecisionOnce, DecisionSession} {
		t.Run(decision, func(t *testing.T) {
			e := newFileEnv(t)
			s := e.newSession(t)
			a, done := pendingEdit(t, e, s)
			if n := strings.Count(a.Diff, "\n@@"); n != 2 {
				t.Fatalf("%d hunks in the approval's diff, want 2:\n%s", n, a.Diff)
			}
			if err := s.ApproveHunks(a.ToolUseID, decision, []int{1}); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			want := strings.Replace(twoHunkFile, "a18\n", "EIGHTEEN\n", 1)
			if got := e.read(t, "h.txt"); got != want {
				t.Errorf("on disk:\n%s\nwant:\n%s", got, want)
			}
			r := lastResult(t, s)
			text := r.ResultText()
			for _, w := range []string{"Applied hunk 2 of 2", "Hunk 1 (lines 1–5 of the file now) was rejected by the person", "-a2\n+TWO\n"} {
				if !strings.Contains(text, w) {
					t.Errorf("the result lacks %q:\n%s", w, text)
				}
			}
			if r.IsError {
				t.Error("a partly applied change is an error")
			}
			if d := resultDiff(t, r); strings.Contains(d, "TWO") || !strings.Contains(d, "+EIGHTEEN") {
				t.Errorf("the result's diff is not the one applied:\n%s", d)
			}
			// "session" still allows later changes, whole.
			if decision == DecisionSession {
				wantOutcome(t, run(t, s, "edit_file", edit("h.txt", "a3\n", "THREE\n")), false, "Edited")
			}
		})
	}
}

func TestNoHunkAcceptedIsADenial(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	a, done := pendingEdit(t, e, s)
	if err := s.ApproveHunks(a.ToolUseID, DecisionSession, []int{}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := e.read(t, "h.txt"); got != twoHunkFile {
		t.Errorf("the file changed: %q", got)
	}
	r := lastResult(t, s)
	if !r.IsError || !strings.Contains(r.ResultText(), "The person denied this change") {
		t.Errorf("result %s", r.ResultText())
	}
	// A denial allows nothing for the session.
	s.mu.Lock()
	allowed := s.allowed["edit_file"]
	s.mu.Unlock()
	if allowed {
		t.Error("no hunk accepted with 'session' allowed file changes")
	}
}

func TestBadHunksLeaveTheApprovalPending(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	a, done := pendingEdit(t, e, s)
	for _, hunks := range [][]int{{2}, {-1}, {0, 5}} {
		if err := s.ApproveHunks(a.ToolUseID, DecisionOnce, hunks); !errors.Is(err, ErrBadHunks) {
			t.Errorf("hunks %v: err = %v, want ErrBadHunks", hunks, err)
		}
	}
	// Still pending: answered whole, with duplicates folded.
	if err := s.ApproveHunks(a.ToolUseID, DecisionOnce, []int{1, 0, 1}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := e.read(t, "h.txt"); !strings.Contains(got, "TWO\n") || !strings.Contains(got, "EIGHTEEN\n") {
		t.Errorf("on disk %q", got)
	}
	if text := lastResult(t, s).ResultText(); !strings.Contains(text, "Edited") {
		t.Errorf("all hunks accepted is an ordinary edit: %s", text)
	}
}

func TestHunksOfABashCallAreRefused(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	done := make(chan toolOutcome, 1)
	go func() { done <- run(t, s, "bash", map[string]any{"command": "true"}) }()
	a := e.events.next(t, "tool.approval").data.(event.ToolApproval)
	if err := s.ApproveHunks(a.ToolUseID, DecisionOnce, []int{0}); !errors.Is(err, ErrBadHunks) {
		t.Errorf("err = %v, want ErrBadHunks", err)
	}
	if err := s.Approve(a.ToolUseID, DecisionDeny); err != nil {
		t.Fatal(err)
	}
	<-done
}

func TestHunksOverAStaleFileAreRefused(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	a, done := pendingEdit(t, e, s)
	e.write(t, "h.txt", "an editor saved this meanwhile\n")
	if err := s.ApproveHunks(a.ToolUseID, DecisionOnce, []int{0}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := e.read(t, "h.txt"); got != "an editor saved this meanwhile\n" {
		t.Errorf("on disk %q", got)
	}
	if r := lastResult(t, s); !r.IsError || !strings.Contains(r.ResultText(), "changed while the change waited") {
		t.Errorf("result %s", r.ResultText())
	}
}
