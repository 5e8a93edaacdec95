package web_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"myco/session"
	"myco/web"
)

const sessionID = "0193c7b2-6c1e-7c4a-9a0e-3f5b2d1e8a90"

var t0 = time.Date(2026, 11, 29, 18, 5, 0, 0, time.UTC)

func human(id, text string) session.Message {
	return session.Message{ID: id, Role: "user", Human: true, At: t0,
		Content: []session.Block{{Type: session.BlockText, Text: text}}}
}

func agent(id, text string) session.Message {
	return session.Message{ID: id, Role: "assistant", At: t0,
		Content: []session.Block{{Type: session.BlockText, Text: text}}}
}

func toolUse(msgID, useID, name, input string) session.Message {
	return session.Message{ID: msgID, Role: "assistant", StopReason: "tool_use", Content: []session.Block{
		{Type: session.BlockToolUse, ID: useID, Name: name, Input: jsontext.Value(input)},
	}}
}

func toolResult(msgID, useID, content string, isError bool, ms int64) session.Message {
	return session.Message{ID: msgID, Role: "user", Content: []session.Block{
		{Type: session.BlockToolResult, ToolUseID: useID, Content: jsontext.Value(content), IsError: isError, DurationMS: ms},
	}}
}

// chat returns n alternating human and agent messages, numbered from 0.
func chat(n int) []session.Message {
	msgs := make([]session.Message, n)
	for i := range msgs {
		id := fmt.Sprintf("m%03d", i)
		if i%2 == 0 {
			msgs[i] = human(id, id)
		} else {
			msgs[i] = agent(id, id)
		}
	}
	return msgs
}

func doc(threads ...session.Thread) *session.Document {
	return &session.Document{Schema: 1, ID: sessionID, Title: "T", Threads: threads}
}

func ids(views []web.MessageView) []string {
	out := make([]string, len(views))
	for i, v := range views {
		out[i] = v.ID
	}
	return out
}

func TestNewSessionRow(t *testing.T) {
	tests := []struct {
		name string
		in   session.Summary
		want web.SessionRow
	}{
		{
			name: "titled",
			in:   session.Summary{ID: "a", Title: "Fix it", Model: "m", Cwd: "/src", UpdatedAt: t0, Messages: 3},
			want: web.SessionRow{ID: "a", Title: "Fix it", Model: "m", Cwd: "/src", UpdatedAt: t0, Messages: 3, Status: web.StatusIdle},
		},
		{
			name: "failed",
			in:   session.Summary{ID: "f", Title: "Broke", Failed: true},
			want: web.SessionRow{ID: "f", Title: "Broke", Status: web.StatusFailed},
		},
		{
			name: "untitled",
			in:   session.Summary{ID: "b"},
			want: web.SessionRow{ID: "b", Title: "Untitled", Status: web.StatusIdle},
		},
		{
			name: "untitled fork",
			in:   session.Summary{ID: "k", Parent: "p", ParentTitle: "Fix it"},
			want: web.SessionRow{ID: "k", Title: "Fork of Fix it", Status: web.StatusIdle, Parent: "p", ParentTitle: "Fix it"},
		},
		{
			name: "fork with its own title",
			in:   session.Summary{ID: "k", Title: "Try B", Parent: "p", ParentTitle: "Fix it"},
			want: web.SessionRow{ID: "k", Title: "Try B", Status: web.StatusIdle, Parent: "p", ParentTitle: "Fix it"},
		},
		{
			name: "fork of an untitled session",
			in:   session.Summary{ID: "k", Parent: "p"},
			want: web.SessionRow{ID: "k", Title: "Fork of Untitled", Status: web.StatusIdle, Parent: "p", ParentTitle: "Untitled"},
		},
		{
			name: "damaged",
			in:   session.Summary{ID: "c", Damaged: "invalid JSON at byte 12"},
			want: web.SessionRow{ID: "c", Title: "Untitled", Damaged: "invalid JSON at byte 12", Status: web.StatusIdle},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, web.NewSessionRow(tt.in)); diff != "" {
				t.Errorf("NewSessionRow (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHomeViewURLs(t *testing.T) {
	tests := []struct {
		name                                string
		view                                web.HomeView
		wantPartial, wantNext, wantFallback string
	}{
		{
			name:         "home",
			view:         web.HomeView{},
			wantPartial:  "/partials/sessions",
			wantNext:     "/partials/sessions?page=2",
			wantFallback: "/?page=2",
		},
		{
			name:         "archived, filtered, page 3",
			view:         web.HomeView{Archived: true, Query: "a&b", Page: 3},
			wantPartial:  "/partials/sessions?archived=1",
			wantNext:     "/partials/sessions?archived=1&page=4&q=a%26b",
			wantFallback: "/archived?page=4&q=a%26b",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := []string{tt.view.PartialURL(), tt.view.NextPageURL(), tt.view.NextPageFallbackURL()}
			want := []string{tt.wantPartial, tt.wantNext, tt.wantFallback}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("URLs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMessagesFragmentWindow(t *testing.T) {
	// m100 is the result of the call in m099: a run that would start at
	// m100 reaches back to take the call.
	paired := chat(102)
	paired[99] = toolUse("m099", "toolu_1", "bash", `{"command":"ls"}`)
	paired[100] = toolResult("m100", "toolu_1", `"ok"`, false, 0)

	tests := []struct {
		name          string
		msgs          []session.Message
		before, limit int
		wantStart     int
		wantFirst     string
		wantLen       int
	}{
		{name: "last 100 of 250", msgs: chat(250), before: 250, limit: 100, wantStart: 150, wantFirst: "m150", wantLen: 100},
		{name: "before past the end means the end", msgs: chat(250), before: 999, limit: 100, wantStart: 150, wantFirst: "m150", wantLen: 100},
		{name: "negative before means the end", msgs: chat(5), before: -1, limit: 100, wantStart: 0, wantFirst: "m000", wantLen: 5},
		{name: "earlier page", msgs: chat(250), before: 150, limit: 100, wantStart: 50, wantFirst: "m050", wantLen: 100},
		{name: "first page", msgs: chat(250), before: 50, limit: 100, wantStart: 0, wantFirst: "m000", wantLen: 50},
		{name: "default limit", msgs: chat(250), before: 250, limit: 0, wantStart: 150, wantFirst: "m150", wantLen: 100},
		// m100 (results only) folds into m099, so 101 messages show as 100.
		{name: "never splits a call from its result", msgs: paired, before: 102, limit: 2, wantStart: 99, wantFirst: "m099", wantLen: 2},
		{name: "nothing before 0", msgs: chat(5), before: 0, limit: 100, wantStart: 0, wantLen: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := web.MessagesFragment(doc(session.Thread{Messages: tt.msgs}), 0, tt.before, tt.limit, nil)
			if err != nil {
				t.Fatal(err)
			}
			if f.Start != tt.wantStart || len(f.Messages) != tt.wantLen {
				t.Fatalf("Start %d, %d messages; want %d, %d", f.Start, len(f.Messages), tt.wantStart, tt.wantLen)
			}
			if tt.wantLen > 0 && f.Messages[0].ID != tt.wantFirst {
				t.Errorf("first message %s, want %s", f.Messages[0].ID, tt.wantFirst)
			}
			if f.HasEarlier() != (tt.wantStart > 0) {
				t.Errorf("HasEarlier = %v with Start %d", f.HasEarlier(), f.Start)
			}
		})
	}
}

func TestMessagesFragmentEarlierURL(t *testing.T) {
	f, err := web.MessagesFragment(doc(session.Thread{Messages: chat(10)}, session.Thread{Messages: chat(250)}), 1, 250, 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "/s/" + sessionID + "/messages?before=150&thread=1"
	if got := f.EarlierURL(); got != want {
		t.Errorf("EarlierURL = %q, want %q", got, want)
	}
}

func TestMessagesFragmentNoThread(t *testing.T) {
	for _, thread := range []int{-1, 1} {
		_, err := web.MessagesFragment(doc(session.Thread{}), thread, 0, 0, nil)
		if !errors.Is(err, web.ErrNoThread) {
			t.Errorf("thread %d: err = %v, want ErrNoThread", thread, err)
		}
	}
}

func TestToolCallPairedWithResult(t *testing.T) {
	call := session.Message{ID: "a1", Role: "assistant", StopReason: "tool_use", Content: []session.Block{
		{Type: session.BlockText, Text: "Running it."},
		{Type: session.BlockToolUse, ID: "toolu_A", Name: "bash", Input: jsontext.Value(`{"command":"go test ./...\nsecond line"}`)},
		{Type: session.BlockToolUse, ID: "toolu_B", Name: "read_file", Input: jsontext.Value(`{"path":"a.go"}`)},
		{Type: session.BlockToolUse, ID: "toolu_C", Name: "list_ports", Input: jsontext.Value(`{}`)},
	}}
	results := session.Message{ID: "u1", Role: "user", Content: []session.Block{
		{Type: session.BlockToolResult, ToolUseID: "toolu_A", IsError: true, Content: jsontext.Value(`"FAIL"`), DurationMS: 26410},
		{Type: session.BlockToolResult, ToolUseID: "toolu_B", Content: jsontext.Value(`[{"type":"text","text":"1\tpackage a"},{"type":"image","sha256":"ab","media_type":"image/png"}]`), DurationMS: 3},
	}}
	f, err := web.MessagesFragment(doc(session.Thread{Messages: []session.Message{human("h", "go"), call, results}}), 0, -1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The results message has nothing left to show once its results sit
	// beside their calls.
	if diff := cmp.Diff([]string{"h", "a1"}, ids(f.Messages)); diff != "" {
		t.Fatalf("messages (-want +got):\n%s", diff)
	}
	var calls []web.ToolCallView
	for _, b := range f.Messages[1].Blocks {
		if b.Kind == web.KindToolCall {
			calls = append(calls, *b.Tool)
		}
	}
	want := []web.ToolCallView{
		{
			ID: "toolu_A", Name: "bash", Preview: "go test ./... …",
			Input:  "{\n  \"command\": \"go test ./...\\nsecond line\"\n}",
			Result: &web.ToolResultView{ToolUseID: "toolu_A", Output: "FAIL", IsError: true, Duration: 26410 * time.Millisecond},
		},
		{
			ID: "toolu_B", Name: "read_file", Preview: "a.go",
			Input:  "{\n  \"path\": \"a.go\"\n}",
			Result: &web.ToolResultView{ToolUseID: "toolu_B", Output: "1\tpackage a\n[image sha256:ab image/png]", Duration: 3 * time.Millisecond},
		},
		// No result recorded (the turn was stopped): the call shows alone.
		{ID: "toolu_C", Name: "list_ports", Input: "{}"},
	}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
}

func TestOrphanToolResultShownAlone(t *testing.T) {
	m := toolResult("u1", "toolu_gone", `"late output"`, false, 0)
	f, err := web.MessagesFragment(doc(session.Thread{Messages: []session.Message{m}}), 0, -1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Messages) != 1 || len(f.Messages[0].Blocks) != 1 {
		t.Fatalf("got %+v, want one message with one block", f.Messages)
	}
	b := f.Messages[0].Blocks[0]
	if b.Kind != web.KindResult || b.Result.Output != "late output" {
		t.Errorf("block = %+v, want the result on its own", b)
	}
	if got := f.Messages[0].Label(); got != "Tool results" {
		t.Errorf("Label = %q, want Tool results", got)
	}
}

func TestToolResultText(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{name: "string", content: `"a\nb"`, want: "a\nb"},
		{name: "blocks", content: `[{"type":"text","text":"a"},{"type":"text","text":"b"}]`, want: "a\nb"},
		{name: "image block", content: `[{"type":"image","media_type":"image/png"}]`, want: "[image inline image/png]"},
		{name: "other block", content: `[{"type":"document"}]`, want: "[document]"},
		{name: "null", content: `null`, want: ""},
		{name: "absent", content: ``, want: ""},
		{name: "object shown raw", content: `{"a":1}`, want: `{"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := web.NewMessageView(sessionID, toolResult("u", "x", tt.content, false, 0))
			if got := v.Blocks[0].Result.Output; got != tt.want {
				t.Errorf("Output = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestToolResultOutputCapped(t *testing.T) {
	big := strings.Repeat("é", 40<<10) // 80 KiB, two bytes a rune
	v := web.NewMessageView(sessionID, toolResult("u", "x", `"`+big+`"`, false, 0))
	out := v.Blocks[0].Result.Output
	if len(out) > 65<<10 || !strings.HasSuffix(out, "more bytes not shown") {
		t.Errorf("output of %d bytes ends %q; want it capped with a note", len(out), out[len(out)-40:])
	}
}

func TestNewMessageView(t *testing.T) {
	legacy := session.Message{ID: "msg 7", Role: "user", Human: true, At: t0, Content: []session.Block{
		{Type: session.BlockText, Text: "see *this*"},
		{Type: session.BlockImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
		{Type: session.BlockImage, MediaType: "image/jpeg", SHA256: "5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef"},
		{Type: "server_tool_use"},
	}}
	stopped := agent("a", "half an ans")
	stopped.StopReason = session.StopInterrupted
	failed := agent("b", "")
	failed.StopReason = session.StopError
	replaced := agent("r", "half")
	replaced.StopReason, replaced.ReplacedBy = session.StopError, "r2"
	cutShort := toolResult("t", "u1", `"partial output"`, false, 2000)
	cutShort.Content[0].Interrupted = true

	tests := []struct {
		name string
		in   session.Message
		want web.MessageView
	}{
		{
			name: "person's text stays plain; images by URL, legacy ones served by the server",
			in:   legacy,
			want: web.MessageView{ID: "msg 7", Role: "user", Human: true, At: t0, Blocks: []web.BlockView{
				{Kind: web.KindText, Text: "see *this*"},
				{Kind: web.KindImage, ImageURL: "/s/" + sessionID + "/inline/msg%207/1", MediaType: "image/png"},
				{Kind: web.KindImage, ImageURL: "/images/5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef", MediaType: "image/jpeg"},
				{Kind: web.KindUnknown, Text: "server_tool_use"},
			}},
		},
		{
			name: "agent's text is markdown",
			in:   agent("a", "**bold**"),
			want: web.MessageView{ID: "a", Role: "assistant", At: t0, Blocks: []web.BlockView{
				{Kind: web.KindText, HTML: "<p><strong>bold</strong></p>\n"},
			}},
		},
		{
			name: "interrupted",
			in:   stopped,
			want: web.MessageView{ID: "a", Role: "assistant", At: t0, StopReason: "interrupted", Blocks: []web.BlockView{
				{Kind: web.KindText, HTML: "<p>half an ans</p>\n"},
			}},
		},
		{
			name: "replaced by a retry",
			in:   replaced,
			want: web.MessageView{ID: "r", Role: "assistant", At: t0, StopReason: "error", ReplacedBy: "r2", Blocks: []web.BlockView{
				{Kind: web.KindText, HTML: "<p>half</p>\n"},
			}},
		},
		{
			name: "a tool result cut short keeps its output, marked interrupted",
			in:   cutShort,
			want: web.MessageView{ID: "t", Role: "user", Blocks: []web.BlockView{
				{Kind: web.KindResult, Result: &web.ToolResultView{ToolUseID: "u1", Output: "partial output", Duration: 2 * time.Second, Interrupted: true}},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A message on its own ended in a live turn: it is in the
			// latest thread, so it can be forked from.
			tt.want.Forkable = tt.want.ID != ""
			if diff := cmp.Diff(tt.want, web.NewMessageView(sessionID, tt.in)); diff != "" {
				t.Errorf("NewMessageView (-want +got):\n%s", diff)
			}
		})
	}

	markers := map[string]web.MessageView{
		"interrupted": web.NewMessageView(sessionID, stopped),
		"error":       web.NewMessageView(sessionID, failed),
	}
	for reason, v := range markers {
		if v.StopMarker() == "" {
			t.Errorf("%s: no stop marker", reason)
		}
	}
	if m := web.NewMessageView(sessionID, agent("c", "done")).StopMarker(); m != "" {
		t.Errorf("a finished answer has stop marker %q", m)
	}
}

func TestMessageLabelAndTime(t *testing.T) {
	notice := session.Message{ID: "n", Role: "user", At: t0, Content: []session.Block{{Type: session.BlockText, Text: "shell is new"}}}
	tests := []struct {
		name      string
		in        session.Message
		wantLabel string
		wantTime  bool
	}{
		{name: "human", in: human("h", "hi"), wantLabel: "You", wantTime: true},
		{name: "agent", in: agent("a", "hi"), wantLabel: "Agent", wantTime: false},
		{name: "myco's own notice", in: notice, wantLabel: "myco", wantTime: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := web.NewMessageView(sessionID, tt.in)
			if v.Label() != tt.wantLabel || v.ShowTime() != tt.wantTime {
				t.Errorf("Label %q ShowTime %v, want %q %v", v.Label(), v.ShowTime(), tt.wantLabel, tt.wantTime)
			}
		})
	}
}

func intp(i int) *int { return &i }

func TestNewSessionViewThreads(t *testing.T) {
	t1 := t0.Add(time.Hour)
	d := doc(
		session.Thread{CreatedAt: t0, Messages: chat(7)},
		session.Thread{CreatedAt: t1, CompactedFrom: intp(0), Summary: "first *summary*", Messages: chat(250)},
	)
	v := web.NewSessionView(d, web.SessionViewOptions{})

	if len(v.Earlier) != 1 {
		t.Fatalf("%d earlier threads, want 1", len(v.Earlier))
	}
	wantEarlier := web.ThreadView{
		Index: 0, CreatedAt: t0, Count: 7,
		SummaryHTML: "<p>first <em>summary</em></p>\n",
		CompactedAt: t1,
		LoadURL:     "/s/" + sessionID + "/messages?before=7&thread=0",
	}
	if diff := cmp.Diff(wantEarlier, v.Earlier[0]); diff != "" {
		t.Errorf("earlier thread (-want +got):\n%s", diff)
	}

	l := v.Latest
	if l.Index != 1 || l.Count != 250 || l.SummaryHTML != "" {
		t.Errorf("latest: Index %d Count %d Summary %q; want 1, 250, none (shown on thread 0)", l.Index, l.Count, l.SummaryHTML)
	}
	if l.Recent.Start != 150 || len(l.Recent.Messages) != 100 || l.Recent.Messages[99].ID != "m249" {
		t.Errorf("latest shows from %d, %d messages; want the last 100 from 150", l.Recent.Start, len(l.Recent.Messages))
	}
	if v.MessageCount != 257 {
		t.Errorf("MessageCount = %d, want 257", v.MessageCount)
	}
}

func TestNewSessionViewRecentLimit(t *testing.T) {
	v := web.NewSessionView(doc(session.Thread{Messages: chat(10)}), web.SessionViewOptions{RecentLimit: 4})
	if v.Latest.Recent.Start != 6 || len(v.Latest.Recent.Messages) != 4 {
		t.Errorf("Start %d, %d messages; want 6, 4", v.Latest.Recent.Start, len(v.Latest.Recent.Messages))
	}
	if want := "/s/" + sessionID + "/messages?before=6&thread=0"; v.Latest.Recent.EarlierURL() != want {
		t.Errorf("EarlierURL = %q, want %q", v.Latest.Recent.EarlierURL(), want)
	}
}

func TestNewSessionViewSummaryWithoutPredecessor(t *testing.T) {
	// A session forked from a compacted thread starts with a summary of
	// history it does not hold: the latest thread shows it itself.
	v := web.NewSessionView(doc(session.Thread{Summary: "before the fork", Messages: chat(2)}), web.SessionViewOptions{})
	if !strings.Contains(v.Latest.SummaryHTML, "before the fork") {
		t.Errorf("latest SummaryHTML = %q, want the summary", v.Latest.SummaryHTML)
	}
}

func TestNewSessionViewNoThreads(t *testing.T) {
	v := web.NewSessionView(doc(), web.SessionViewOptions{})
	if len(v.Earlier) != 0 || v.Latest.Count != 0 || len(v.Latest.Recent.Messages) != 0 {
		t.Errorf("got %+v, want an empty latest thread", v)
	}
}

func TestNewSessionViewHeader(t *testing.T) {
	d := doc()
	d.Title = ""
	d.Links = []session.Link{{URL: "https://a.example", Title: "A"}, {URL: "https://b.example"}}
	d.Parent = &session.Parent{Session: "p", Thread: 2}
	lock := &web.LockInfo{PID: 4242, URL: "http://127.0.0.1:1234/s/" + sessionID}
	v := web.NewSessionView(d, web.SessionViewOptions{
		LockedBy: lock,
		Sidecars: map[string]string{"console": "c", "readline": "r", "zz": "z"},
	})
	if v.Title != "Fork of Untitled" {
		t.Errorf("Title = %q, want Fork of Untitled (a fork of an untitled session)", v.Title)
	}
	wantLinks := []web.LinkView{{URL: "https://a.example", Title: "A", RawTitle: "A"}, {URL: "https://b.example", Title: "https://b.example"}}
	if diff := cmp.Diff(wantLinks, v.Links); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}
	wantSidecars := []web.SidecarView{
		{Kind: "readline", Label: "Readline history", Text: "r"},
		{Kind: "console", Label: "Console transcript", Text: "c"},
		{Kind: "zz", Label: "zz", Text: "z"},
	}
	if diff := cmp.Diff(wantSidecars, v.Sidecars); diff != "" {
		t.Errorf("sidecars (-want +got):\n%s", diff)
	}
	if v.Parent == nil || v.Parent.URL() != "/s/p" {
		t.Errorf("Parent = %+v, want a link to /s/p", v.Parent)
	}
	if !v.ReadOnly() || !v.Streams() {
		t.Errorf("locked: ReadOnly %v Streams %v, want true, true", v.ReadOnly(), v.Streams())
	}
}

func TestNewSessionViewArchived(t *testing.T) {
	tests := []struct {
		name string
		doc  bool
		opt  bool
	}{
		{name: "loaded from the archive", opt: true},
		{name: "document says so", doc: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := doc()
			d.Archived = tt.doc
			v := web.NewSessionView(d, web.SessionViewOptions{Archived: tt.opt})
			if !v.Archived || !v.ReadOnly() || v.Streams() {
				t.Errorf("Archived %v ReadOnly %v Streams %v; want true, true, false", v.Archived, v.ReadOnly(), v.Streams())
			}
		})
	}
}
