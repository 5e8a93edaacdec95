package session_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myco/session"
)

const forkParentID = "0193c7b2-0000-7000-8000-0000000000f1"

func TestFork(t *testing.T) {
	tests := []struct {
		name    string
		opts    session.ForkOptions
		want    int    // messages kept of the latest thread
		wantErr string // in the error; it also satisfies ErrForkPoint
	}{
		{name: "all turns", opts: session.ForkOptions{ByTurns: true, KeepTurns: 4}, want: 12},
		{name: "two turns", opts: session.ForkOptions{ByTurns: true, KeepTurns: 2}, want: 6},
		{name: "no turn", opts: session.ForkOptions{ByTurns: true, KeepTurns: 0}, want: 0},
		{name: "too many turns", opts: session.ForkOptions{ByTurns: true, KeepTurns: 7}, wantErr: "the nearest is 4"},
		{name: "negative turns", opts: session.ForkOptions{ByTurns: true, KeepTurns: -1}, wantErr: "the nearest is 0"},
		{name: "at a person's message keeps its turn", opts: session.ForkOptions{At: "msg_000001_u"}, want: 6},
		{name: "at a tool call keeps its outcome", opts: session.ForkOptions{At: "msg_000001_a"}, want: 6},
		{name: "at the last message", opts: session.ForkOptions{At: "msg_000003_t"}, want: 12},
		{name: "at a message elsewhere", opts: session.ForkOptions{At: "nope"}, wantErr: `message "nope" is not in the latest thread`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, dir := openStore(t, session.Options{})
			parent := realisticDoc(forkParentID, 4, 200)
			parent.Links = []session.Link{{URL: "https://example.com"}}
			parent.Think, parent.Personality, parent.Mode = "high", "terse", "plan"
			parent.Todo = []session.TodoItem{{Text: "Read the code", State: "done"}}
			parent.MCPOff = []string{"web"}
			if err := s.Save(parent); err != nil {
				t.Fatal(err)
			}
			before := readFile(t, filepath.Join(dir, forkParentID+".json"))
			fork, err := s.Fork(forkParentID, tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, session.ErrForkPoint) {
					t.Fatalf("err = %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, readFile(t, filepath.Join(dir, forkParentID+".json"))) {
				t.Error("forking wrote the parent")
			}
			loaded, err := s.Load(fork.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(loaded.Threads[0].Messages); got != tt.want {
				t.Errorf("kept %d messages, want %d", got, tt.want)
			}
			p := loaded.Parent
			if p == nil || p.Session != forkParentID || p.Title != parent.Title {
				t.Fatalf("parent = %+v", p)
			}
			if tt.want > 0 && p.Message != loaded.Threads[0].Messages[tt.want-1].ID {
				t.Errorf("fork point %q, want the last kept message", p.Message)
			}
			if loaded.Title != "" || loaded.ID == forkParentID || loaded.Cwd != parent.Cwd || len(loaded.Links) != 1 {
				t.Errorf("fork header: title %q id %s cwd %q links %v", loaded.Title, loaded.ID, loaded.Cwd, loaded.Links)
			}
			if loaded.Think != "high" || loaded.Personality != "terse" || loaded.Mode != "plan" {
				t.Errorf("fork think %q personality %q mode %q, want the parent's high, terse and plan", loaded.Think, loaded.Personality, loaded.Mode)
			}
			if len(loaded.MCPOff) != 1 || loaded.MCPOff[0] != "web" {
				t.Errorf("fork mcp_off %v, want the parent's [web]", loaded.MCPOff)
			}
			// The checklist goes only with the whole conversation.
			if head := tt.want == 12; (len(loaded.Todo) == 1) != head {
				t.Errorf("fork todo %v, want the parent's only when forked at the head", loaded.Todo)
			}
		})
	}
}

// TestForkRunningSession: a session whose writer holds unfolded changes
// and a tool call still running forks with everything said so far, minus
// the unfinished round; the parent's files are not touched.
func TestForkRunningSession(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	if err := s.Save(realisticDoc(forkParentID, 2, 100)); err != nil {
		t.Fatal(err)
	}
	w := openWriter(t, s, forkParentID)
	question := textMessage("q", "user", "and now?")
	question.Human = true
	if err := w.Append(question); err != nil {
		t.Fatal(err)
	}
	running := toolUse("a", "toolu_running")
	if err := w.Append(running); err != nil {
		t.Fatal(err)
	}
	journal := readFile(t, filepath.Join(dir, forkParentID+".journal"))
	fork, err := s.Fork(forkParentID, session.ForkOptions{At: "a"})
	if err != nil {
		t.Fatal(err)
	}
	msgs := fork.Threads[0].Messages
	if last := msgs[len(msgs)-1]; last.ID != "q" || len(msgs) != 7 {
		t.Errorf("fork ends with %q after %d messages, want the question after 7", last.ID, len(msgs))
	}
	if !bytes.Equal(journal, readFile(t, filepath.Join(dir, forkParentID+".journal"))) {
		t.Error("forking wrote the parent's journal")
	}
	// The parent goes on.
	if err := w.Append(textMessage("r", "user", "result")); err != nil {
		t.Fatal(err)
	}
}

func TestForkListsItsParent(t *testing.T) {
	s, _ := openStore(t, session.Options{})
	if err := s.Save(realisticDoc(forkParentID, 1, 50)); err != nil {
		t.Fatal(err)
	}
	fork, err := s.Fork(forkParentID, session.ForkOptions{ByTurns: true, KeepTurns: 1})
	if err != nil {
		t.Fatal(err)
	}
	sums, err := s.List(session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sum := range sums {
		if sum.ID == fork.ID && (sum.Parent != forkParentID || !strings.HasPrefix(sum.ParentTitle, "Refactor the store")) {
			t.Errorf("fork listed with parent %q %q", sum.Parent, sum.ParentTitle)
		}
	}
	if id, err := s.Resolve(session.LastSession); err != nil || id != fork.ID {
		t.Errorf("Resolve(@last) = %q, %v; want the fork %s", id, err, fork.ID)
	}
}

func TestResolveLastWithoutSessions(t *testing.T) {
	s, _ := openStore(t, session.Options{})
	if _, err := s.Resolve(session.LastSession); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
}

func TestDelete(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	if err := s.Save(newDoc(forkParentID, t0, 1, 2)); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(forkParentID); !errors.Is(err, session.ErrNotArchived) {
		t.Fatalf("deleting an active session: %v, want ErrNotArchived", err)
	}
	if err := s.Archive(forkParentID); err != nil {
		t.Fatal(err)
	}
	// Another process has it open: refused, nothing removed.
	c := startLockChild(t, dir, "http://127.0.0.1:1", forkParentID)
	var locked *session.LockedError
	if err := s.Delete(forkParentID); !errors.As(err, &locked) {
		t.Fatalf("deleting a session another process holds: %v, want *LockedError", err)
	}
	c.kill()
	if err := s.Delete(forkParentID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(forkParentID); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Load after Delete: %v, want ErrNotFound", err)
	}
	if sums, _ := s.List(session.ListOptions{Archived: true}); len(sums) != 0 {
		t.Errorf("archived listing still has %v", sums)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*", forkParentID+"*"))
	more, _ := filepath.Glob(filepath.Join(dir, forkParentID+"*"))
	if len(left)+len(more) > 0 {
		t.Errorf("files left: %v %v", left, more)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}
