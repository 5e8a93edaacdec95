package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"myco/profiles"
	"myco/server/tools"
	"myco/session"
	"myco/snapshot"
)

// snapshotsCommand is `myco snapshots du|gc`: how much room the undo
// snapshots take, and removing what no session needs any more.
func snapshotsCommand(_ context.Context, e env, profile string, args []string) error {
	if len(args) == 0 {
		fmt.Fprintf(e.stderr, "myco snapshots: which command? (du, gc)\n\n%s", usage)
		return errUsage
	}
	fs := newFlagSet("myco snapshots "+args[0], e.stderr)
	fs.StringVar(&profile, "profile", profile, "profile name")
	dryRun := fs.Bool("dry-run", false, "only say what gc would remove")
	pos, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return err
	}
	if err := wantArgs(e, "snapshots "+args[0], pos, 0); err != nil {
		return err
	}
	st, err := openStores(e, profile, false)
	if err != nil {
		return err
	}
	snaps := openSnapshots(st.profile)
	switch args[0] {
	case "du":
		return snapshotUsage(e, st, snaps)
	case "gc":
		return collectSnapshots(e, st, snaps, *dryRun)
	default:
		fmt.Fprintf(e.stderr, "myco snapshots: unknown command %q\n\n%s", args[0], usage)
		return errUsage
	}
}

// openSnapshots is the profile's snapshot store under the denied-path rule
// its settings make (their defaults when they cannot be read): a
// collection also drops what an older myco copied of denied files.
func openSnapshots(p *profiles.Profile) *snapshot.Store {
	denied := profiles.DefaultSettings().DeniedPaths
	if s, err := profiles.LoadSettings(p.SettingsPath()); err == nil {
		denied = s.DeniedPaths
	}
	return snapshot.Open(snapshotsDir(p), tools.DeniedRule(denied, p.Dir))
}

func snapshotsDir(p *profiles.Profile) string { return filepath.Join(p.Dir, "snapshots") }

// sessionExists is what a collection keeps snapshots of: a session whose
// document is still there, active or archived. Looked for twice: an
// archive or restore moving it between two looks is not a delete.
func sessionExists(ss *session.Store) func(string) bool {
	return func(id string) bool {
		for range 2 {
			if _, err := ss.IsArchived(id); !errors.Is(err, session.ErrNotFound) {
				return true
			}
		}
		return false
	}
}

// snapshotUsage prints the room the store takes, and what gc would free.
func snapshotUsage(e env, st *stores, snaps *snapshot.Store) error {
	u, err := snaps.Usage()
	if err != nil {
		return err
	}
	rep, err := snaps.GC(sessionExists(st.sessions), true)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s in %s\n", byteSize(u.Bytes()), snapshotsDir(st.profile))
	fmt.Fprintf(e.stdout, "  %d blobs (file contents, each stored once): %s\n", u.Blobs, byteSize(u.BlobBytes))
	fmt.Fprintf(e.stdout, "  %d manifests of %d sessions (two a turn): %s\n", u.Manifests, u.Sessions, byteSize(u.ManifestBytes))
	fmt.Fprintf(e.stdout, "`myco snapshots gc` would free %s (%d blobs no snapshot needs, %d deleted sessions' snapshots)\n",
		byteSize(rep.Bytes), rep.Blobs, len(rep.Sessions))
	return nil
}

// collectSnapshots removes the snapshots of sessions that no longer exist
// and the blobs no snapshot refers to. A real collection refuses while the
// profile's server runs: it takes snapshots, and collects on its own
// (daily, and at start).
func collectSnapshots(e env, st *stores, snaps *snapshot.Store, dryRun bool) error {
	if !dryRun {
		if info, ok := liveServer(st.profile); ok {
			return fmt.Errorf("myco is running for this profile (pid %d, %s) and collects its snapshots itself; stop it first, or use --dry-run", info.PID, info.URL)
		}
	}
	rep, err := snaps.GC(sessionExists(st.sessions), dryRun)
	if err != nil {
		return err
	}
	verb := "freed"
	if dryRun {
		verb = "would free"
	}
	fmt.Fprintf(e.stdout, "%s %s: %d blobs no snapshot needs, the snapshots of %d deleted sessions; %d blobs kept\n",
		verb, byteSize(rep.Bytes), rep.Blobs, len(rep.Sessions), rep.Kept)
	return nil
}
