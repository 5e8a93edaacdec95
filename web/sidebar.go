package web

import (
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"myco/session"
)

// Statuses a listing shows for a session (server/event's List* values).
const (
	StatusRunning = "running"
	StatusWaiting = "waiting"
	StatusFailed  = "failed"
	StatusIdle    = "idle"
)

// StatusText says a row's status in words: what a screen reader reads
// beside the dot, and what the row shows when the person must act.
func StatusText(status string) string {
	switch status {
	case StatusRunning:
		return "Running"
	case StatusWaiting:
		return "Waiting for you"
	case StatusFailed:
		return "Failed"
	}
	return "Idle"
}

// statusOr is status, or idle when a row was made without one.
func statusOr(status string) string {
	if status == "" {
		return StatusIdle
	}
	return status
}

// StatusShort is StatusText in a word.
func StatusShort(status string) string {
	if status == StatusWaiting {
		return "Waiting"
	}
	return StatusText(status)
}

// SidebarView is the session page's list of sessions: the newest page of
// them, or those a query finds, grouped by folder when Grouped.
type SidebarView struct {
	Rows    []SessionRow
	Current string // the session the page shows: its row is marked
	Query   string
	Grouped bool
	HasMore bool // more sessions than rows: the home page has them all
	Now     time.Time
	// Needs and Working count the board's rows: the line above the rows
	// links to the board on the home page.
	Needs, Working int
}

// BoardLine is the sidebar's line of what needs the person ("2 need you
// · 1 working"), "" when nothing does and nothing works.
func (v SidebarView) BoardLine() string {
	var parts []string
	if v.Needs > 0 {
		verb := " needs you"
		if v.Needs > 1 {
			verb = " need you"
		}
		parts = append(parts, strconv.Itoa(v.Needs)+verb)
	}
	if v.Working > 0 {
		parts = append(parts, strconv.Itoa(v.Working)+" working")
	}
	return strings.Join(parts, " · ")
}

// SidebarGroup is the rows of one folder, in the listing's order.
type SidebarGroup struct {
	Folder string // the session's cwd; "" when it has none
	Rows   []SessionRow
}

// Name is the folder as a narrow column has room for it: a short path
// whole, a long one by its last two elements; the full path is the
// header's title.
func (g SidebarGroup) Name() string {
	if g.Folder == "" {
		return "No folder"
	}
	if len(g.Folder) <= 28 {
		return g.Folder
	}
	// The last two elements tell apart folders of the same name.
	return "…/" + filepath.Join(filepath.Base(filepath.Dir(g.Folder)), filepath.Base(g.Folder))
}

// Groups cuts the rows by folder. A folder's place is that of its newest
// session, so the folder worked in last comes first.
func (v SidebarView) Groups() []SidebarGroup {
	var out []SidebarGroup
	at := map[string]int{}
	for _, r := range v.Rows {
		i, ok := at[r.Cwd]
		if !ok {
			i = len(out)
			at[r.Cwd] = i
			out = append(out, SidebarGroup{Folder: r.Cwd})
		}
		out[i].Rows = append(out[i].Rows, r)
	}
	return out
}

// PartialURL is the fragment the sidebar refetches: its rows for the
// current query and grouping, with the current session marked. The
// script sets q and group as the person changes them.
func (v SidebarView) PartialURL() string {
	q := url.Values{}
	if v.Current != "" {
		q.Set("current", v.Current)
	}
	if len(q) == 0 {
		return "/partials/sidebar"
	}
	return "/partials/sidebar?" + q.Encode()
}

// EmptyText is what the sidebar says when it has no rows.
func (v SidebarView) EmptyText() string {
	if v.Query != "" {
		return "No title, name, model or ID matches “" + v.Query + "”."
	}
	return "No sessions yet."
}

// WithStatus returns the rows with the status status gives each summary;
// sums and rows are in the same order.
func WithStatus(rows []SessionRow, sums []session.Summary, status func(session.Summary) string) []SessionRow {
	for i := range rows {
		rows[i].Status = status(sums[i])
	}
	return rows
}

// WithCost fills in what each row's session cost, at price, from the
// usage by model its summary carries: the listing reads no document.
func WithCost(rows []SessionRow, sums []session.Summary, price Pricer) []SessionRow {
	for i := range rows {
		rows[i].Usage = usageByModel(sums[i].Usage, sums[i].Model, price)
	}
	return rows
}

// shortAgo is relTime for a narrow column: "5m", "3h", "2d", then the
// date. Without a clock (now zero) it is the date.
func shortAgo(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case now.IsZero() || d >= 30*24*time.Hour:
		return t.Format("Jan 2")
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d < 24*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + "d"
}
