package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"myco/schedule"
)

// scheduleCommand is `myco schedule add|list|rm|run-now|history`. While
// the profile's server runs, each goes through its API (its page and its
// loop see the change at once); otherwise add, list, rm and history work
// on schedules.json directly. run-now needs the server: schedules run in
// the process that serves the profile.
func scheduleCommand(ctx context.Context, e env, profile string, args []string) error {
	if len(args) == 0 {
		fmt.Fprintf(e.stderr, "myco schedule: expected add, list, rm, run-now or history\n\n%s", usage)
		return errUsage
	}
	fs := newFlagSet("myco schedule "+args[0], e.stderr)
	fs.StringVar(&profile, "profile", profile, "profile name")
	asJSON := fs.Bool("json", false, "print JSON")
	var sc schedule.Schedule
	disabled := false
	if args[0] == "add" {
		fs.StringVar(&sc.Session, "session", schedule.NewSession, `"new" (a session of its own at each run) or the session to run in`)
		fs.StringVar(&sc.DeliverTo, "deliver-to", "", "the session the answer is left in, as a note")
		fs.StringVar(&sc.Model, "model", "", "the model of the sessions its runs make")
		fs.StringVar(&sc.Missed, "missed", schedule.MissedRunOnce, "a slot missed while myco was stopped: run_once or skip")
		fs.BoolVar(&disabled, "disabled", false, "add it disabled")
	}
	pos, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return err
	}
	c, err := openScheduleClient(e, profile)
	if err != nil {
		return err
	}
	switch args[0] {
	case "add":
		if len(pos) != 3 {
			fmt.Fprintf(e.stderr, "myco schedule add: expected NAME WHEN PROMPT (quote each)\n\n%s", usage)
			return errUsage
		}
		sc.Name, sc.When, sc.Prompt, sc.Enabled = pos[0], pos[1], pos[2], !disabled
		return c.add(ctx, sc)
	case "list":
		if err := wantArgs(e, "schedule list", pos, 0); err != nil {
			return err
		}
		return c.list(ctx, *asJSON)
	case "rm", "run-now", "history":
		if err := wantArgs(e, "schedule "+args[0], pos, 1); err != nil {
			return err
		}
		sc, err := c.find(ctx, pos[0])
		if err != nil {
			return err
		}
		switch args[0] {
		case "rm":
			return c.remove(ctx, sc)
		case "run-now":
			return c.runNow(ctx, sc)
		}
		return c.history(ctx, sc, *asJSON)
	}
	fmt.Fprintf(e.stderr, "myco schedule: unknown command %q\n\n%s", args[0], usage)
	return errUsage
}

// scheduleClient does the commands through the running server (server
// set) or on the file.
type scheduleClient struct {
	e     env
	st    *stores
	store *schedule.Store
	api   *apiClient // nil: no server runs, the commands work on the file
}

func openScheduleClient(e env, profile string) (*scheduleClient, error) {
	st, err := openStores(e, profile, false)
	if err != nil {
		return nil, err
	}
	c := &scheduleClient{e: e, st: st, store: schedule.OpenStore(st.profile.Dir, nil)}
	if info, ok := liveServer(st.profile); ok && answers(info) {
		c.api = newAPIClient(info)
	}
	return c, nil
}

// view is a schedule as the API answers it (and as --json prints it).
type scheduleView struct {
	schedule.Schedule
	NextRun *time.Time    `json:"next_run,omitempty"`
	LastRun *schedule.Run `json:"last_run,omitempty"`
}

func viewOf(sc schedule.Schedule) scheduleView {
	v := scheduleView{Schedule: sc}
	v.Runs = nil
	if n := sc.NextSlot(time.Local); !n.IsZero() {
		v.NextRun = &n
	}
	if r, ok := sc.LastRun(); ok {
		v.LastRun = &r
	}
	return v
}

func (c *scheduleClient) add(ctx context.Context, sc schedule.Schedule) error {
	// Session IDs may be given as prefixes or @last, as everywhere.
	for _, ref := range []*string{&sc.Session, &sc.DeliverTo} {
		if *ref == "" || *ref == schedule.NewSession {
			continue
		}
		id, err := c.st.resolve(c.e, *ref)
		if err != nil {
			return err
		}
		*ref = id
	}
	var v scheduleView
	if c.api != nil {
		body := map[string]any{
			"name": sc.Name, "when": sc.When, "prompt": sc.Prompt, "session": sc.Session,
			"deliver_to": sc.DeliverTo, "model": sc.Model, "enabled": sc.Enabled, "missed": sc.Missed,
		}
		if err := c.call(ctx, http.MethodPost, "/api/schedules", body, http.StatusCreated, &v); err != nil {
			return err
		}
	} else {
		added, err := c.store.Add(sc)
		if err != nil {
			return err
		}
		v = viewOf(added)
	}
	next := "none (disabled)"
	if v.NextRun != nil {
		next = v.NextRun.In(time.Local).Format("2006-01-02 15:04 MST")
	}
	fmt.Fprintf(c.e.stdout, "schedule %s added: %q, next run %s\n", v.ID, v.Name, next)
	return nil
}

func (c *scheduleClient) all(ctx context.Context) ([]scheduleView, error) {
	var out []scheduleView
	if c.api != nil {
		err := c.call(ctx, http.MethodGet, "/api/schedules", nil, http.StatusOK, &out)
		return out, err
	}
	list, err := c.store.List()
	for _, sc := range list {
		out = append(out, viewOf(sc))
	}
	return out, err
}

// find names a schedule by its ID, the start of its ID, or its name.
func (c *scheduleClient) find(ctx context.Context, ref string) (scheduleView, error) {
	list, err := c.all(ctx)
	if err != nil {
		return scheduleView{}, err
	}
	var found []scheduleView
	for _, v := range list {
		if v.ID == ref || v.Name == ref {
			return v, nil
		}
		if strings.HasPrefix(v.ID, ref) {
			found = append(found, v)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return scheduleView{}, fmt.Errorf("%w: %q names no schedule (myco schedule list shows them)", schedule.ErrNotFound, ref)
	}
	return scheduleView{}, fmt.Errorf("%q names %d schedules: give more of the ID", ref, len(found))
}

func (c *scheduleClient) list(ctx context.Context, asJSON bool) error {
	list, err := c.all(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		if list == nil {
			list = []scheduleView{}
		}
		return printJSON(c.e.stdout, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(c.e.stdout, "no schedules (myco schedule add NAME WHEN PROMPT adds one)")
		return nil
	}
	w := tabwriter.NewWriter(c.e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tWHEN\tNEXT RUN\tLAST RUN")
	for _, v := range list {
		next := "disabled"
		if v.NextRun != nil {
			next = v.NextRun.In(time.Local).Format("2006-01-02 15:04")
		} else if v.Enabled {
			next = "none"
		}
		last := "none yet"
		if v.LastRun != nil {
			last = v.LastRun.StartedAt.In(time.Local).Format("2006-01-02 15:04") + " " + v.LastRun.Summary()
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", v.ID[:min(8, len(v.ID))], v.Name, v.When, next, last)
	}
	return w.Flush()
}

func (c *scheduleClient) remove(ctx context.Context, v scheduleView) error {
	var err error
	if c.api != nil {
		err = c.call(ctx, http.MethodDelete, "/api/schedules/"+url.PathEscape(v.ID), nil, http.StatusNoContent, nil)
	} else {
		err = c.store.Delete(v.ID)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(c.e.stdout, "schedule %s (%q) removed\n", v.ID, v.Name)
	return nil
}

func (c *scheduleClient) runNow(ctx context.Context, v scheduleView) error {
	if c.api == nil {
		return fmt.Errorf("run-now needs the running myco (schedules run in the process that serves profile %q): start it with `myco --profile %s`, then run this again", c.st.profile.Name, c.st.profile.Name)
	}
	var out struct{ Run schedule.Run }
	if err := c.call(ctx, http.MethodPost, "/api/schedules/"+url.PathEscape(v.ID)+"/run", nil, http.StatusAccepted, &out); err != nil {
		return err
	}
	fmt.Fprintf(c.e.stdout, "run %s of %q started; myco schedule history %s shows how it ends\n", out.Run.ID, v.Name, v.ID[:min(8, len(v.ID))])
	return nil
}

func (c *scheduleClient) history(ctx context.Context, v scheduleView, asJSON bool) error {
	var runs []schedule.Run
	if c.api != nil {
		if err := c.call(ctx, http.MethodGet, "/api/schedules/"+url.PathEscape(v.ID)+"/runs", nil, http.StatusOK, &runs); err != nil {
			return err
		}
	} else {
		sc, err := c.store.Get(v.ID)
		if err != nil {
			return err
		}
		runs = slices.Clone(sc.Runs)
		slices.Reverse(runs)
	}
	if asJSON {
		if runs == nil {
			runs = []schedule.Run{}
		}
		return printJSON(c.e.stdout, runs)
	}
	if len(runs) == 0 {
		fmt.Fprintf(c.e.stdout, "%q has not run yet\n", v.Name)
		return nil
	}
	w := tabwriter.NewWriter(c.e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "STARTED\tTOOK\tOUTCOME\tSESSION\tTOKENS IN/OUT")
	for _, r := range runs {
		took := ""
		if !r.FinishedAt.IsZero() {
			took = r.FinishedAt.Sub(r.StartedAt).Round(time.Second).String()
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d/%d\n", r.StartedAt.In(time.Local).Format("2006-01-02 15:04:05"), took, cutSummary(r.Summary()), r.Session,
			r.Usage.Input+r.Usage.CacheRead+r.Usage.CacheWrite, r.Usage.Output)
	}
	return w.Flush()
}

// cutSummary keeps a failure's long words from stretching the table
// (--json has them whole).
func cutSummary(s string) string {
	const max = 72
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// call sends a request to the running server (apiClient.call) and says
// what it refused in the command's words.
func (c *scheduleClient) call(ctx context.Context, method, path string, body any, want int, out any) error {
	err := c.api.call(ctx, method, path, body, want, out)
	if ae := (*apiError)(nil); errors.As(err, &ae) {
		return fmt.Errorf("the running myco refused: %s", ae.msg)
	}
	return err
}
