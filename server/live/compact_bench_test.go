package live

import (
	"encoding/json"
	"fmt"
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
