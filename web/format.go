package web

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"myco/internal/textcut"
)

// indentJSON is a tool input as indented JSON; input that is not valid JSON
// is shown as it is rather than hidden.
func indentJSON(v jsontext.Value) string {
	if len(v) == 0 {
		return ""
	}
	out := v.Clone()
	if err := out.Indent(jsontext.WithIndent("  ")); err != nil {
		return string(v)
	}
	return string(out)
}

// previewKeys are the input fields that say what a call does at a glance,
// in the order they are looked for.
var previewKeys = []string{"command", "path", "action", "query", "url", "pattern", "description"}

// maxPreview bounds a call's one-line preview, in characters.
const maxPreview = 80

// inputPreview is a short hint of a tool input: the first line of its most
// telling string field, so collapsed calls can be told apart.
func inputPreview(v jsontext.Value) string {
	var fields map[string]any
	if v.Kind() != '{' || json.Unmarshal(v, &fields) != nil {
		return ""
	}
	for _, k := range previewKeys {
		if s, ok := fields[k].(string); ok && s != "" {
			return truncate(firstLine(s), maxPreview)
		}
	}
	return ""
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return textcut.Runes(s, n-1) + "…"
}

// formatDuration is a duration at the precision people read it in.
func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return ""
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	default:
		d = d.Round(time.Second)
		return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
	}
}

// isoTime is t for a <time datetime> attribute, which the tab's script
// turns into the reader's local time.
func isoTime(t time.Time) string { return t.Format(time.RFC3339) }

// zoneKey carries the reader's time zone in a render's context.
type zoneKey struct{}

// WithZone is ctx with the reader's time zone, which times are rendered in.
func WithZone(ctx context.Context, loc *time.Location) context.Context {
	return context.WithValue(ctx, zoneKey{}, loc)
}

// localFormat is how a time reads in the reader's zone: the tab's script
// (static/times.js localText) writes the same, so a time the server wrote in
// the reader's zone does not change, nor move what follows it, once the
// script runs.
const localFormat = "2006-01-02 15:04"

// absTime is t in the reader's zone when the render knows it (WithZone),
// else in the zone it carries, named, for the script to rewrite.
func absTime(ctx context.Context, t time.Time) string {
	if loc, ok := ctx.Value(zoneKey{}).(*time.Location); ok && loc != nil {
		return t.In(loc).Format(localFormat)
	}
	return t.Format(localFormat + " MST")
}

// relTime is how long before now t was, in the largest whole unit; past a
// month the date says more than "43 days ago".
func relTime(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute") + " ago"
	case d < 24*time.Hour:
		return plural(int(d/time.Hour), "hour") + " ago"
	case d < 48*time.Hour:
		return "yesterday"
	case d < 30*24*time.Hour:
		return plural(int(d/(24*time.Hour)), "day") + " ago"
	}
	return t.Format("2006-01-02")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
