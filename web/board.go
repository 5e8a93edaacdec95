package web

import (
	"strings"
	"time"
)

// BoardView is the board above the home page's listing: what needs the
// person (an approval, a failed turn, a blocked goal), what works now,
// and what was done since they last looked.
type BoardView struct {
	Needs, Working, Done []BoardRow
	// DoneMore is how many more were done than Done shows.
	DoneMore int
	Now      time.Time
}

// Empty says there is nothing to show: the board then takes no room.
func (v BoardView) Empty() bool {
	return len(v.Needs) == 0 && len(v.Working) == 0 && len(v.Done) == 0
}

// BoardRow is one session on the board.
type BoardRow struct {
	ID, Title string
	What      string    // what it needs or does, in words
	Since     time.Time // when its work began, or when it changed
	// Parent, for a sub-agent, is the session it works for.
	Parent, ParentTitle string
}

// URL opens the session; its page opens at the end, where the approval,
// the failure or the answer is.
func (r BoardRow) URL() string { return SessionURL(r.ID) }

// BoardStatusText is a busy state in words for the board ("running bash").
func BoardStatusText(status, detail string) string {
	label := strings.TrimSuffix(statusLabels[status], "…")
	if label == "" {
		label = status
	}
	label = strings.ToLower(label)
	if detail != "" {
		return label + " " + detail
	}
	return label
}

// took is how long from since to now, for a row of work in progress.
func took(now, since time.Time) string {
	if since.IsZero() {
		return ""
	}
	return formatDuration(now.Sub(since).Truncate(time.Second))
}
