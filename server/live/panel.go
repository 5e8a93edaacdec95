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
