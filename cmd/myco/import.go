package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"myco/importer"
	"myco/profiles"
)

// importCommand brings another agent's stored sessions into the profile:
// `myco import claude-code|codex|opencode [--json] [PATH…]`, the tool's
// own folder when no PATH is given.
//
// It writes into the profile's store itself, whether or not the profile's
// server runs: each session is a new document saved whole (a rename into
// session/), which a running server's listing notices at its next look
// (the folder changed), so there is no need to go through its API, and
// the import works the same with no server at all.
func importCommand(ctx context.Context, e env, profile string, args []string) error {
	fs := newFlagSet("myco import", e.stderr)
	fs.StringVar(&profile, "profile", profile, "profile name")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 || !slices.Contains(importer.Tools, pos[0]) {
		fmt.Fprintf(e.stderr, "myco import: which tool? (claude-code, codex, opencode)\n\n%s", usage)
		return errUsage
	}
	tool, paths := pos[0], pos[1:]
	for i, p := range paths {
		if abs, err := filepath.Abs(p); err == nil {
			paths[i] = abs
		}
	}
	// An import may be the first thing done with a profile: make it, then
	// open it as the other commands do (documents checked before use).
	if err := makeProfile(e, profile); err != nil {
		return err
	}
	st, err := openStores(e, profile, false)
	if err != nil {
		return err
	}
	p := newProgress(e.stderr, "importing "+tool+" sessions")
	rep, err := importer.Run(ctx, importer.Options{
		Tool: tool, Paths: paths, Getenv: e.getenv,
		Sessions: st.sessions, Images: st.images,
		Progress: func(pr importer.Progress) { p.update(pr.Done, pr.Total) },
	})
	p.done()
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printImport(e, rep)
	if rep.Failed > 0 || len(rep.Problems) > 0 && rep.Imported+rep.Already == 0 {
		return fmt.Errorf("%d of %d sessions could not be imported", rep.Failed, len(rep.Items))
	}
	return nil
}

// printImport says what each new session is and what could not be read.
func printImport(e env, rep *importer.Report) {
	for _, pr := range rep.Problems {
		fmt.Fprintf(e.stderr, "%s: %s\n", pr.Path, oneLine(pr.Reason))
	}
	for _, it := range rep.Items {
		switch it.Outcome {
		case importer.Imported:
			where := ""
			if it.Archived {
				where = ", archived"
			}
			fmt.Fprintf(e.stdout, "imported %s  %s  (%s%s)\n", it.Session[:8], it.Title, countOf(it.Messages, "message"), where)
			if it.Skipped > 0 {
				fmt.Fprintf(e.stdout, "  %s skipped\n", countOf(it.Skipped, "damaged line"))
			}
			for _, n := range it.Notes {
				fmt.Fprintf(e.stdout, "  %s\n", n)
			}
		case importer.Failed, importer.NotSession:
			fmt.Fprintf(e.stderr, "%s: %s\n", it.Path, oneLine(it.Error))
		}
	}
	line := fmt.Sprintf("%d imported, %d imported before, %d failed", rep.Imported, rep.Already, rep.Failed)
	if rep.NotSessions > 0 {
		line += ", " + countOf(rep.NotSessions, "file") + " not a session"
	}
	fmt.Fprintln(e.stdout, line)
}

// countOf is "1 file", "2 files".
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// makeProfile creates profile unless it exists.
func makeProfile(e env, name string) error {
	if name == "" {
		name = profiles.DefaultName
	}
	home, err := profiles.Home(e.getenv)
	if err != nil {
		return err
	}
	_, err = profiles.Open(home, name)
	return err
}
