package live

// Busy reports whether a session open here holds its turn slot: a turn
// (waiting for an approval too), a retry or a compaction, or has freed it
// and not yet told its tabs how it ended. A server started for one
// headless run (`myco run`) stops only once nothing runs, so a turn
// another run or a tab started on it is not cut short, nor its turn.end.
func (m *Manager) Busy() bool {
	m.mu.Lock()
	all := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		all = append(all, s)
	}
	m.mu.Unlock()
	for _, s := range all {
		s.mu.Lock()
		busy := s.slot != nil || s.releasing > 0
		s.mu.Unlock()
		if busy {
			return true
		}
	}
	return false
}
