package tools_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"myco/server/tools"
	"myco/session"
)

var t0 = time.Date(2026, 11, 29, 18, 5, 0, 0, time.UTC)

func ptr(i int) *int { return &i }

// historyDoc is a session of two threads: the second compacted from the
// first. Image bytes it holds (AAAA, SECRETBYTES) must never show.
func historyDoc() *session.Document {
	sha := strings.Repeat("ab", 32)
	return &session.Document{
		Schema: session.Schema, ID: "s1", Title: "History",
		Threads: []session.Thread{
			{CreatedAt: t0, Messages: []session.Message{
				{ID: "u1", Role: "user", At: t0, Human: true, Content: []session.Block{
					{Type: session.BlockText, Text: "what is here?"},
					{Type: session.BlockImage, SHA256: sha, MediaType: "image/png"},
					{Type: session.BlockImage, MediaType: "image/jpeg", Data: "AAAA"},
				}},
				{ID: "a1", Role: "assistant", At: t0.Add(time.Second), StopReason: "tool_use",
					Usage: &session.Usage{InputTokens: 10, OutputTokens: 5, CacheReadInputTokens: 2, CacheCreationInputTokens: 1},
					Content: []session.Block{
						{Type: session.BlockText, Text: "Let me look."},
						{Type: session.BlockToolUse, ID: "toolu_1", Name: "bash", Input: jsontext.Value("{\n \"command\": \"ls\"\n}")},
					}},
				{ID: "u2", Role: "user", At: t0.Add(2 * time.Second), Content: []session.Block{
					{Type: session.BlockToolResult, ToolUseID: "toolu_1", Content: jsontext.Value(`"file.txt\n"`)},
				}},
				{ID: "a2", Role: "assistant", At: t0.Add(3 * time.Second), StopReason: "end_turn",
					Usage:   &session.Usage{InputTokens: 20, OutputTokens: 7},
					Content: []session.Block{{Type: session.BlockText, Text: "One file."}}},
			}},
			{CreatedAt: t0.Add(time.Hour), CompactedFrom: ptr(0), Summary: "We listed files.\nNothing else.", Messages: []session.Message{
				{ID: "u3", Role: "user", At: t0.Add(time.Hour), Human: true, Content: []session.Block{
					{Type: session.BlockText, Text: "screenshot it"},
				}},
				{ID: "a3", Role: "assistant", At: t0.Add(time.Hour + time.Second), StopReason: "tool_use",
					Usage: &session.Usage{InputTokens: 1, OutputTokens: 1},
					Content: []session.Block{
						{Type: session.BlockToolUse, ID: "toolu_2", Name: "bash", Input: jsontext.Value(`{"command":"shot"}`)},
						{Type: session.BlockToolUse, ID: "toolu_3", Name: "session_meta", Input: jsontext.Value(`{}`)},
					}},
				{ID: "u4", Role: "user", Content: []session.Block{
					{Type: session.BlockToolResult, ToolUseID: "toolu_2", IsError: true, Content: jsontext.Value(
						`[{"type":"text","text":"saved"},{"type":"image","media_type":"image/png","data":"SECRETBYTES"},{"type":"image","sha256":"` + sha + `","media_type":"image/png"}]`)},
					{Type: session.BlockToolResult, ToolUseID: "toolu_3", Content: jsontext.Value(`"` + strings.Repeat("x", 3000) + `"`)},
				}},
			}},
		},
	}
}

func TestHistory(t *testing.T) {
	sha := strings.Repeat("ab", 32)
	tests := []struct {
		name string
		in   tools.HistoryInput
		want string
	}{
		{"threads", tools.HistoryInput{Action: "threads"}, "" +
			"thread 0: created 2026-11-29T18:05:00Z, 4 messages\n" +
			"thread 1: created 2026-11-29T19:05:00Z, 3 messages, compacted from thread 0 (current)\n" +
			"  summary: We listed files.\n"},
		{"stats of the session", tools.HistoryInput{Action: "stats"}, "" +
			"session: 2 threads in the session\n" +
			"messages: 7 (user 4, assistant 3; 2 typed by the person)\n" +
			"tool calls: bash 2, session_meta 1\n" +
			"tokens: input 31, output 13, cache read 2, cache creation 1\n"},
		{"stats of a thread", tools.HistoryInput{Action: "stats", Thread: ptr(0)}, "" +
			"thread 0: 2 threads in the session\n" +
			"messages: 4 (assistant 2, user 2; 1 typed by the person)\n" +
			"tool calls: bash 1\n" +
			"tokens: input 30, output 12, cache read 2, cache creation 1\n"},
		{"expand an older thread", tools.HistoryInput{Action: "expand", Thread: ptr(0), From: ptr(0), To: ptr(3)}, "" +
			"thread 0, messages 0 to 3 of 4\n" +
			"\n#0 user (typed by the person) 2026-11-29T18:05:00Z\n" +
			"what is here?\n" +
			"[image sha256:" + sha + " image/png]\n" +
			"[image inline image/jpeg]\n" +
			"\n#1 assistant 2026-11-29T18:05:01Z stop=tool_use\n" +
			"Let me look.\n" +
			"[tool_use bash id=toolu_1] {\"command\":\"ls\"}\n" +
			"\n#2 user 2026-11-29T18:05:02Z\n" +
			"[tool_result id=toolu_1]\nfile.txt\n"},
		{"expand defaults to the latest thread's end", tools.HistoryInput{Action: "expand", From: ptr(1)}, "" +
			"thread 1, messages 1 to 3 of 3\n" +
			"\n#1 assistant 2026-11-29T19:05:01Z stop=tool_use\n" +
			"[tool_use bash id=toolu_2] {\"command\":\"shot\"}\n" +
			"[tool_use session_meta id=toolu_3] {}\n" +
			"\n#2 user\n" +
			"[tool_result id=toolu_2 error]\nsaved\n[image inline image/png]\n[image sha256:" + sha + " image/png]\n" +
			"[tool_result id=toolu_3]\n" + strings.Repeat("x", 2000) + "\n[… 1000 more bytes]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tools.History(historyDoc(), tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("History(%+v) (-want +got):\n%s", tt.in, diff)
			}
			if strings.Contains(got, "AAAA") || strings.Contains(got, "SECRETBYTES") {
				t.Error("image bytes in the output")
			}
		})
	}
}

// longThread is a session whose one thread has n messages.
func longThread(n int) *session.Document {
	doc := &session.Document{Threads: []session.Thread{{}}}
	for i := range n {
		doc.Threads[0].Messages = append(doc.Threads[0].Messages, session.Message{
			ID: fmt.Sprint(i), Role: "user", Content: []session.Block{{Type: session.BlockText, Text: fmt.Sprint("m", i)}},
		})
	}
	return doc
}

func TestHistoryExpandRange(t *testing.T) {
	tests := []struct {
		name     string
		from, to *int
		want     string // the header line
	}{
		{"default: the last 20", nil, nil, "thread 0, messages 230 to 250 of 250"},
		{"from: 20 from there", ptr(10), nil, "thread 0, messages 10 to 30 of 250"},
		{"to: 20 up to there", nil, ptr(15), "thread 0, messages 0 to 15 of 250"},
		{"both", ptr(5), ptr(205), "thread 0, messages 5 to 205 of 250"},
		{"to past the end", ptr(240), ptr(900), "thread 0, messages 240 to 250 of 250"},
		{"empty range", ptr(250), nil, "thread 0, messages 250 to 250 of 250"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tools.History(longThread(250), tools.HistoryInput{Action: "expand", From: tt.from, To: tt.to})
			if err != nil {
				t.Fatal(err)
			}
			if line, _, _ := strings.Cut(got, "\n"); line != tt.want {
				t.Errorf("header %q, want %q", line, tt.want)
			}
		})
	}
}

func TestHistoryErrors(t *testing.T) {
	tests := []struct {
		name string
		doc  *session.Document
		in   tools.HistoryInput
		want string // part of the message
	}{
		{"unknown action", historyDoc(), tools.HistoryInput{Action: "list"}, `unknown action "list"`},
		{"no such thread", historyDoc(), tools.HistoryInput{Action: "expand", Thread: ptr(2)}, "thread 2 does not exist: the session has 2 threads (0 to 1)"},
		{"negative thread", historyDoc(), tools.HistoryInput{Action: "stats", Thread: ptr(-1)}, "thread -1 does not exist"},
		{"negative from", historyDoc(), tools.HistoryInput{Action: "expand", From: ptr(-1)}, "must not be negative"},
		{"from past the end", historyDoc(), tools.HistoryInput{Action: "expand", From: ptr(4)}, "from 4 is past the end: the thread has 3 messages"},
		{"to before from", historyDoc(), tools.HistoryInput{Action: "expand", From: ptr(2), To: ptr(1)}, "to 1 is before from 2"},
		{"too many", longThread(250), tools.HistoryInput{Action: "expand", From: ptr(0), To: ptr(250)}, "250 messages asked for, at most 200"},
		{"no threads", &session.Document{}, tools.HistoryInput{Action: "expand"}, "no threads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tools.History(tt.doc, tt.in)
			if !errors.Is(err, tools.ErrHistoryInput) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("History(%+v) = %v, want ErrHistoryInput saying %q", tt.in, err, tt.want)
			}
		})
	}
}

// TestHistoryStatsCarried: a thread made by compaction begins with messages
// carried from its predecessor; stats count each once, in the thread it was
// written in, and agree with the page's sum (Document.Usage).
func TestHistoryStatsCarried(t *testing.T) {
	doc := historyDoc()
	carriedMsg := doc.Threads[0].Messages[3] // a2, input 20, output 7
	t1 := &doc.Threads[1]
	t1.Messages = append([]session.Message{carriedMsg}, t1.Messages...)
	t1.Carried = 1
	tests := []struct {
		name string
		in   tools.HistoryInput
		want string
	}{
		{"the session", tools.HistoryInput{Action: "stats"}, "" +
			"session: 2 threads in the session\n" +
			"messages: 7 (user 4, assistant 3; 2 typed by the person)\n" +
			"tool calls: bash 2, session_meta 1\n" +
			"tokens: input 31, output 13, cache read 2, cache creation 1\n"},
		{"the successor thread", tools.HistoryInput{Action: "stats", Thread: ptr(1)}, "" +
			"thread 1: 2 threads in the session\n" +
			"messages: 3 (user 2, assistant 1; 1 typed by the person)\n" +
			"messages carried in from thread 0 (counted there): 1\n" +
			"tool calls: bash 1, session_meta 1\n" +
			"tokens: input 1, output 1, cache read 0, cache creation 0\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tools.History(doc, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("History(%+v) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
	u := doc.Usage()
	if u.InputTokens != 31 || u.OutputTokens != 13 {
		t.Errorf("Document.Usage() = %d in / %d out, want what stats says: 31 / 13", u.InputTokens, u.OutputTokens)
	}
}
