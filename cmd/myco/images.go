package main

import (
	"context"
	"fmt"
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

func verifyImages(e env, st *stores) error {
	p := newProgress(e.stderr, "verifying images")
	rep, err := st.images.Verify(p.update)
	p.done()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "checked %d images (%s)\n", rep.Checked, byteSize(rep.Bytes))
	for _, s := range rep.Stray {
		fmt.Fprintf(e.stdout, "stray file (left alone): %s\n", s)
	}
	for _, c := range rep.Corrupt {
		fmt.Fprintf(e.stdout, "%s\n", c.Error())
	}
	if n := len(rep.Corrupt); n > 0 {
		return fmt.Errorf("%d of %d images are corrupt or unreadable", n, rep.Checked)
	}
	return nil
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
