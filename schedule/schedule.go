// Package schedule keeps the profile's scheduled tasks: a prompt run on a
// clock (a cron expression or @every) in its own session or a named one,
// its answer delivered as a note. It owns the file they live in
// (schedules.json: the schedules and each one's recent runs, replaced
// atomically) and the durable timing loop (Scheduler) that decides which
// slot is due, records a run before it starts and after it ends, and
// never runs a slot twice. What a run does (a turn of a session) is the
// server's: Runner.
package schedule

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"myco/internal/errkind"
)

var (
	// ErrInvalid is a schedule that cannot be kept: the reason follows.
	ErrInvalid = errkind.New(errkind.Invalid, "invalid schedule")
	// ErrNotFound names no schedule of the profile.
	ErrNotFound = errkind.New(errkind.NotFound, "no such schedule")
	// ErrBusy refuses a run now while a run of the schedule is running.
	ErrBusy = errkind.New(errkind.Conflict, "a run of this schedule is still running")
	// ErrNotHolder refuses a run now in a process that does not hold the
	// profile's server lock: another myco runs the schedules.
	ErrNotHolder = errkind.New(errkind.Conflict, "this myco does not run the profile's schedules (another myco holds the profile)")
)

// Session values: a run in a session of its own, made for it.
const NewSession = "new"

// Missed choices: what a slot missed while myco was stopped does.
const (
	MissedRunOnce = "run_once" // run once at start, however many slots were missed
	MissedSkip    = "skip"     // recorded as skipped; the next slot runs
)

// Outcomes of a run.
const (
	OutcomeRunning     = "running"
	OutcomeDone        = "done"        // the turn ended with an answer
	OutcomeFailed      = "failed"      // the turn (or starting it) failed: Detail says why
	OutcomeStopped     = "stopped"     // the turn was stopped (by the person, or myco stopping)
	OutcomeInterrupted = "interrupted" // myco ended during the run: never rerun
	OutcomeSkipped     = "skipped"     // nothing ran: Detail says why
)

// Triggers: what started a run.
const (
	TriggerClock  = "clock"  // its slot came
	TriggerMissed = "missed" // its slot passed while myco was stopped (missed: run_once)
	TriggerNow    = "now"    // run now (the page, the API, the CLI)
)

// MaxNameLen bounds a name: it is the from of the notes a run leaves.
const MaxNameLen = 80

// Schedule is one scheduled task, as schedules.json keeps it.
type Schedule struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	When   string `json:"when"`
	Prompt string `json:"prompt"`
	// Session is "new" (each run in a session of its own) or a session ID.
	Session   string `json:"session"`
	DeliverTo string `json:"deliver_to,omitempty"`
	// Model is the model of the sessions runs make; "" the default one.
	Model   string `json:"model,omitempty"`
	Enabled bool   `json:"enabled"`
	Missed  string `json:"missed"`
	// CreatedAt is when it was added. Since is where its slots start:
	// creation, or the last change of when or enabling; no slot at or
	// before it is due.
	CreatedAt time.Time `json:"created_at"`
	Since     time.Time `json:"since"`
	// LastSlot is the last slot dealt with (run, or recorded as skipped):
	// the next is computed from it, never from the clock alone.
	LastSlot time.Time `json:"last_slot,omitzero"`
	// Runs are the latest runs, oldest first, at most KeepRuns.
	Runs []Run `json:"runs,omitempty"`
}

// KeepRuns is how many runs of a schedule its file keeps.
const KeepRuns = 50

// Run is one run of a schedule, written before it starts and after.
type Run struct {
	ID         string    `json:"id"`
	Trigger    string    `json:"trigger"`
	Slot       time.Time `json:"slot,omitzero"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at,omitzero"`
	Session    string    `json:"session,omitempty"`
	Outcome    string    `json:"outcome"`
	Detail     string    `json:"detail,omitempty"`
	Usage      Tokens    `json:"usage,omitzero"`
	// Cost is in US dollars at the prices settings knew; absent when the
	// model has none.
	Cost *float64 `json:"cost,omitempty"`
	// Note is the ID of the note the answer became, in deliver_to.
	Note string `json:"note,omitempty"`
}

// Tokens are what a run's model calls reported.
type Tokens struct {
	Input      int64 `json:"input_tokens,omitzero"`
	Output     int64 `json:"output_tokens,omitzero"`
	CacheRead  int64 `json:"cache_read_input_tokens,omitzero"`
	CacheWrite int64 `json:"cache_creation_input_tokens,omitzero"`
}

// Finished says whether the run has ended (or never ran).
func (r Run) Finished() bool { return r.Outcome != OutcomeRunning }

// Summary is the outcome in a few words: "done", "skipped: a turn was
// running in the session".
func (r Run) Summary() string {
	if r.Detail == "" {
		return r.Outcome
	}
	return r.Outcome + ": " + r.Detail
}

// LastRun is the schedule's latest run, if any.
func (s Schedule) LastRun() (Run, bool) {
	if len(s.Runs) == 0 {
		return Run{}, false
	}
	return s.Runs[len(s.Runs)-1], true
}

// Running says whether a run of it is recorded as started and not ended.
func (s Schedule) Running() bool {
	r, ok := s.LastRun()
	return ok && !r.Finished()
}

// NextSlot is when the schedule runs next, in loc: the first slot after
// the last one dealt with (it may be past: due now); zero for a disabled
// schedule or one whose when has no slot.
func (s Schedule) NextSlot(loc *time.Location) time.Time {
	if !s.Enabled {
		return time.Time{}
	}
	w, err := ParseWhen(s.When)
	if err != nil {
		return time.Time{}
	}
	return w.Next(s.anchor(), loc)
}

// anchor is the time its next slot is computed from.
func (s Schedule) anchor() time.Time {
	if s.LastSlot.After(s.Since) {
		return s.LastSlot
	}
	return s.Since
}

// Normalize trims the fields and fills the defaults (session "new",
// missed run_once), then checks the schedule. What it checks is its
// shape; that the sessions it names exist is the caller's to check.
func (s *Schedule) Normalize() error {
	s.Name = cleanLine(s.Name)
	s.When = strings.Join(strings.Fields(s.When), " ")
	s.Prompt = strings.TrimSpace(s.Prompt)
	s.Session = strings.TrimSpace(s.Session)
	s.DeliverTo = strings.TrimSpace(s.DeliverTo)
	s.Model = strings.TrimSpace(s.Model)
	if s.Session == "" {
		s.Session = NewSession
	}
	if s.Missed == "" {
		s.Missed = MissedRunOnce
	}
	switch {
	case s.Name == "":
		return fmt.Errorf("%w: a schedule needs a name", ErrInvalid)
	case len(s.Name) > MaxNameLen:
		return fmt.Errorf("%w: the name is longer than %d bytes", ErrInvalid, MaxNameLen)
	case s.Prompt == "":
		return fmt.Errorf("%w: a schedule needs a prompt: what to ask at each run", ErrInvalid)
	case s.Missed != MissedRunOnce && s.Missed != MissedSkip:
		return fmt.Errorf("%w: missed must be %q or %q, not %q", ErrInvalid, MissedRunOnce, MissedSkip, s.Missed)
	case s.Session != NewSession && !validID(s.Session):
		return fmt.Errorf("%w: session must be \"new\" or a session ID, not %q", ErrInvalid, s.Session)
	case s.DeliverTo != "" && !validID(s.DeliverTo):
		return fmt.Errorf("%w: deliver_to %q is not a session ID", ErrInvalid, s.DeliverTo)
	}
	_, err := ParseWhen(s.When)
	return err
}

// cleanLine puts s on one line: runs of spaces and control characters
// become one space.
func cleanLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
}

// validID is the shape of a session ID (session.ValidateID's rule: 1 to
// 128 of [0-9A-Za-z_-], not starting with - or _); the domain packages
// do not import each other.
func validID(id string) bool {
	if len(id) == 0 || len(id) > 128 || id[0] == '-' || id[0] == '_' || !utf8.ValidString(id) {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
