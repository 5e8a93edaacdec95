package server

import (
	"context"
	"errors"
	"time"

	"myco/session"
)

// The snapshot store's lifetime (docs/FORMAT.md): a deleted session's
// manifests go with it; the blobs no manifest refers to any more are
// collected when the server starts (what a `myco sessions delete` or an
// older myco left) and then once a day. Daily, not after each delete: a
// collection reads every manifest (a few hundred KB each, two a turn), and
// blobs only pile up as fast as turns change files, so a day's worth is
// small beside what the store holds; a delete frees the manifests at once.
const snapshotGCEvery = 24 * time.Hour

// forgetSnapshots removes a deleted session's snapshots. The session is
// gone whatever happens here: a failure is logged, and the collection at
// the next start removes them.
func (s *Server) forgetSnapshots(id string) {
	if s.snaps == nil {
		return
	}
	if err := s.snaps.DeleteSession(id); err != nil {
		s.log.Warn("deleting a session's snapshots failed", "session", id, "err", err)
	}
}

// collectSnapshots collects the store at start and every snapshotGCEvery
// until ctx ends.
func (s *Server) collectSnapshots(ctx context.Context) {
	if s.snaps == nil {
		return
	}
	t := time.NewTicker(snapshotGCEvery)
	defer t.Stop()
	for {
		s.collectSnapshotsOnce()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Server) collectSnapshotsOnce() {
	rep, err := s.snaps.GC(s.sessionExists, false)
	if err != nil {
		s.log.Warn("collecting snapshots failed", "err", err)
		return
	}
	if rep.Blobs > 0 || len(rep.Sessions) > 0 {
		s.log.Info("snapshots collected", "blobs", rep.Blobs, "bytes", rep.Bytes, "sessions", len(rep.Sessions), "kept", rep.Kept)
	}
}

// sessionExists: a session whose document is there, active or archived,
// looked for twice (an archive moving it between two looks is no delete).
func (s *Server) sessionExists(id string) bool {
	for range 2 {
		if _, err := s.opts.Sessions.IsArchived(id); !errors.Is(err, session.ErrNotFound) {
			return true
		}
	}
	return false
}
