package session_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"myco/session"
)

// A session marked archived whose files have not moved yet (its archive
// waited for a turn, or a crash came between the mark and the move) is
// deleted from where it is, with what a cut-short move left in the other
// folder; nothing of it is left, the lock file included. A probe of its
// owner afterwards makes no lock file again.
func TestDeleteMarkedArchived(t *testing.T) {
	tests := []struct {
		name string
		mark bool
		want error
	}{
		{"marked, not moved", true, nil},
		{"not marked", false, session.ErrNotArchived},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, dir := openStore(t, session.Options{})
			id := forkParentID
			if err := s.Save(newDoc(id, t0, 1, 2)); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Update(id, func(d *session.Document) error { d.Archived = tt.mark; return nil }); err != nil {
				t.Fatal(err)
			}
			stray := filepath.Join(dir, session.ArchivedDir, id+".console")
			if err := os.WriteFile(stray, []byte("moved before the crash"), 0o600); err != nil {
				t.Fatal(err)
			}
			err := s.Delete(id)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Delete: %v, want %v", err, tt.want)
			}
			if tt.want != nil {
				if _, err := s.Load(id); err != nil {
					t.Errorf("a refused delete changed the session: %v", err)
				}
				return
			}
			if _, _, err := s.Owner(id); err != nil {
				t.Fatal(err)
			}
			left, _ := filepath.Glob(filepath.Join(dir, "*", id+"*"))
			more, _ := filepath.Glob(filepath.Join(dir, id+"*"))
			if len(left)+len(more) > 0 {
				t.Errorf("files left: %v %v", left, more)
			}
		})
	}
}
