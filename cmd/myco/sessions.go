package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"text/tabwriter"
	"time"

	"myco/session"
)

func sessionsCommand(ctx context.Context, e env, profile string, args []string) error {
	if len(args) == 0 {
		fmt.Fprintf(e.stderr, "myco sessions: which command? (list, show, search, title, archive, restore, fork, delete, export, compact)\n\n%s", usage)
		return errUsage
	}
	fs := newFlagSet("myco sessions "+args[0], e.stderr)
	fs.StringVar(&profile, "profile", profile, "profile name")
	asJSON := fs.Bool("json", false, "print JSON")
	archived := fs.Bool("archived", false, "list archived sessions")
	keepTurns := fs.Int("keep-turns", -1, "fork: keep the first N turns of the latest thread (default: all)")
	yes := fs.Bool("yes", false, "delete: do not ask")
	format := fs.String("format", "", "export: md, json or html")
	outFile := fs.String("o", "", "export: the file to write, - for stdout (default: a new file in this folder)")
	focus := fs.String("focus", "", "compact: what the summary must keep")
	pos, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return err
	}
	switch args[0] {
	case "list":
		if err := wantArgs(e, "sessions list", pos, 0); err != nil {
			return err
		}
		return listSessions(e, profile, *archived, *asJSON)
	case "show":
		if err := wantArgs(e, "sessions show", pos, 1); err != nil {
			return err
		}
		return showSession(e, profile, pos[0], *asJSON)
	case "search":
		if err := wantArgs(e, "sessions search", pos, 1); err != nil {
			return err
		}
		return searchSessions(e, profile, pos[0], *asJSON)
	case "title":
		if err := wantArgs(e, "sessions title", pos, 2); err != nil {
			return err
		}
		return retitleSession(ctx, e, profile, pos[0], pos[1])
	case "archive", "restore":
		if len(pos) == 0 {
			return wantArgs(e, "sessions "+args[0], pos, 1)
		}
		return eachSession(pos, func(p string) error { return moveSession(e, profile, p, args[0] == "archive") })
	case "fork":
		if err := wantArgs(e, "sessions fork", pos, 1); err != nil {
			return err
		}
		return forkSession(e, profile, pos[0], *keepTurns)
	case "delete":
		if len(pos) == 0 {
			return wantArgs(e, "sessions delete", pos, 1)
		}
		return eachSession(pos, func(p string) error { return deleteSession(e, profile, p, *yes) })
	case "compact":
		if err := wantArgs(e, "sessions compact", pos, 1); err != nil {
			return err
		}
		return compactSession(ctx, e, profile, pos[0], *focus)
	case "export":
		if err := wantArgs(e, "sessions export", pos, 1); err != nil {
			return err
		}
		return exportSession(e, profile, pos[0], *format, *outFile)
	default:
		fmt.Fprintf(e.stderr, "myco sessions: unknown command %q\n\n%s", args[0], usage)
		return errUsage
	}
}

func listSessions(e env, profile string, archived, asJSON bool) error {
	st, err := openStores(e, profile, false)
	if err != nil {
		return err
	}
	sums, err := st.sessions.List(session.ListOptions{Archived: archived})
	if err != nil {
		return err
	}
	if asJSON {
		if sums == nil {
			sums = []session.Summary{}
		}
		return writeJSON(e, sums)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tMSGS\tMODEL\tNAME\tTITLE")
	for _, s := range sums {
		if s.Damaged != "" {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\tDAMAGED: %s\n", s.ID, s.UpdatedAt.Local().Format(time.DateTime), s.Damaged)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", s.ID, s.UpdatedAt.Local().Format(time.DateTime), s.Messages, orDash(s.Model), orDash(s.Name), orDash(s.Title))
	}
	return tw.Flush()
}

func showSession(e env, profile, prefix string, asJSON bool) error {
	st, id, err := openSession(e, profile, prefix)
	if err != nil {
		return err
	}
	doc, err := st.sessions.Load(id)
	if err != nil {
		return err
	}
	if asJSON {
		data, err := session.Encode(doc)
		if err != nil {
			return err
		}
		_, err = e.stdout.Write(data)
		return err
	}
	archived, err := st.sessions.IsArchived(id)
	if err != nil {
		return err
	}
	sidecars, err := readSidecars(st.sessions, id)
	if err != nil {
		return err
	}
	return printTranscript(e.stdout, doc, archived, sidecars)
}

// sidecarKinds are the historical transcripts a session may have, in the
// order the session page shows them, with its labels.
var sidecarKinds = []struct{ kind, label string }{
	{session.SidecarReadline, "Readline history"},
	{session.SidecarConsole, "Console transcript"},
}

// sidecar is a historical transcript kept beside a document.
type sidecar struct{ label, text string }

// readSidecars reads the historical transcripts of session id, whole: the
// page shows their tails only to keep a page light, a terminal or a pipe
// can take all of it.
func readSidecars(st *session.Store, id string) ([]sidecar, error) {
	var out []sidecar
	for _, k := range sidecarKinds {
		data, err := st.Sidecar(id, k.kind)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read the %s of session %s: %w", k.kind, id, err)
		}
		out = append(out, sidecar{label: k.label, text: string(data)})
	}
	return out, nil
}

func moveSession(e env, profile, prefix string, archive bool) error {
	st, id, err := openSession(e, profile, prefix)
	if err != nil {
		return err
	}
	if archive {
		err = st.sessions.Archive(id)
	} else {
		err = st.sessions.Restore(id)
	}
	if err != nil {
		return err
	}
	verb := map[bool]string{true: "archived", false: "restored"}[archive]
	fmt.Fprintf(e.stdout, "%s %s\n", verb, id)
	return nil
}

func writeJSON(e env, v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func searchSessions(e env, profile, query string, asJSON bool) error {
	st, err := openStores(e, profile, false)
	if err != nil {
		return err
	}
	hits, err := st.sessions.Search(query, session.DefaultSearchLimit)
	if err != nil {
		return err
	}
	if asJSON {
		if hits == nil {
			hits = []session.Hit{}
		}
		return writeJSON(e, hits)
	}
	if len(hits) == 0 {
		return fmt.Errorf("nothing matches %q", query)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tWHERE\tTITLE\tEXCERPT")
	for _, h := range hits {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", h.Session, h.Kind, orDash(h.Title), h.Excerpt)
	}
	return tw.Flush()
}
