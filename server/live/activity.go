package live

import "time"

// Activity is what a live session is doing, for the board of what needs
// the person and what works: a session in no busy state has none.
type Activity struct {
	Session string
	// Status is its busy state (thinking, tool, approval…).
	Status, Detail string
	// Since is when its turn (or compaction) began.
	Since time.Time
	// Parent is the session it works for, for a sub-agent's.
	Parent string
}

// Activities are the busy live sessions of this process.
func (m *Manager) Activities() []Activity {
	live := m.live()
	out := make([]Activity, 0, len(live))
	for _, s := range live {
		s.mu.Lock()
		slot, status, detail := s.slot, s.status, s.detail
		s.mu.Unlock()
		if slot == nil {
			continue
		}
		out = append(out, Activity{Session: s.id, Status: status, Detail: detail, Since: slot.started, Parent: s.parentID()})
	}
	return out
}

// live is the sessions open in this process now.
func (m *Manager) live() []*Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		out = append(out, s)
	}
	return out
}
