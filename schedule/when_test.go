package schedule_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"myco/schedule"
)

func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Skipf("no zone %s here: %v", name, err)
	}
	return loc
}

// Slots are read in the person's zone: 9 o'clock is 9 o'clock on both
// sides of a daylight-saving change, and @every counts from the last slot.
func TestNextSlotInLocalZone(t *testing.T) {
	ny := zone(t, "America/New_York")
	at := func(s string) time.Time {
		t.Helper()
		v, err := time.ParseInLocation("2006-01-02 15:04", s, ny)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name, when string
		after      time.Time
		want       time.Time
	}{
		{"daily at nine, later today", "0 9 * * *", at("2026-03-07 08:00"), at("2026-03-07 09:00")},
		{"daily at nine, across the spring change", "0 9 * * *", at("2026-03-07 10:00"), at("2026-03-08 09:00")},
		{"daily at nine, across the autumn change", "0 9 * * *", at("2026-10-31 10:00"), at("2026-11-01 09:00")},
		{"weekdays, from a Friday", "0 9 * * 1-5", at("2026-12-04 09:00"), at("2026-12-07 09:00")},
		{"every minute", "* * * * *", at("2026-12-02 10:00"), at("2026-12-02 10:01")},
		{"descriptor", "@daily", at("2026-12-02 10:00"), at("2026-12-03 00:00")},
		{"every 30m counts from the last slot", "@every 30m", at("2026-12-02 10:07"), at("2026-12-02 10:37")},
		{"every 90m", "@every 1h30m", at("2026-12-02 23:00"), at("2026-12-03 00:30")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := schedule.ParseWhen(tt.when)
			if err != nil {
				t.Fatal(err)
			}
			got := w.Next(tt.after, ny)
			if !got.Equal(tt.want) {
				t.Errorf("Next(%v) = %v, want %v", tt.after, got, tt.want)
			}
			if got.Location() != ny {
				t.Errorf("slot in %v, want the zone asked for", got.Location())
			}
		})
	}
	// The same expression in another zone is another instant.
	w, _ := schedule.ParseWhen("0 9 * * *")
	tokyo := zone(t, "Asia/Tokyo")
	if a, b := w.Next(at("2026-12-02 00:00"), ny), w.Next(at("2026-12-02 00:00"), tokyo); a.Equal(b) {
		t.Errorf("nine in New York and in Tokyo are the same instant %v", a)
	}
}

// A daylight-saving change neither runs a fixed-time slot twice (the
// repeated hour in autumn) nor skips it (02:30 of the missing hour in
// spring runs at 03:30, as far as the clock jumped); a slot every few minutes keeps running
// through the repeated hour, which has real instants of its own.
func TestDaylightSavingChanges(t *testing.T) {
	ny := zone(t, "America/New_York")
	slotsOn := func(when string, from time.Time, day string) []time.Time {
		t.Helper()
		w, err := schedule.ParseWhen(when)
		if err != nil {
			t.Fatal(err)
		}
		var out []time.Time
		for at := w.Next(from, ny); at.Format("2006-01-02") <= day; at = w.Next(at, ny) {
			if at.Format("2006-01-02") == day {
				out = append(out, at)
			}
		}
		return out
	}
	if got := slotsOn("30 1 * * *", time.Date(2026, 10, 31, 12, 0, 0, 0, ny), "2026-11-01"); len(got) != 1 || got[0].Hour() != 1 {
		t.Errorf("01:30 on the autumn change: slots %v, want one", got)
	}
	if got := slotsOn("30 2 * * *", time.Date(2026, 3, 7, 12, 0, 0, 0, ny), "2026-03-08"); len(got) != 1 || got[0].Hour() != 3 || got[0].Minute() != 30 {
		t.Errorf("02:30 on the spring change (no such time): slots %v, want one", got)
	}
	if got := slotsOn("30 2 * * *", time.Date(2026, 3, 8, 12, 0, 0, 0, ny), "2026-03-09"); len(got) != 1 || got[0].Hour() != 2 {
		t.Errorf("02:30 the day after the spring change: slots %v, want 02:30", got)
	}
	if got := slotsOn("*/30 * * * *", time.Date(2026, 10, 31, 12, 0, 0, 0, ny), "2026-11-01"); len(got) != 50 {
		t.Errorf("every 30 minutes on the 25-hour day: %d slots, want 50", len(got))
	}
}

// Latest finds the last slot of a long stop without walking every slot,
// and says there were several.
func TestLatestSlot(t *testing.T) {
	loc := time.UTC
	start := time.Date(2026, 1, 1, 0, 0, 30, 0, loc)
	tests := []struct {
		name, when string
		upto       time.Time
		want       time.Time
		several    bool
	}{
		{"none yet", "0 9 * * *", time.Date(2026, 1, 1, 8, 0, 0, 0, loc), time.Time{}, false},
		{"one", "0 9 * * *", time.Date(2026, 1, 1, 9, 0, 5, 0, loc), time.Date(2026, 1, 1, 9, 0, 0, 0, loc), false},
		{"a week of minutes", "* * * * *", time.Date(2026, 1, 8, 12, 34, 56, 0, loc), time.Date(2026, 1, 8, 12, 34, 0, 0, loc), true},
		{"a year of days", "0 9 * * *", time.Date(2027, 1, 1, 8, 0, 0, 0, loc), time.Date(2026, 12, 31, 9, 0, 0, 0, loc), true},
		{"every 30m over a day", "@every 30m", time.Date(2026, 1, 2, 0, 10, 0, 0, loc), time.Date(2026, 1, 2, 0, 0, 30, 0, loc), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := schedule.ParseWhen(tt.when)
			if err != nil {
				t.Fatal(err)
			}
			got, n := w.Latest(start, tt.upto, loc)
			if !got.Equal(tt.want) || (n > 1) != tt.several {
				t.Errorf("Latest = %v (%d slots), want %v (several: %v)", got, n, tt.want, tt.several)
			}
		})
	}
}

// A when that is not one is refused with the parser's reason, in words a
// person can act on.
func TestParseWhenErrors(t *testing.T) {
	tests := []struct{ when, want string }{
		{"", "when is empty"},
		{"every day", "expected exactly 5 fields, found 2"},
		{"* * *", "expected exactly 5 fields, found 3"},
		{"61 * * * *", "above maximum"},
		{"0 9 * * mon-xyz", "failed to parse"},
		{"@every soon", "the duration after @every is not one"},
		{"@every 10s", "at least 1m0s"},
		{"@fortnightly", "unrecognized descriptor"},
	}
	for _, tt := range tests {
		_, err := schedule.ParseWhen(tt.when)
		if !errors.Is(err, schedule.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseWhen(%q) = %v, want an invalid schedule saying %q", tt.when, err, tt.want)
		}
	}
}
