package schedule

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// MinEvery is the shortest @every a schedule may have: each run is a
// turn of a model, and a shorter one would mostly pile up skipped runs.
const MinEvery = time.Minute

// When is a parsed `when`: the slots of a schedule. Slots are computed in
// a time zone (the person's: time.Local in a running myco).
type When struct {
	spec  cron.Schedule
	every time.Duration // @every: slots are anchored on the last one, not on the clock
	// wall is set for an expression with fixed hours ("0 9 * * *",
	// @daily): its slots are wall-clock times, computed on the clock's
	// face (in UTC, where no hour repeats or is missing) and then placed
	// in the zone, so a daylight-saving change neither runs one twice
	// (the repeated hour) nor skips it (the missing hour runs at the
	// first instant after, 02:30 as 03:30). Expressions that match every
	// hour ("*/5 * * * *") keep their real-time slots: the repeated hour
	// has its own.
	wall *cron.SpecSchedule
	zone *time.Location // the expression's own CRON_TZ, if any
}

// ParseWhen parses a five-field cron expression ("0 9 * * 1-5"), a
// descriptor (@hourly, @daily, @weekly, @monthly, @yearly) or "@every
// 30m". The error says why in plain words, for the person who typed it.
func ParseWhen(s string) (When, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return When{}, fmt.Errorf("%w: when is empty: give a cron expression of five fields (minute hour day-of-month month day-of-week, e.g. \"0 9 * * 1-5\") or @every 30m", ErrInvalid)
	}
	spec, err := cron.ParseStandard(s)
	if err != nil {
		return When{}, fmt.Errorf("%w: when %q is not a schedule: %s; give five fields (minute hour day-of-month month day-of-week, e.g. \"0 9 * * 1-5\") or @every 30m", ErrInvalid, s, plainCronError(err))
	}
	w := When{spec: spec}
	if sp, ok := spec.(*cron.SpecSchedule); ok && sp.Hour&allHours != allHours {
		face := *sp
		face.Location = time.UTC
		w.wall = &face
		if sp.Location != time.Local {
			w.zone = sp.Location
		}
	}
	if d, ok := spec.(cron.ConstantDelaySchedule); ok {
		if d.Delay < MinEvery {
			return When{}, fmt.Errorf("%w: when %q is too often: @every must be at least %v", ErrInvalid, s, MinEvery)
		}
		w.every = d.Delay
	}
	return w, nil
}

// plainCronError rewords the parser's errors that say the most in its
// own terms.
func plainCronError(err error) string {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "expected exactly 5 fields"):
		if i := strings.Index(msg, ":"); i > 0 {
			return msg[:i]
		}
	case strings.Contains(msg, "failed to parse duration"):
		return "the duration after @every is not one (write it like 30m, 2h or 1h30m)"
	case strings.HasPrefix(msg, "unrecognized descriptor"):
		return msg + " (known: @hourly, @daily, @weekly, @monthly, @yearly, @every)"
	}
	return msg
}

// Next is the first slot after t, in loc; zero when there is none within
// five years (a date that never comes, like 30 February).
func (w When) Next(t time.Time, loc *time.Location) time.Time {
	switch {
	case w.spec == nil:
		return time.Time{}
	case w.wall == nil:
		return w.spec.Next(t.In(loc))
	}
	if w.zone != nil {
		loc = w.zone
	}
	face := onFace(t.In(loc))
	for range 4 { // a slot that lands at or before t (the repeated hour) is the next one's
		nf := w.wall.Next(face)
		if nf.IsZero() {
			return time.Time{}
		}
		n := time.Date(nf.Year(), nf.Month(), nf.Day(), nf.Hour(), nf.Minute(), nf.Second(), 0, loc)
		// A time the day skips: Go places it before the gap (02:30 as
		// 01:30 EST); move it as far as the clock jumped (03:30 EDT).
		n = n.Add(nf.Sub(onFace(n)))
		if n.After(t) {
			return n
		}
		face = nf
	}
	return time.Time{}
}

// allHours is the Hour field of an expression that matches every hour.
const allHours = 1<<24 - 1

// onFace is t's clock face (its date and time of day) as a UTC time.
func onFace(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

// Latest is the last slot in (after, upto], and how many slots that
// interval holds (capped: enough to tell one from several); zero and 0
// when it holds none. After a long stop it does not walk every slot
// since: it looks back from upto over growing windows.
func (w When) Latest(after, upto time.Time, loc *time.Location) (time.Time, int) {
	first := w.Next(after, loc)
	if first.IsZero() || first.After(upto) {
		return time.Time{}, 0
	}
	if w.every > 0 {
		n := upto.Sub(first) / w.every
		return first.Add(n * w.every).In(loc), int(n) + 1
	}
	for _, back := range []time.Duration{time.Hour, 48 * time.Hour, 32 * 24 * time.Hour, 367 * 24 * time.Hour, 5 * 367 * 24 * time.Hour} {
		from := upto.Add(-back)
		if !from.After(first) {
			return w.walk(first, upto, loc)
		}
		if last, n := w.walk(w.Next(from, loc), upto, loc); n > 0 {
			return last, n + 1 // first is before the window: several slots
		}
	}
	return w.walk(first, upto, loc)
}

// walk steps from slot (itself a slot, or zero) while the slots are not
// after upto.
func (w When) walk(slot, upto time.Time, loc *time.Location) (time.Time, int) {
	var last time.Time
	n := 0
	for !slot.IsZero() && !slot.After(upto) {
		last, n = slot, n+1
		slot = w.Next(slot, loc)
	}
	return last, n
}
