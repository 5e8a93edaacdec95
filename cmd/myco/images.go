package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"myco/session"
)

func imagesCommand(ctx context.Context, e env, profile string, args []string) error {
	if len(args) == 0 {
		fmt.Fprintf(e.stderr, "myco images: which command? (verify, gc)\n\n%s", usage)
		return errUsage
	}
	fs := newFlagSet("myco images "+args[0], e.stderr)
	fs.StringVar(&profile, "profile", profile, "profile name")
	dryRun := fs.Bool("dry-run", false, "only list what gc would remove")
	pos, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return err
	}
	if err := wantArgs(e, "images "+args[0], pos, 0); err != nil {
		return err
	}
	st, err := openStores(e, profile, false)
	if err != nil {
		return err
	}
	switch args[0] {
	case "verify":
		return verifyImages(e, st)
	case "gc":
		return collectImages(e, st, *dryRun)
	default:
		fmt.Fprintf(e.stderr, "myco images: unknown command %q\n\n%s", args[0], usage)
		return errUsage
	}
}

// verifyImages hashes every stored image and looks for every image a
// session refers to. Each problem is one line on stderr, naming the session
// that refers to the image: that is whose picture is lost, and where a
// person goes to mend it.
func verifyImages(e env, st *stores) error {
	p := newProgress(e.stderr, "reading sessions")
	users, damaged, err := st.sessions.ImageUsers(p.update)
	p.done()
	if err != nil {
		return err
	}
	referenced := make(map[string]bool, len(users))
	for sha := range users {
		referenced[sha] = true
	}
	p = newProgress(e.stderr, "verifying images")
	rep, err := st.images.Verify(referenced, p.update)
	p.done()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "checked %d images (%s); %d referenced by sessions\n", rep.Checked, byteSize(rep.Bytes), len(referenced))
	for _, s := range rep.Stray {
		fmt.Fprintf(e.stdout, "stray file (left alone): %s\n", s)
	}
	for _, d := range damaged {
		fmt.Fprintf(e.stderr, "session %s: cannot read its image references: %s\n", d.ID, oneLine(d.Damaged))
	}
	for _, bad := range append(rep.Missing, rep.Corrupt...) {
		reportImage(e, bad, users[bad.SHA256])
	}
	return verifyOutcome(rep, len(damaged))
}

// reportImage prints one line per session that refers to a bad image, or
// one line saying that none does (then nothing is lost but disk space).
func reportImage(e env, bad session.ImageError, sessions []string) {
	if len(sessions) == 0 {
		fmt.Fprintf(e.stderr, "%s (no session refers to it)\n", bad.Error())
	}
	for _, id := range sessions {
		fmt.Fprintf(e.stderr, "session %s: %s\n", id, bad.Error())
	}
}

// verifyOutcome sums up what verify found as the command's error, nil when
// every image is sound and every document could be checked.
func verifyOutcome(rep session.VerifyReport, damaged int) error {
	var problems []string
	if n := len(rep.Missing); n > 0 {
		problems = append(problems, fmt.Sprintf("%d referenced images are missing", n))
	}
	if n := len(rep.Corrupt); n > 0 {
		problems = append(problems, fmt.Sprintf("%d of %d images are corrupt or unreadable", n, rep.Checked))
	}
	if damaged > 0 {
		problems = append(problems, fmt.Sprintf("%d damaged documents could not be checked", damaged))
	}
	if len(problems) == 0 {
		return nil
	}
	return errors.New(strings.Join(problems, "; "))
}

// collectImages removes blobs that no document refers to. A damaged
// document could refer to any blob, so a real collection refuses to run
// while one exists, and while the profile's server runs (an image uploaded
// for a message not sent yet is referenced by nothing).
func collectImages(e env, st *stores, dryRun bool) error {
	p := newProgress(e.stderr, "reading sessions")
	refs, damaged, err := st.sessions.ImageRefs(p.update)
	p.done()
	if err != nil {
		return err
	}
	for _, d := range damaged {
		fmt.Fprintf(e.stdout, "cannot read references of %s: %s\n", d.ID, d.Damaged)
	}
	if !dryRun {
		if len(damaged) > 0 {
			return fmt.Errorf("%d damaged documents may refer to images; repair or remove them, or use --dry-run", len(damaged))
		}
		if info, ok := liveServer(st.profile); ok {
			return fmt.Errorf("myco is running for this profile (pid %d, %s); stop it before collecting images", info.PID, info.URL)
		}
	}
	p = newProgress(e.stderr, "checking images")
	rep, err := st.images.Collect(refs, dryRun, p.update)
	p.done()
	if err != nil {
		return err
	}
	verb := "removed"
	if dryRun {
		verb = "would remove"
	}
	for _, sha := range rep.Removed {
		fmt.Fprintf(e.stdout, "%s %s\n", verb, sha)
	}
	fmt.Fprintf(e.stdout, "%s %d images (%s); %d referenced images kept\n", verb, len(rep.Removed), byteSize(rep.Bytes), rep.Kept)
	return nil
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d B", n)
	}
}
