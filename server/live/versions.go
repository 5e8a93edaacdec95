package live

// Busy reports whether the session runs a turn or a compaction: its
// messages are not to be edited or regenerated until it is done
// (server/api_versions.go).
func (s *Session) Busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.slot != nil
}
