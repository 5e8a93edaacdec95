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
	v := ContextView{Used: s.contextUsed, OffReason: s.autoOff}
	if s.m.opts.Limits != nil {
		l := s.m.opts.Limits(s.model())
		v.Threshold, v.Window = l.CompactAt, l.ContextWindow
	}
	v.Auto = v.Threshold > 0 && s.autoOff == ""
	if v.Threshold == 0 && v.OffReason == "" {
		v.OffReason = "auto_compact_at is 0 for this model"
	}
	return v
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
