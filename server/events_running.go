package server

import (
	"slices"
	"time"
	"unicode/utf8"

	"myco/server/event"
	"myco/session"
)

// runningTool is a call or a person's !command that runs now, as the hub
// saw it start, with the tail of the output it streamed: what a tab that
// connects mid-command needs to show it as the others do.
type runningTool struct {
	start   event.ToolStart // ToolUseID only, for a !command
	command bool            // a person's !command, which runs outside turns
	started time.Time
	output  []byte // the last RunningOutputTail bytes, at most twice that between trims
}

// trackRunning keeps the running calls and commands up to date; p.mu is
// held. A call starts with tool.start and ends with tool.end (or with its
// turn); a !command starts with its note, running, and ends with its note
// bearing the exit status.
func (p *publisher) trackRunning(ev event.Event) {
	switch e := ev.(type) {
	case event.ToolStart:
		p.dropRunning(e.ToolUseID)
		p.running = append(p.running, &runningTool{start: e, started: time.Now()})
	case event.Note:
		if e.Kind != session.NoteCommand {
			return
		}
		p.dropRunning(e.ID)
		if e.Exit == nil && !e.Removed {
			p.running = append(p.running, &runningTool{start: event.ToolStart{ToolUseID: e.ID}, command: true, started: time.Now()})
		}
	case event.ToolOutput:
		if r := p.findRunning(e.ToolUseID); r != nil {
			r.append(e.Text)
		}
	case event.ToolEnd:
		p.dropRunning(e.ToolUseID)
	case event.TurnEnd:
		// A call never outlives its turn; a !command runs outside turns.
		p.running = slices.DeleteFunc(p.running, func(r *runningTool) bool { return !r.command })
	}
}

func (p *publisher) findRunning(id string) *runningTool {
	i := slices.IndexFunc(p.running, func(r *runningTool) bool { return r.start.ToolUseID == id })
	if i < 0 {
		return nil
	}
	return p.running[i]
}

func (p *publisher) dropRunning(id string) {
	p.running = slices.DeleteFunc(p.running, func(r *runningTool) bool { return r.start.ToolUseID == id })
}

// append adds text to the output's tail. It trims only once the buffer
// is twice the tail, so a command printing line by line costs one copy
// per RunningOutputTail bytes, not one per line.
func (r *runningTool) append(text string) {
	r.output = append(r.output, text...)
	if len(r.output) >= 2*event.RunningOutputTail {
		r.output = append(r.output[:0], r.output[len(r.output)-event.RunningOutputTail:]...)
	}
}

// tail is the last RunningOutputTail bytes of the output, starting at a
// character: the cut never splits one.
func (r *runningTool) tail() string {
	out := r.output[max(0, len(r.output)-event.RunningOutputTail):]
	for len(out) > 0 && !utf8.RuneStart(out[0]) {
		out = out[1:]
	}
	return string(out)
}

// runningNow is the running calls and commands as a snapshot carries
// them, as of now; p.mu is held.
func (p *publisher) runningNow(now time.Time) []event.RunningTool {
	if len(p.running) == 0 {
		return nil
	}
	out := make([]event.RunningTool, 0, len(p.running))
	for _, r := range p.running {
		out = append(out, event.RunningTool{
			ToolUseID: r.start.ToolUseID, Message: r.start.Message, Tool: r.start.Tool, HTML: r.start.HTML,
			StartedAt: r.started.UTC(), ElapsedMS: now.Sub(r.started).Milliseconds(), Output: r.tail(),
		})
	}
	return out
}
