package live

import (
	"myco/server/event"
	"myco/session"
)

// publishPanel tells the tabs of the side panel as it stands, rendered as
// the page renders it, so a link the agent adds or a PATCH from another
// tab shows without a reload. A live session is this process's to change,
// so the panel is editable.
func (s *Session) publishPanel() {
	if s.m.opts.RenderPanel == nil {
		return
	}
	var html string
	var err error
	s.w.View(func(d *session.Document) { html, err = s.m.opts.RenderPanel(d) })
	if err != nil {
		s.m.log.Warn("render panel failed", "session", s.id, "err", err)
		return
	}
	s.publish(event.Panel{HTML: html})
}

// renderTurnUsage is the last turn's usage line for turn.end, rendered
// from d as the page renders it; "" when there is none or it failed.
func (s *Session) renderTurnUsage(d *session.Document) string {
	if s.m.opts.RenderTurnUsage == nil {
		return ""
	}
	html, err := s.m.opts.RenderTurnUsage(d)
	if err != nil {
		s.m.log.Warn("render turn usage failed", "session", s.id, "err", err)
	}
	return html
}
