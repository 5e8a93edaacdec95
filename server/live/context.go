package live

import (
	"myco/server/event"
	"myco/session"
)

// ContextView is what the tab's gauge shows: the context the last call
// used against the threshold, and whether automatic compaction is on.
type ContextView = event.Context

// contextView is the gauge's state; s.mu is held.
func (s *Session) contextView() ContextView {
	used := s.contextUsed
	if used == 0 {
		// Nothing reported since this process opened the session or since
		// a compaction: the gauge shows the document's own figure, not 0.
		used = s.documentContext()
	}
	v := ContextView{Used: used, OffReason: s.autoOff}
	if s.m.opts.Limits != nil {
		l := s.m.opts.Limits(s.model())
		v.Threshold, v.Window = l.CompactAt, l.ContextWindow
	}
	v.Auto = v.Threshold > 0 && s.autoOff == ""
	if v.Threshold == 0 && v.OffReason == "" {
		v.OffReason = "auto_compact_at is 0 for this model"
	}
	if r := s.m.opts.RenderContext; r != nil {
		html, err := r(s.id, v)
		if err != nil {
			s.m.log.Warn("render context gauge failed", "session", s.id, "err", err)
		}
		v.HTML = html
	}
	return v
}

// documentContext is the context of the latest thread as the document
// tells it: what the last response of the thread's own messages (not the
// ones carried into it, whose figures are the old thread's) reported, else
// an estimate of what the next call will send, when there is anything to
// send. Only the writer's view is taken, so s.mu may be held.
func (s *Session) documentContext() int {
	used, estimated := 0, false
	s.w.View(func(d *session.Document) {
		if len(d.Threads) > 0 {
			used, estimated = d.Threads[len(d.Threads)-1].Context()
		}
	})
	if estimated {
		used += session.EstimateText(systemPrompt) + session.EstimateText(s.instructionsText())
	}
	return used
}

// noteContext records the context a model call used, as the provider
// counted it: the whole prompt (cached or not) plus the answer.
func (s *Session) noteContext(u session.Usage) {
	s.mu.Lock()
	s.contextUsed = u.Context()
	s.mu.Unlock()
	s.publishContext()
}

func (s *Session) publishContext() {
	s.mu.Lock()
	v := s.contextView()
	s.mu.Unlock()
	s.publish(v)
}

// appendContinue asks the agent to go on after a compaction in the middle
// of its tool loop. It is not the person's message, so it is not marked
// human.
func (s *Session) appendContinue() error {
	m := session.Message{ID: newID(), Role: "user", At: s.m.opts.Now().UTC(), Content: []session.Block{{Type: session.BlockText, Text: continueNote}}}
	return s.appendMessage(m)
}
