package live

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"myco/session"
)

// BenchmarkCompactWork measures what myco itself does to compact a
// 10,000-message thread (the model's summary call excluded): render the
// transcript, pick the carried messages, and encode the document with the
// successor appended, as the save does.
func BenchmarkCompactWork(b *testing.B) {
	t := bigThread(10000)
	doc := &session.Document{Schema: session.Schema, ID: "bench", Threads: []session.Thread{t}}
	for b.Loop() {
		text := transcript(t)
		carried := recentContext(t.Messages, 20000)
		from := 0
		next := session.Thread{CreatedAt: time.Now(), CompactedFrom: &from, Summary: text[:1000], Carried: len(carried), Messages: carried}
		doc.Threads = append(doc.Threads[:1], next)
		data, err := session.Encode(doc)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data)))
	}
}

func bigThread(n int) session.Thread {
	msgs := make([]session.Message, 0, n)
	for i := 0; len(msgs) < n; i++ {
		input, _ := json.Marshal(map[string]string{"command": fmt.Sprintf("go test ./pkg%d/...", i)})
		result, _ := json.Marshal(fmt.Sprintf("ok  \tmyco/pkg%d\t0.%03ds\n", i, i%1000))
		msgs = append(msgs,
			session.Message{ID: fmt.Sprintf("a%d", i), Role: "assistant", Content: []session.Block{
				{Type: session.BlockText, Text: "Running the tests of this package to see whether the change holds."},
				{Type: session.BlockToolUse, ID: fmt.Sprintf("t%d", i), Name: "bash", Input: input},
			}},
			session.Message{ID: fmt.Sprintf("r%d", i), Role: "user", Content: []session.Block{
				{Type: session.BlockToolResult, ToolUseID: fmt.Sprintf("t%d", i), Content: result},
			}},
		)
	}
	return session.Thread{CreatedAt: time.Now(), Messages: msgs}
}

func TestRecentContextKeepsCallsWithOutcomes(t *testing.T) {
	th := bigThread(40)
	for _, budget := range []int{1, 10, 50, 100, 1000, 100000} {
		got := recentContext(th.Messages, budget)
		if len(got) == 0 {
			t.Fatalf("budget %d: nothing carried", budget)
		}
		if hasToolResults(got[0]) {
			t.Errorf("budget %d: carried part starts with an outcome cut from its call", budget)
		}
		if budget >= 100000 && len(got) != len(th.Messages) {
			t.Errorf("budget %d: carried %d of %d", budget, len(got), len(th.Messages))
		}
	}
}

// workThread is a thread of n turns of real work: each turn writes a
// 12 KB file and runs a command with 30 KB of output.
func workThread(n int) session.Thread {
	var msgs []session.Message
	file := strings.Repeat("func handler() { return nil } // a line of code\n", 12<<10/48)
	log := strings.Repeat("=== RUN   TestSomething\n--- PASS: TestSomething (0.00s)\n", 30<<10/56)
	for i := range n {
		write, _ := json.Marshal(map[string]string{"path": fmt.Sprintf("pkg/f%d.go", i), "content": file})
		run, _ := json.Marshal(map[string]string{"command": "go test ./pkg/..."})
		out, _ := json.Marshal(log)
		msgs = append(msgs,
			session.Message{ID: fmt.Sprintf("q%d", i), Role: "user", Human: true, Content: []session.Block{{Type: session.BlockText, Text: "Add the next handler and run the tests."}}},
			session.Message{ID: fmt.Sprintf("a%d", i), Role: "assistant", Content: []session.Block{
				{Type: session.BlockToolUse, ID: fmt.Sprintf("w%d", i), Name: "write_file", Input: write},
				{Type: session.BlockToolUse, ID: fmt.Sprintf("b%d", i), Name: "bash", Input: run},
			}},
			session.Message{ID: fmt.Sprintf("r%d", i), Role: "user", Content: []session.Block{
				{Type: session.BlockToolResult, ToolUseID: fmt.Sprintf("w%d", i), Content: []byte(`"Created pkg/f.go (250 lines)"`)},
				{Type: session.BlockToolResult, ToolUseID: fmt.Sprintf("b%d", i), Content: out},
			}},
			session.Message{ID: fmt.Sprintf("d%d", i), Role: "assistant", Content: []session.Block{{Type: session.BlockText, Text: "Done: the handler is in and the tests pass."}}},
		)
	}
	return session.Thread{CreatedAt: time.Now(), Messages: msgs}
}

// rawTranscriptBytes is what the summary request would carry with every
// input and outcome whole.
func rawTranscriptBytes(t session.Thread) int {
	n := 0
	for _, m := range t.Messages {
		for _, b := range m.Content {
			n += len(b.Text) + len(b.Input) + len(b.ResultText())
		}
	}
	return n
}

// BenchmarkSummaryTranscript measures the summary request of a 30-turn
// working thread: raw-bytes with every input and outcome whole, sent-bytes
// as myco sends it (each cut to its head and tail).
func BenchmarkSummaryTranscript(b *testing.B) {
	th := workThread(30)
	var sent int
	for b.Loop() {
		sent = len(transcript(th))
	}
	b.ReportMetric(float64(rawTranscriptBytes(th)), "raw-bytes")
	b.ReportMetric(float64(sent), "sent-bytes")
}

// The summary request carries each long input and outcome cut to its
// head and tail, with a note, and the thread itself keeps them whole.
func TestSummaryTranscriptTrims(t *testing.T) {
	th := workThread(30)
	text := transcript(th)
	raw := rawTranscriptBytes(th)
	if len(text) > raw/8 {
		t.Errorf("summary request %d bytes of %d raw: want it trimmed to under an eighth", len(text), raw)
	}
	if n := strings.Count(text, "bytes not shown here"); n != 60 {
		t.Errorf("%d cut notes, want one per write and per command output (60)", n)
	}
	if !strings.Contains(text, "pkg/f29.go") || !strings.Contains(text, "--- PASS") {
		t.Error("the cut lost what the summary needs: the path, the outcome")
	}
	if len(th.Messages[1].Content[0].Input) < 12<<10 {
		t.Error("the thread's own input was cut")
	}
}
