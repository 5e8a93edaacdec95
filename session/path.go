package session

import "path/filepath"

// Path is the file that holds session id's document, in the session
// folder or the archive: what /session shows, so a person can open it.
func (s *Store) Path(id string) (string, error) {
	dir, _, err := s.locate(id)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, id+".json"), nil
}
