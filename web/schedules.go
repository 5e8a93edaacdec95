package web

import (
	"time"

	"myco/schedule"
)

// SchedulesURL is the Schedules page; SchedulesPartialURL its list alone,
// which the page refetches after each change and while a run runs.
const (
	SchedulesURL        = "/schedules"
	SchedulesPartialURL = "/partials/schedules"
)

// SchedulesView is the Schedules page: the profile's schedules, their
// next run and last outcome, and the form that adds one.
type SchedulesView struct {
	Profile string
	// Zone names the time zone the schedules' fields are read in.
	Zone string
	// Runs says whether this process runs the schedules (it holds the
	// profile); false: another myco does, or none.
	Runs bool
	Rows []ScheduleRow
}

// ScheduleRow is one schedule as its row shows it.
type ScheduleRow struct {
	ID, Name, When, Prompt string
	// Target says where runs go: a new session each time, or one.
	Target, TargetURL string
	DeliverTo         string
	DeliverURL        string
	Missed            string
	Enabled, Running  bool
	Next              time.Time
	Last              *ScheduleRunView
}

// ScheduleRunView is a run as the row shows it.
type ScheduleRunView struct {
	Outcome    string // done, failed, running…: a class and data-outcome
	Summary    string // with why: "skipped: a turn was running in the session"
	At         time.Time
	SessionURL string
	Usage      string // "1,234 in · 56 out · $0.01", "" when nothing was used
}

// NewSchedulesView builds the page's rows from the schedules, their next
// slot computed in loc; title names a session by its title ("" when it
// has none, or is gone: the row names it by its ID's start).
func NewSchedulesView(profile string, list []schedule.Schedule, loc *time.Location, runs bool, title func(id string) string) SchedulesView {
	v := SchedulesView{Profile: profile, Zone: loc.String(), Runs: runs, Rows: make([]ScheduleRow, 0, len(list))}
	if v.Zone == "Local" {
		v.Zone = time.Now().In(loc).Format("MST")
	}
	for _, sc := range list {
		v.Rows = append(v.Rows, newScheduleRow(sc, loc, title))
	}
	return v
}

func newScheduleRow(sc schedule.Schedule, loc *time.Location, title func(string) string) ScheduleRow {
	name := func(id string) string {
		if t := title(id); t != "" {
			return "“" + t + "”"
		}
		return "session " + shortID(id)
	}
	r := ScheduleRow{
		ID: sc.ID, Name: sc.Name, When: sc.When, Prompt: firstLine(sc.Prompt), Missed: sc.Missed,
		Enabled: sc.Enabled, Running: sc.Running(), Next: sc.NextSlot(loc),
		Target: "a new session each run", DeliverTo: sc.DeliverTo,
	}
	if sc.Session != schedule.NewSession {
		r.Target, r.TargetURL = name(sc.Session), "/s/"+sc.Session
	}
	if sc.DeliverTo != "" {
		r.DeliverTo, r.DeliverURL = name(sc.DeliverTo), "/s/"+sc.DeliverTo
	}
	if last, ok := sc.LastRun(); ok {
		lv := &ScheduleRunView{Outcome: last.Outcome, Summary: last.Summary(), At: last.StartedAt, Usage: runUsage(last)}
		if last.Session != "" {
			lv.SessionURL = "/s/" + last.Session
		}
		r.Last = lv
	}
	return r
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// runUsage is a run's tokens and cost in a few words.
func runUsage(r schedule.Run) string {
	in := r.Usage.Input + r.Usage.CacheRead + r.Usage.CacheWrite
	if in == 0 && r.Usage.Output == 0 {
		return ""
	}
	s := groupDigits(in) + " in · " + groupDigits(r.Usage.Output) + " out"
	if r.Cost != nil {
		s += " · " + formatUSD(*r.Cost)
	}
	return s
}

// outcomeClass is the outcome's class for its colour.
func outcomeClass(outcome string) string { return "outcome outcome-" + outcome }
