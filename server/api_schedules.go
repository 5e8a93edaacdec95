package server

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"myco/schedule"
	"myco/web"
)

// Scheduled tasks: the profile's schedules.json through the API, and run
// now. The timing loop (schedule.Scheduler) runs them in the process that
// holds the profile's server lock.

// scheduleView is a schedule as the API answers it: its fields, its next
// run in the person's zone, and its last run (the rest: …/runs).
type scheduleView struct {
	schedule.Schedule
	NextRun *time.Time    `json:"next_run,omitempty"`
	LastRun *schedule.Run `json:"last_run,omitempty"`
}

func (s *Server) viewSchedule(sc schedule.Schedule) scheduleView {
	v := scheduleView{Schedule: sc}
	v.Runs = nil
	if next := sc.NextSlot(s.sched.Location()); !next.IsZero() {
		v.NextRun = &next
	}
	if r, ok := sc.LastRun(); ok {
		v.LastRun = &r
	}
	return v
}

func (s *Server) listSchedules(c echo.Context) error {
	list, err := s.schedules.List()
	if err != nil {
		return err
	}
	out := make([]scheduleView, 0, len(list))
	for _, sc := range list {
		out = append(out, s.viewSchedule(sc))
	}
	return c.JSON(http.StatusOK, out)
}

func (s *Server) getSchedule(c echo.Context) error {
	sc, err := s.schedules.Get(c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.viewSchedule(sc))
}

// scheduleRequest is a new schedule: enabled unless it says otherwise.
type scheduleRequest struct {
	Name      string `json:"name"`
	When      string `json:"when"`
	Prompt    string `json:"prompt"`
	Session   string `json:"session"`
	DeliverTo string `json:"deliver_to"`
	Model     string `json:"model"`
	Enabled   *bool  `json:"enabled"`
	Missed    string `json:"missed"`
}

func (s *Server) createSchedule(c echo.Context) error {
	var req scheduleRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	sc := schedule.Schedule{
		Name: req.Name, When: req.When, Prompt: req.Prompt, Session: req.Session,
		DeliverTo: req.DeliverTo, Model: req.Model, Enabled: req.Enabled == nil || *req.Enabled, Missed: req.Missed,
	}
	all := schedule.Patch{Session: &sc.Session, DeliverTo: &sc.DeliverTo, Model: &sc.Model}
	if err := s.checkScheduleRefs(c, &sc, all); err != nil {
		return err
	}
	sc, err := s.schedules.Add(sc)
	if err != nil {
		return err
	}
	s.sched.Wake()
	return c.JSON(http.StatusCreated, s.viewSchedule(sc))
}

func (s *Server) patchSchedule(c echo.Context) error {
	var p schedule.Patch
	if err := decodeJSON(c, &p); err != nil {
		return err
	}
	id := c.Param("id")
	sc, err := s.schedules.Get(id)
	if err != nil {
		return err
	}
	// The sessions and model it names are checked as a new schedule's;
	// the store applies the change (and restarts the slots on a new when
	// or on enabling).
	probe := sc
	applySchedulePatch(&probe, p)
	if err := s.checkScheduleRefs(c, &probe, p); err != nil {
		return err
	}
	p.Session, p.DeliverTo, p.Model = &probe.Session, &probe.DeliverTo, &probe.Model
	sc, err = s.schedules.Patch(id, p)
	if err != nil {
		return err
	}
	s.sched.Wake()
	return c.JSON(http.StatusOK, s.viewSchedule(sc))
}

// applySchedulePatch is the change p makes to sc's fields, for checking it first.
func applySchedulePatch(sc *schedule.Schedule, p schedule.Patch) {
	set := func(dst *string, src *string) {
		if src != nil {
			*dst = *src
		}
	}
	set(&sc.Name, p.Name)
	set(&sc.When, p.When)
	set(&sc.Prompt, p.Prompt)
	set(&sc.Session, p.Session)
	set(&sc.DeliverTo, p.DeliverTo)
	set(&sc.Model, p.Model)
	set(&sc.Missed, p.Missed)
}

// checkScheduleRefs checks a schedule as a new one is checked, after
// turning the sessions it names (an ID, a prefix of one, @last) into
// IDs of sessions that exist and are not archived, and resolving its
// model as a session's model is. A PATCH checks only the sessions it
// changes: one archived since still lets the schedule be disabled.
func (s *Server) checkScheduleRefs(c echo.Context, sc *schedule.Schedule, changed schedule.Patch) error {
	for _, ref := range []struct {
		field   string
		id      *string
		changed bool
	}{{"session", &sc.Session, changed.Session != nil}, {"deliver_to", &sc.DeliverTo, changed.DeliverTo != nil}} {
		typed := strings.TrimSpace(*ref.id)
		if !ref.changed || typed == "" || typed == schedule.NewSession && ref.field == "session" {
			continue
		}
		id, err := s.opts.Sessions.Resolve(typed)
		if err != nil {
			return fmt.Errorf("%w: %s: there is no session %q", errBadInput, ref.field, typed)
		}
		if archived, _ := s.opts.Sessions.IsArchived(id); archived {
			return fmt.Errorf("%w: %s: session %q is archived", errBadInput, ref.field, id)
		}
		*ref.id = id
	}
	if err := sc.Normalize(); err != nil {
		return err
	}
	if changed.Model != nil && sc.Model != "" {
		model, _, err := s.resolveModel(c.Request().Context(), sc.Model)
		if err != nil {
			return err
		}
		sc.Model = model
	}
	return nil
}

func (s *Server) deleteSchedule(c echo.Context) error {
	if err := s.schedules.Delete(c.Param("id")); err != nil {
		return err
	}
	s.sched.Wake()
	return c.NoContent(http.StatusNoContent)
}

// runScheduleNow starts a run at once → 202 {run}, as recorded before it
// starts.
func (s *Server) runScheduleNow(c echo.Context) error {
	id := c.Param("id")
	if _, err := s.schedules.Get(id); err != nil {
		return err
	}
	r, err := s.sched.RunNow(s.runCtx, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]any{"run": r})
}

// scheduleRuns is the schedule's recorded runs, newest first.
func (s *Server) scheduleRuns(c echo.Context) error {
	sc, err := s.schedules.Get(c.Param("id"))
	if err != nil {
		return err
	}
	runs := slices.Clone(sc.Runs)
	slices.Reverse(runs)
	if runs == nil {
		runs = []schedule.Run{}
	}
	return c.JSON(http.StatusOK, runs)
}

// schedulesPage is the Schedules page.
func (s *Server) schedulesPage(c echo.Context) error {
	v, err := s.schedulesView()
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.SchedulesPage(v))
}

// schedulesPartial is the page's list alone, which it refetches.
func (s *Server) schedulesPartial(c echo.Context) error {
	v, err := s.schedulesView()
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.ScheduleRows(v))
}

func (s *Server) schedulesView() (web.SchedulesView, error) {
	list, err := s.schedules.List()
	if err != nil {
		return web.SchedulesView{}, err
	}
	// Whether this process runs them: it does once its loop took the
	// lock (at its first look, as Serve starts).
	runs := s.opts.ScheduleLock != nil && s.sched.Holder()
	title := func(id string) string {
		if h, err := s.opts.Sessions.Header(id); err == nil {
			return h.Title
		}
		return ""
	}
	return web.NewSchedulesView(s.opts.Profile, list, s.sched.Location(), runs, title), nil
}
