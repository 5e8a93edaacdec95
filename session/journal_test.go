package session_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"myco/session"
)

const journalID = "0193c7b2-0000-7000-8000-0000000000e1"

func openWriter(t testing.TB, s *session.Store, id string) *session.Writer {
	t.Helper()
	w, err := s.OpenWriter(id, session.Owner{PID: os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func toolUse(id, useID string) session.Message {
	return session.Message{ID: id, Role: "assistant", At: t0, StopReason: "tool_use", Content: []session.Block{
		{Type: session.BlockText, Text: "Running it."},
		{Type: session.BlockToolUse, ID: useID, Name: "bash", Input: []byte(`{"command":"make"}`)},
	}}
}

// childJournal is a session's writer that a test kills: it appends a
// person's message, a tool call with some output, then streams an answer
// and says "streaming" once MYCO_TEST_DELTAS deltas are written.
func childJournal() int {
	s, err := session.Open(os.Getenv("MYCO_TEST_DIR"), session.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	w, err := s.OpenWriter(journalID, session.Owner{PID: os.Getpid()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	must := func(err error) {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	must(w.Append(textMessage("h1", "user", "build it")))
	must(w.Append(toolUse("a1", "toolu_1")))
	must(w.StartTool("toolu_1"))
	must(w.Output("toolu_1", "compiling...\n"))
	// Work in progress reaches the file within flushEvery (or at a Sync);
	// the test waits for it rather than for the clock.
	must(w.Sync())
	if os.Getenv("MYCO_TEST_PART") == "tool" {
		fmt.Println("streaming")
		select {}
	}
	must(w.Append(session.Message{ID: "a1-outcome", Role: "user", At: t0, Content: []session.Block{
		{Type: session.BlockToolResult, ToolUseID: "toolu_1", Content: []byte(`"ok"`)},
	}}))
	must(w.StartPartial(session.Message{ID: "a2", Role: "assistant", At: t0, Model: "m"}))
	for i := range 50 {
		must(w.Delta("a2", fmt.Sprintf("word%d ", i)))
	}
	must(w.Sync())
	fmt.Println("streaming")
	select {}
}

// TestJournalSurvivesSIGKILL kills a writer in the middle of an answer and
// in the middle of a tool run: the next writer keeps the answer so far,
// marked interrupted, gives the tool call an interrupted outcome with its
// output, and folds it all into the document.
func TestJournalSurvivesSIGKILL(t *testing.T) {
	for _, part := range []string{"answer", "tool"} {
		t.Run(part, func(t *testing.T) {
			s, dir := openStore(t, session.Options{})
			if err := s.Save(newDoc(journalID, t0, 1, 0)); err != nil {
				t.Fatal(err)
			}
			c := startChild(t, "journal", "MYCO_TEST_DIR="+dir, "MYCO_TEST_PART="+part)
			c.waitLine(t, "streaming")
			c.kill()

			// Read-only, the journal's whole messages show; work in progress
			// waits for the writer.
			doc, err := s.Load(journalID)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(doc.Threads[0].Messages); n < 2 {
				t.Errorf("Load before reopening shows %d messages, want the journal's", n)
			}

			w := openWriter(t, s, journalID)
			var msgs []session.Message
			w.View(func(d *session.Document) { msgs = append(msgs, d.Threads[len(d.Threads)-1].Messages...) })
			last := msgs[len(msgs)-1]
			switch part {
			case "answer":
				if last.ID != "a2" || last.StopReason != session.StopInterrupted {
					t.Fatalf("last message %s (%s), want a2 interrupted", last.ID, last.StopReason)
				}
				if text := last.Content[0].Text; !strings.HasPrefix(text, "word0 word1") || !strings.HasSuffix(text, "word49 ") {
					t.Errorf("kept text %q, want all 50 words", text)
				}
			case "tool":
				if len(last.Content) != 1 || last.Content[0].ToolUseID != "toolu_1" {
					t.Fatalf("last message %+v, want the outcome of toolu_1", last)
				}
				b := last.Content[0]
				var out string
				json.Unmarshal(b.Content, &out)
				if !b.IsError || !b.Interrupted || !strings.Contains(out, "compiling...") || !strings.Contains(out, "interrupted") {
					t.Errorf("outcome %+v (%q), want an interrupted error with the output so far", b, out)
				}
			}
			// Folded: the document alone holds it, the journal is empty.
			w.Close()
			data, err := os.ReadFile(filepath.Join(dir, journalID+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), `"interrupted"`) {
				t.Errorf("document after reopening lacks the interrupted part")
			}
			if info, err := os.Stat(filepath.Join(dir, journalID+".journal")); err == nil && info.Size() > 0 {
				t.Errorf("journal still holds %d bytes after the fold", info.Size())
			}
			if left := tempFiles(t, dir); len(left) > 0 {
				t.Errorf("temp files left: %v", left)
			}
		})
	}
}

// TestRepairLegacyToolUse: a document written before the journal, with a
// tool call and no outcome (a kill during a tool run), is repaired when
// opened: every message is kept and the call gets an outcome.
func TestRepairLegacyToolUse(t *testing.T) {
	s, _ := openStore(t, session.Options{})
	doc := newDoc(journalID, t0, 1, 0)
	doc.Threads[0].Messages = []session.Message{
		textMessage("h1", "user", "build it"), toolUse("a1", "toolu_1"), textMessage("h2", "user", "hello?"),
	}
	if err := s.Save(doc); err != nil {
		t.Fatal(err)
	}
	w := openWriter(t, s, journalID)
	var ids []string
	var outcome session.Block
	w.View(func(d *session.Document) {
		for _, m := range d.Threads[0].Messages {
			ids = append(ids, m.ID)
			if len(m.Content) > 0 && m.Content[0].Type == session.BlockToolResult {
				outcome = m.Content[0]
			}
		}
	})
	if got, want := strings.Join(ids, " "), "h1 a1 a1-outcome h2"; got != want {
		t.Errorf("messages %q, want %q", got, want)
	}
	if outcome.ToolUseID != "toolu_1" || !outcome.Interrupted || !strings.Contains(string(outcome.Content), "Not run") {
		t.Errorf("outcome %+v", outcome)
	}
}

func TestJournalDamage(t *testing.T) {
	tests := []struct {
		name    string
		journal string
		damaged bool
		msgs    int
	}{
		{"last line cut short is ignored", `{"seq":1,"op":"message","message":{"id":"m1","role":"user","content":[]}}` + "\n" + `{"seq":2,"op":"mess`, false, 1},
		{"a bad line in the middle damages the session", `{"seq":1,"op":"message","message":{"id":"m1","role":"user","content":[]}}` + "\nnot json\n" + `{"seq":3,"op":"header","header":{"title":"x"}}` + "\n", true, 0},
		{"records already folded are skipped", `{"seq":1,"op":"message","message":{"id":"m0","role":"user","content":[]}}` + "\n" + `{"seq":2,"op":"message","message":{"id":"m1","role":"user","content":[]}}` + "\n", false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, dir := openStore(t, session.Options{})
			doc := newDoc(journalID, t0, 1, 0)
			if strings.Contains(tt.name, "folded") {
				doc.JournalSeq = 1
			}
			if err := s.Save(doc); err != nil {
				t.Fatal(err)
			}
			jpath := filepath.Join(dir, journalID+".journal")
			writeFile(t, jpath, tt.journal)
			before := freeze(t, filepath.Join(dir, journalID+".json"))
			got, err := s.Load(journalID)
			if tt.damaged {
				if !errors.Is(err, session.ErrDamaged) {
					t.Fatalf("Load = %v, want ErrDamaged", err)
				}
				if _, err := s.OpenWriter(journalID, session.Owner{PID: os.Getpid()}); !errors.Is(err, session.ErrDamaged) {
					t.Fatalf("OpenWriter = %v, want ErrDamaged", err)
				}
				assertUnchanged(t, filepath.Join(dir, journalID+".json"), before)
				if string(readFile(t, jpath)) != tt.journal {
					t.Error("the damaged journal was changed")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := len(got.Threads[0].Messages); n != tt.msgs {
				t.Errorf("%d messages, want %d", n, tt.msgs)
			}
		})
	}
}

// TestWriterSavesWithoutRewriting: a message costs an append to the
// journal, not a rewrite of the document; Close folds it in.
func TestWriterSavesWithoutRewriting(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	start := realisticDoc(journalID, 50, 400)
	if err := s.Save(start); err != nil {
		t.Fatal(err)
	}
	docPath := filepath.Join(dir, journalID+".json")
	before := freeze(t, docPath)
	w := openWriter(t, s, journalID)
	for i := range 5 {
		if err := w.Append(textMessage(fmt.Sprintf("n%d", i), "user", "more")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Update(func(d *session.Document) error { d.Title = "renamed"; return nil }); err != nil {
		t.Fatal(err)
	}
	assertUnchanged(t, docPath, before)
	got, err := s.Load(journalID)
	if err != nil || got.Title != "renamed" {
		t.Fatalf("Load while open: title %q, %v", got.Title, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join(dir, journalID+".journal"), &st); err == nil {
		t.Errorf("an empty journal was left behind (%d bytes)", st.Size)
	}
	if err := w.Append(textMessage("late", "user", "x")); !errors.Is(err, session.ErrWriterClosed) {
		t.Errorf("Append after Close = %v, want ErrWriterClosed", err)
	}
	got, _ = s.Load(journalID)
	if got.Title != "renamed" || got.MessageCount() != start.MessageCount()+5 {
		t.Errorf("after Close: title %q, %d messages", got.Title, got.MessageCount())
	}
}

// TestFoldIfDue: a small session is folded at every settled point; a
// large one only once its journal has grown, so a long session is not
// rewritten after every turn.
func TestFoldIfDue(t *testing.T) {
	for _, tt := range []struct {
		name     string
		rounds   int
		appends  int
		wantFold bool
	}{
		{"small session folds at once", 5, 1, true},
		{"mid-size session waits", 300, 1, false},
		{"large session waits", 3000, 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, dir := openStore(t, session.Options{})
			if err := s.Save(realisticDoc(journalID, tt.rounds, 400)); err != nil {
				t.Fatal(err)
			}
			if tt.name == "mid-size session waits" {
				// A few hundred turns: under 1 MiB, over 64 KiB.
				info, err := os.Stat(filepath.Join(dir, journalID+".json"))
				if err != nil {
					t.Fatal(err)
				}
				if info.Size() < 64<<10 || info.Size() > 1<<20 {
					t.Fatalf("document of %d bytes, want between 64 KiB and 1 MiB", info.Size())
				}
			}
			w := openWriter(t, s, journalID)
			for i := range tt.appends {
				if err := w.Append(textMessage(fmt.Sprintf("n%d", i), "user", "more")); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.FoldIfDue(); err != nil {
				t.Fatal(err)
			}
			info, err := os.Stat(filepath.Join(dir, journalID+".journal"))
			if err != nil {
				t.Fatal(err)
			}
			if folded := info.Size() == 0; folded != tt.wantFold {
				t.Errorf("folded = %v (journal %d bytes), want %v", folded, info.Size(), tt.wantFold)
			}
		})
	}
}

// TestOpenSweepsTempOfUnlockedSessions: a temp file a crash left in the
// middle of a save goes when the store opens, however young, unless the
// session's writer lock is held (a save may be in progress there).
func TestOpenSweepsTempOfUnlockedSessions(t *testing.T) {
	_, dir := openStore(t, session.Options{})
	free := filepath.Join(dir, ".tmp-"+journalID+".json-123")
	heldID := "0193c7b2-0000-7000-8000-0000000000e2"
	held := filepath.Join(dir, ".tmp-"+heldID+".json-456")
	startLockChild(t, dir, "http://127.0.0.1:1", heldID)
	writeFile(t, free, "half a document")
	writeFile(t, held, "a save in progress")
	mustOpen(t, dir, session.Options{})
	assertMissing(t, free)
	assertExists(t, held)
}

// TestImageRefsReadTheJournal: an image named only in a journal not yet
// folded (a session open elsewhere, or one a crash left) is referenced:
// collecting images must never delete it.
func TestImageRefsReadTheJournal(t *testing.T) {
	s, _ := openStore(t, session.Options{})
	if err := s.Save(newDoc(journalID, t0, 1, 0)); err != nil {
		t.Fatal(err)
	}
	w := openWriter(t, s, journalID)
	sha := strings.Repeat("ab", 32)
	m := session.Message{ID: "img", Role: "user", At: t0, Human: true, Content: []session.Block{{Type: session.BlockImage, SHA256: sha, MediaType: "image/png"}}}
	if err := w.Append(m); err != nil {
		t.Fatal(err)
	}
	refs, _, err := s.ImageRefs(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !refs[sha] {
		t.Errorf("ImageRefs = %v, want the image named in the journal", refs)
	}
}

// TestRecoverAtStartup: journals a crash left are folded in when a server
// starts, without anyone opening the sessions; one held elsewhere is left
// to its holder.
func TestRecoverAtStartup(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	heldID := "0193c7b2-0000-7000-8000-0000000000e3"
	for _, id := range []string{journalID, heldID} {
		if err := s.Save(newDoc(id, t0, 1, 0)); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, id+".journal"),
			`{"seq":1,"op":"partial","message":{"id":"a","role":"assistant","content":[]}}`+"\n"+
				`{"seq":2,"op":"delta","id":"a","text":"half an answer"}`+"\n")
	}
	startLockChild(t, dir, "http://127.0.0.1:1", heldID)
	rep, err := s.Recover(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Recovered) != 1 || rep.Recovered[0] != journalID || len(rep.Locked) != 1 {
		t.Fatalf("report %+v", rep)
	}
	data := string(readFile(t, filepath.Join(dir, journalID+".json")))
	if !strings.Contains(data, "half an answer") || !strings.Contains(data, `"interrupted"`) {
		t.Errorf("document after Recover:\n%s", data)
	}
	assertMissing(t, filepath.Join(dir, journalID+".journal"))
	assertExists(t, filepath.Join(dir, heldID+".journal"))
}

// TestDeltasMergeIntoOneRecord: consecutive text of one answer is one
// journal line (no encoding per delta), in order with the other changes.
func TestDeltasMergeIntoOneRecord(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	if err := s.Save(newDoc(journalID, t0, 1, 0)); err != nil {
		t.Fatal(err)
	}
	w := openWriter(t, s, journalID)
	if err := w.StartPartial(session.Message{ID: "a", Role: "assistant"}); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := w.Delta("a", fmt.Sprintf("w%d ", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Append(textMessage("a", "assistant", "the whole answer")); err != nil {
		t.Fatal(err)
	}
	var ops []string
	var text string
	for _, line := range strings.Split(strings.TrimSpace(string(readFile(t, filepath.Join(dir, journalID+".journal")))), "\n") {
		var r struct{ Op, Text string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		ops = append(ops, r.Op)
		if r.Op == session.OpDelta {
			text += r.Text
		}
	}
	// One delta line, or a few if the machine paused past flushEvery.
	got := strings.Join(ops, " ")
	if deltas := strings.Count(got, "delta"); deltas == 0 || deltas > 10 || got != "partial"+strings.Repeat(" delta", deltas)+" message" {
		t.Errorf("journal ops %q, want partial, a delta or a few, message", got)
	}
	if !strings.HasPrefix(text, "w0 w1 ") || !strings.HasSuffix(text, "w99 ") {
		t.Errorf("delta text %q", text)
	}
}

// TestRefusedRecordNeverReachesTheJournal: a change the document refuses
// (a mark of a message it does not hold) is refused whole, and the session
// still opens: a bad line in the journal would make it damaged for good.
func TestRefusedRecordNeverReachesTheJournal(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	if err := s.Save(newDoc(journalID, t0, 1, 0)); err != nil {
		t.Fatal(err)
	}
	w, err := s.OpenWriter(journalID, session.Owner{PID: os.Getpid()})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(textMessage("h1", "user", "hi")); err != nil {
		t.Fatal(err)
	}
	if err := w.Mark("no-such-message", "x"); err == nil {
		t.Fatal("Mark of a message the session does not hold succeeded")
	}
	// As a crash would find it: the journal holds no trace of the mark.
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if j := string(readFile(t, filepath.Join(dir, journalID+".journal"))); strings.Contains(j, `"op":"mark"`) {
		t.Errorf("the refused mark reached the journal:\n%s", j)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	doc, err := s.Load(journalID)
	if err != nil || doc.MessageCount() != 1 {
		t.Fatalf("after a refused mark: %v, %d messages", err, doc.MessageCount())
	}
	w2, err := s.OpenWriter(journalID, session.Owner{PID: os.Getpid()})
	if err != nil {
		t.Fatalf("the session no longer opens: %v", err)
	}
	w2.Close()
}
