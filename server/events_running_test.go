package server

import (
	"strings"
	"testing"
	"unicode/utf8"

	"myco/server/event"
)

func newTestPublisher() *publisher {
	return &publisher{wake: make(chan struct{}, 1), subs: map[*subscriber]struct{}{}} // not running: events pile up
}

func exitCode(n int) *int { return &n }

// A tab that subscribes mid-command gets, in its snapshot, every call and
// !command running then with the output it printed so far; one that
// ended is not there.
func TestSnapshotCarriesRunningOutput(t *testing.T) {
	t.Parallel()
	start := event.ToolStart{Message: "a1", ToolUseID: "t1", Tool: "bash", HTML: `<div data-testid="tool-call"></div>`}
	tests := []struct {
		name   string
		events []event.Event
		want   map[string]string // tool_use_id → output
	}{
		{"nothing runs", nil, map[string]string{}},
		{"a call mid-run", []event.Event{start, event.ToolOutput{ToolUseID: "t1", Text: "out line 1\n"}, event.ToolOutput{ToolUseID: "t1", Text: "out line 2\n"}},
			map[string]string{"t1": "out line 1\nout line 2\n"}},
		{"a call that printed nothing yet", []event.Event{start}, map[string]string{"t1": ""}},
		{"a call that ended", []event.Event{start, event.ToolOutput{ToolUseID: "t1", Text: "x"}, event.ToolEnd{ToolUseID: "t1"}},
			map[string]string{}},
		{"output of a call never started", []event.Event{event.ToolOutput{ToolUseID: "t9", Text: "x"}}, map[string]string{}},
		{"a !command mid-run", []event.Event{event.Note{ID: "c1", Kind: "command"}, event.ToolOutput{ToolUseID: "c1", Text: "hi\n"}},
			map[string]string{"c1": "hi\n"}},
		{"a !command that ended", []event.Event{event.Note{ID: "c1", Kind: "command"}, event.Note{ID: "c1", Kind: "command", Exit: exitCode(0)}},
			map[string]string{}},
		{"the turn ended: its calls go, a !command stays", []event.Event{
			start, event.Note{ID: "c1", Kind: "command"}, event.TurnEnd{Turn: "u"},
		}, map[string]string{"c1": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newTestPublisher()
			for _, ev := range tt.events {
				p.enqueue(ev)
			}
			sub, _, _ := p.subscribe()
			defer p.unsubscribe(sub)
			got := map[string]string{}
			for _, r := range sub.running {
				got[r.ToolUseID] = r.Output
				if r.ElapsedMS < 0 || r.StartedAt.IsZero() {
					t.Errorf("%s: started %v, elapsed %d ms", r.ToolUseID, r.StartedAt, r.ElapsedMS)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("running = %+v, want %v", sub.running, tt.want)
			}
			for id, out := range tt.want {
				if got[id] != out {
					t.Errorf("%s output = %q, want %q", id, got[id], out)
				}
			}
		})
	}
}

// The snapshot's output and the events after it join exactly: nothing
// twice, nothing missing; and a call carries its tool.start's card.
func TestRunningOutputJoinsTheEventsAfter(t *testing.T) {
	t.Parallel()
	p := newTestPublisher()
	p.enqueue(event.ToolStart{Message: "a1", ToolUseID: "t1", Tool: "bash", HTML: "<card>"})
	for _, l := range []string{"1", "2", "3"} {
		p.enqueue(event.ToolOutput{ToolUseID: "t1", Text: "out line " + l + "\n"})
	}
	sub, seq, _ := p.subscribe()
	defer p.unsubscribe(sub)
	if len(sub.running) != 1 {
		t.Fatalf("running = %+v", sub.running)
	}
	r := sub.running[0]
	if r.Message != "a1" || r.Tool != "bash" || r.HTML != "<card>" {
		t.Errorf("running call = %+v, want tool.start's message, name and card", r)
	}
	p.enqueue(event.ToolOutput{ToolUseID: "t1", Text: "out line 4\n"})
	text := r.Output
	for _, q := range p.queue {
		if o, ok := q.ev.(event.ToolOutput); ok && q.id > seq {
			text += o.Text
		}
	}
	if want := "out line 1\nout line 2\nout line 3\nout line 4\n"; text != want {
		t.Errorf("snapshot then events = %q, want %q", text, want)
	}
}

// A command printing more than the tail keeps only the tail, cut at a
// character, however it arrived.
func TestRunningOutputKeepsTheTail(t *testing.T) {
	t.Parallel()
	p := newTestPublisher()
	p.enqueue(event.ToolStart{ToolUseID: "t1"})
	var all strings.Builder
	for i := 0; all.Len() < 3*event.RunningOutputTail; i++ {
		line := strings.Repeat("é", i%7) + "ünïcode line\n"
		all.WriteString(line)
		p.enqueue(event.ToolOutput{ToolUseID: "t1", Text: line})
	}
	sub, _, _ := p.subscribe()
	defer p.unsubscribe(sub)
	out := sub.running[0].Output
	if len(out) > event.RunningOutputTail || len(out) < event.RunningOutputTail-utf8.UTFMax {
		t.Errorf("tail is %d bytes, want about %d", len(out), event.RunningOutputTail)
	}
	if !utf8.ValidString(out) || !strings.HasSuffix(all.String(), out) {
		t.Errorf("tail is not the end of the output, whole characters")
	}
}
