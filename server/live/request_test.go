package live

import (
	"testing"

	"myco/session"
)

// What the model is sent of a thread: answers a retry replaced and
// answers that are only an error are left out; a failed answer with
// text is sent (the model wrote it), its error is not.
func TestSeenLeavesOutErrorsAndReplaced(t *testing.T) {
	text := func(s string) []session.Block { return []session.Block{{Type: session.BlockText, Text: s}} }
	failure := &session.MessageError{Kind: "auth", Message: "The API key was refused"}
	msgs := []session.Message{
		{ID: "h1", Role: "user", Human: true, Content: text("hi")},
		{ID: "e1", Role: "assistant", StopReason: session.StopError, Error: failure, Content: []session.Block{}},
		{ID: "e2", Role: "assistant", StopReason: session.StopError, Error: failure, Content: text(" ")},
		{ID: "r1", Role: "assistant", StopReason: session.StopError, ReplacedBy: "a1", Content: text("half")},
		{ID: "a1", Role: "assistant", StopReason: session.StopError, Error: failure, Content: text("partial")},
	}
	var got []string
	for _, m := range seen(msgs) {
		got = append(got, m.ID)
	}
	if want := []string{"h1", "a1"}; len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("seen = %v, want %v", got, want)
	}
}
