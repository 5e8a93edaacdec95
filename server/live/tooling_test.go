package live

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"myco/server/event"
	"myco/session"
)

// renderers are fake web renderers: each says what it was given, so a test
// can see which block an event's html was rendered from.
func renderers(o *Options) {
	o.RenderToolCall = func(use session.Block) (string, error) {
		return "<call " + use.ID + " " + use.Name + ">", nil
	}
	o.RenderToolResult = func(r session.Block) (string, error) {
		return "<result " + r.ToolUseID + " " + r.ResultText() + " diff=" + string(r.Unknown) + ">", nil
	}
	o.RenderApproval = func(id, name string, input []byte, diff string) (string, error) {
		return "<approval " + id + " " + name + " " + string(input) + " " + diff + ">", nil
	}
}

// TestToolEventsCarryTheirCards: tool.start names the answer that called
// the tool and carries the call's card; tool.approval its card, in the
// event and in the snapshot; tool.end the outcome as it is recorded, its
// diff included.
func TestToolEventsCarryTheirCards(t *testing.T) {
	e := newFileEnv(t, renderers)
	s := e.newSession(t)
	e.write(t, "a.txt", "one\n")
	if out := run(t, s, "read_file", map[string]any{"path": "a.txt"}); out.isError {
		t.Fatal(out.output)
	}
	use := toolUse("edit_file", edit("a.txt", "one", "ONE"))
	answer := session.Message{ID: "answer-1", Role: "assistant", Content: []session.Block{{Type: session.BlockText, Text: "editing"}, use}}
	if err := s.appendMessage(answer); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.runTools(context.Background(), []session.Block{use}) }()

	start := e.events.next(t, "tool.start").data.(event.ToolStart)
	if start.Message != "answer-1" || start.HTML != "<call "+use.ID+" edit_file>" {
		t.Errorf("tool.start message %q html %q: want answer-1 and the call's card", start.Message, start.HTML)
	}
	a := e.events.next(t, "tool.approval").data.(event.ToolApproval)
	want := "<approval " + use.ID + " edit_file " + string(use.Input) + " " + a.Diff + ">"
	if a.Diff == "" || a.HTML != want {
		t.Errorf("tool.approval html %q, want %q", a.HTML, want)
	}
	if snap := s.Snapshot(); len(snap.Approvals) != 1 || !reflect.DeepEqual(snap.Approvals[0], a) {
		// Session.Snapshot must build each approval with s.approvalEvent(a),
		// not a.event(), for a reloaded tab to get the card.
		t.Errorf("snapshot approvals %+v, want the event's %+v (card included)", snap.Approvals, a)
	}
	if err := s.Approve(a.ToolUseID, DecisionOnce); err != nil {
		t.Fatal(err)
	}
	end := e.events.next(t, "tool.end").data.(event.ToolEnd)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	recorded := lastResult(t, s)
	if want := "<result " + use.ID + " " + recorded.ResultText() + " diff=" + string(recorded.Unknown) + ">"; end.HTML != want {
		t.Errorf("tool.end html %q, want the recorded outcome's %q", end.HTML, want)
	}
	if !strings.Contains(end.HTML, "+ONE") {
		t.Errorf("tool.end html %q has no diff", end.HTML)
	}
}

// TestToolEventsWithoutRenderers: a renderer that fails, or none, leaves
// the event without html; the tool still runs and its events still go.
func TestToolEventsWithoutRenderers(t *testing.T) {
	broken := func(o *Options) {
		allowBash(o)
		o.RenderToolCall = func(session.Block) (string, error) { return "half", errors.New("broken") }
	}
	for name, mutate := range map[string]func(*Options){"none": allowBash, "failing": broken} {
		t.Run(name, func(t *testing.T) {
			e := newFileEnv(t, mutate)
			s := e.newSession(t)
			use := toolUse("bash", map[string]any{"command": "echo hi"})
			if err := s.runTools(context.Background(), []session.Block{use}); err != nil {
				t.Fatal(err)
			}
			if start := e.events.next(t, "tool.start").data.(event.ToolStart); start.HTML != "" || start.Message != "" {
				t.Errorf("tool.start html %q message %q: want neither (no renderer, no answer holding the call)", start.HTML, start.Message)
			}
			if end := e.events.next(t, "tool.end").data.(event.ToolEnd); end.HTML != "" || !strings.Contains(end.Output, "hi") {
				t.Errorf("tool.end html %q output %q", end.HTML, end.Output)
			}
		})
	}
}
