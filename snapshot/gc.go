package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The store's lifetime: a session's manifests go when the session is
// deleted (DeleteSession); a blob goes when no manifest refers to it any
// more (GC), since blobs are shared by every manifest, of every session,
// that holds the same contents.

// Usage is what the store holds on disk.
type Usage struct {
	Sessions      int   // sessions with manifests
	Manifests     int   // manifests (two a turn), markers included
	ManifestBytes int64 //
	Blobs         int   // distinct contents
	BlobBytes     int64 //
}

// Bytes is the store's whole size.
func (u Usage) Bytes() int64 { return u.ManifestBytes + u.BlobBytes }

// GCReport is what a collection removed, or would remove.
type GCReport struct {
	// Sessions are the sessions whose manifests were removed: keep said
	// they no longer exist (deleted by a myco that left their snapshots).
	Sessions []string
	// Blobs and Bytes are the blobs no manifest refers to, with the
	// stray temporary files of a write that was cut short.
	Blobs int
	Bytes int64
	// Kept is how many blobs manifests still refer to.
	Kept int
}

// Usage measures the store.
func (s *Store) Usage() (Usage, error) {
	var u Usage
	sessions, err := s.sessions()
	if err != nil {
		return u, err
	}
	u.Sessions = len(sessions)
	for _, id := range sessions {
		entries, err := os.ReadDir(filepath.Join(s.root, id))
		if err != nil {
			return u, fmt.Errorf("snapshots of %s: %w", id, err)
		}
		for _, e := range entries {
			if info, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".json") {
				u.Manifests++
				u.ManifestBytes += info.Size()
			}
		}
	}
	err = s.eachBlob(func(_ string, info fs.FileInfo) error {
		u.Blobs++
		u.BlobBytes += info.Size()
		return nil
	})
	return u, err
}

// GC removes the manifests of sessions keep (nil: all) says are gone, then
// every blob no remaining manifest refers to. Entries the rule denies do
// not count as references: contents an older myco copied (a .env, a key)
// go too. A manifest that cannot be read stops it before anything is
// removed: the blobs it refers to are unknown. With dryRun nothing is
// removed; the report says what would be.
//
// The manifests are read while snapshots go on (a long-lived profile has
// hundreds of MB of them); then, with snapshots in this process held, the
// manifests written meanwhile are read too and the blobs swept. Another
// process must not take snapshots meanwhile (the command refuses while
// the profile's server runs).
func (s *Store) GC(keep func(session string) bool, dryRun bool) (GCReport, error) {
	var rep GCReport
	start := time.Now().Add(-time.Second) // mtimes are coarse on some file systems
	sessions, err := s.sessions()
	if err != nil {
		return rep, err
	}
	referenced := map[string]bool{}
	for _, id := range sessions {
		if keep != nil && !keep(id) {
			rep.Sessions = append(rep.Sessions, id)
			continue
		}
		if err := s.references(id, time.Time{}, referenced); err != nil {
			return rep, err
		}
	}
	s.blobs.Lock()
	defer s.blobs.Unlock()
	if err := s.referencesSince(start, rep.Sessions, referenced); err != nil {
		return rep, err
	}
	if !dryRun {
		for _, id := range rep.Sessions {
			if err := s.DeleteSession(id); err != nil {
				return rep, err
			}
		}
	}
	err = s.eachBlob(func(p string, info fs.FileInfo) error {
		if referenced[filepath.Base(p)] {
			rep.Kept++
			return nil
		}
		rep.Blobs++
		rep.Bytes += info.Size()
		if dryRun {
			return nil
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove blob: %w", err)
		}
		return nil
	})
	return rep, err
}

// referencesSince adds the references of manifests written since start,
// of every session but those gone.
func (s *Store) referencesSince(start time.Time, gone []string, refs map[string]bool) error {
	sessions, err := s.sessions()
	if err != nil {
		return err
	}
	for _, id := range sessions {
		if slices.Contains(gone, id) {
			continue
		}
		if err := s.references(id, start, refs); err != nil {
			return err
		}
	}
	return nil
}

// references adds the blobs session id's manifests modified since (zero:
// all) refer to.
func (s *Store) references(id string, since time.Time, refs map[string]bool) error {
	dir := filepath.Join(s.root, id)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return fmt.Errorf("snapshots of %s: %w", id, err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".tmp-") {
			continue
		}
		if !since.IsZero() {
			if info, err := e.Info(); err != nil || info.ModTime().Before(since) {
				continue
			}
		}
		m, err := s.readManifest(filepath.Join(dir, e.Name()))
		if errors.Is(err, fs.ErrNotExist) {
			continue // its session was deleted meanwhile
		}
		if err != nil {
			return fmt.Errorf("snapshot %s/%s cannot be read, so the blobs it refers to are unknown; nothing was removed: %w", id, e.Name(), err)
		}
		s.filter(m)
		for _, f := range m.Files {
			refs[f.SHA256] = true
		}
	}
	return nil
}

// sessions lists the sessions the store holds manifests of.
func (s *Store) sessions() ([]string, error) {
	entries, err := os.ReadDir(s.root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("snapshots: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "blobs" && checkName(e.Name()) == nil {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// eachBlob calls fn for every file under blobs/: the blobs, and the
// temporary files of a write cut short (not named by any manifest).
func (s *Store) eachBlob(fn func(p string, info fs.FileInfo) error) error {
	err := filepath.WalkDir(filepath.Join(s.root, "blobs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // gone meanwhile
		}
		return fn(p, info)
	})
	if err != nil {
		return fmt.Errorf("snapshot blobs: %w", err)
	}
	return nil
}
