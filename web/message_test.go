package web_test

import (
	"github.com/go-json-experiment/json/jsontext"
	"testing"

	"myco/session"
	"myco/web"
)

// A turn stopped while a tool ran can be retried: the answer that asked
// for the tool shows its interrupted outcome (the page pairs them), or the
// outcome arrives alone (live); a tool that finished, or an answer a retry
// replaced, offers no Retry.
func TestRetryableAfterAToolWasStopped(t *testing.T) {
	call := func(id, msg string) session.Message {
		return session.Message{ID: msg, Role: "assistant", StopReason: "tool_use", Content: []session.Block{
			{Type: session.BlockText, Text: "Running it."},
			{Type: session.BlockToolUse, ID: id, Name: "bash", Input: jsontext.Value(`{"command":"sleep 60"}`)},
		}}
	}
	results := func(id, msg string, interrupted bool) session.Message {
		return session.Message{ID: msg, Role: "user", Content: []session.Block{
			{Type: session.BlockToolResult, ToolUseID: id, Content: jsontext.Value(`"started"`), Interrupted: interrupted},
		}}
	}
	replaced := call("t3", "a3")
	replaced.ReplacedBy = "a4"
	replacedResults := results("t3", "r3", true)
	replacedResults.ReplacedBy = "a4"
	tests := []struct {
		name string
		msgs []session.Message
		want map[string]bool // by message ID, of the messages shown
	}{
		{name: "stopped: the answer with its outcome", msgs: []session.Message{call("t1", "a1"), results("t1", "r1", true)}, want: map[string]bool{"a1": true}},
		{name: "finished: no retry", msgs: []session.Message{call("t2", "a2"), results("t2", "r2", false)}, want: map[string]bool{"a2": false}},
		{name: "replaced: no retry", msgs: []session.Message{replaced, replacedResults}, want: map[string]bool{"a3": false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := &session.Document{ID: "s", Threads: []session.Thread{{Messages: tt.msgs}}}
			f, err := web.MessagesFragment(doc, 0, -1, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, m := range f.Messages {
				got[m.ID] = m.Retryable()
			}
			for id, want := range tt.want {
				if got[id] != want {
					t.Errorf("message %s Retryable() = %v, want %v (shown: %v)", id, got[id], want, got)
				}
			}
		})
	}
	live := web.NewMessageView("s", results("t1", "r1", true))
	if !live.Retryable() {
		t.Error("the interrupted outcome alone, as it arrives live, offers no Retry")
	}
}

// Copyable: a message with words has a copy button; one of tool results
// or an image alone has none.
func TestCopyable(t *testing.T) {
	tests := []struct {
		name string
		m    session.Message
		want bool
	}{
		{name: "a person's words", m: session.Message{Role: "user", Human: true, Content: []session.Block{{Type: session.BlockText, Text: "hi"}}}, want: true},
		{name: "an answer", m: session.Message{Role: "assistant", Content: []session.Block{{Type: session.BlockText, Text: "**hi**"}}}, want: true},
		{name: "tool results", m: session.Message{Role: "user", Content: []session.Block{{Type: session.BlockToolResult, ToolUseID: "t", Content: jsontext.Value(`"ok"`)}}}, want: false},
		{name: "an image alone", m: session.Message{Role: "user", Human: true, Content: []session.Block{{Type: session.BlockImage, SHA256: "ab", MediaType: "image/png"}}}, want: false},
		{name: "empty text", m: session.Message{Role: "assistant", Content: []session.Block{{Type: session.BlockText, Text: ""}}}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := web.NewMessageView("s", tt.m).Copyable(); got != tt.want {
				t.Errorf("Copyable() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLabel(t *testing.T) {
	text := []session.Block{{Type: session.BlockText, Text: "x"}}
	tests := []struct {
		m    session.Message
		want string
	}{
		{session.Message{Role: "user", Human: true, Content: text}, "You"},
		{session.Message{Role: "user", Human: true, Steer: true, Content: text}, "You · steer"},
		{session.Message{Role: "user", Goal: &session.GoalTurn{Turn: 3, Of: 10}, Content: text}, "Goal · turn 3 of 10"},
		{session.Message{Role: "assistant", Content: text}, "Agent"},
	}
	for _, tt := range tests {
		if got := web.NewMessageView("s", tt.m).Label(); got != tt.want {
			t.Errorf("Label() = %q, want %q", got, tt.want)
		}
	}
}
