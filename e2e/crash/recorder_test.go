package crash

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"myco/e2e/internal/mycotest"
)

// delta is one text.delta as the client received it.
type delta struct {
	at   time.Time
	text string
}

// answer is one assistant message as the event stream showed it.
type answer struct {
	id     string
	deltas []delta
	ended  bool // message.end or message.discard arrived
}

func (a *answer) text() string {
	var b strings.Builder
	for _, d := range a.deltas {
		b.WriteString(d.text)
	}
	return b.String()
}

// receivedBy is the text the client had received at t.
func (a *answer) receivedBy(t time.Time) string {
	var b strings.Builder
	for _, d := range a.deltas {
		if d.at.After(t) {
			break
		}
		b.WriteString(d.text)
	}
	return b.String()
}

// toolRun is one tool call as the event stream showed it.
type toolRun struct {
	id, message string
	startAt     time.Time
	ended       bool
}

// recorder follows one session's event stream and keeps what the client
// received, stamped on arrival. Workers wait on it for their turns to end.
type recorder struct {
	stream *mycotest.Stream
	done   chan struct{}

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced at every event
	answers  []*answer
	byID     map[string]*answer
	tools    []*toolRun
	turnEnds int
	status   string
	bad      []string // events that did not parse
}

func newRecorder(s *mycotest.Stream) *recorder {
	r := &recorder{stream: s, done: make(chan struct{}), changed: make(chan struct{}), byID: map[string]*answer{}}
	go r.run()
	return r
}

// run reads events until the stream ends (the server died, or close).
func (r *recorder) run() {
	defer close(r.done)
	for {
		ev, err := r.stream.Next(context.Background(), 24*time.Hour, func(mycotest.Event) bool { return true })
		if err != nil {
			return
		}
		r.note(ev)
	}
}

func (r *recorder) note(ev mycotest.Event) {
	var d struct {
		Message   string `json:"message"`
		Role      string `json:"role"`
		Text      string `json:"text"`
		ToolUseID string `json:"tool_use_id"`
		Status    string `json:"status"`
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	defer func() { close(r.changed); r.changed = make(chan struct{}) }()
	if err := json.Unmarshal([]byte(ev.Data), &d); err != nil {
		r.bad = append(r.bad, fmt.Sprintf("%s: %v", ev.Name, err))
		return
	}
	switch ev.Name {
	case "message.start":
		if d.Role == "assistant" {
			r.answer(d.Message)
		}
	case "text.delta":
		a := r.answer(d.Message)
		a.deltas = append(a.deltas, delta{at: ev.At, text: d.Text})
	case "message.end", "message.discard":
		if a, ok := r.byID[d.Message]; ok {
			a.ended = true
		}
	case "tool.start":
		r.tools = append(r.tools, &toolRun{id: d.ToolUseID, message: d.Message, startAt: ev.At})
	case "tool.end":
		for _, t := range r.tools {
			if t.id == d.ToolUseID {
				t.ended = true
			}
		}
	case "turn.end":
		r.turnEnds++
	case "status":
		r.status = d.Status
	}
}

func (r *recorder) answer(id string) *answer {
	if a, ok := r.byID[id]; ok {
		return a
	}
	a := &answer{id: id}
	r.byID[id] = a
	r.answers = append(r.answers, a)
	return a
}

// waitTurnEnds waits until n turns have ended, or ctx ends.
func (r *recorder) waitTurnEnds(ctx context.Context, n int) error {
	for {
		r.mu.Lock()
		got, changed := r.turnEnds, r.changed
		r.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-changed:
		case <-r.done:
			return mycotest.ErrStreamEnded
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (r *recorder) turnsEnded() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.turnEnds
}

// wait waits for the reader to end, once the server has died.
func (r *recorder) wait() { <-r.done }

// streaming is the answers that were still streaming when the stream
// ended: started, not ended. Call after wait.
func (r *recorder) streaming() []*answer {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*answer
	for _, a := range r.answers {
		if !a.ended {
			out = append(out, a)
		}
	}
	return out
}

// running is the tool calls started and not ended.
func (r *recorder) running() []*toolRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*toolRun
	for _, t := range r.tools {
		if !t.ended {
			out = append(out, t)
		}
	}
	return out
}
