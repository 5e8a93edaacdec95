// Package web holds myco's page components (templ) and the view models they
// render. Components are pure functions of view models; the constructors
// here do the formatting, so the server only loads documents and calls them.
// The package does no I/O.
package web

import (
	"net/url"
	"strconv"
	"time"

	"myco/session"
)

// PageSize is the number of session rows on one page of a listing.
const PageSize = 100

// untitled is shown wherever a session has no title yet.
const untitled = "Untitled"

// HomeView is the session list: the home page (active sessions) or the
// archived page, one page of rows at a time.
type HomeView struct {
	Title    string // heading and <title>; a default follows Archived when empty
	Archived bool   // the archived listing: rows get Restore instead of Archive
	// Subagents: the listing of sub-agents' sessions, which the others
	// leave out.
	Subagents bool
	// Board, on the home page, is what needs the person above the rows.
	Board   *BoardView
	Query   string // the filter the rows were chosen by
	Tag     string // the tag the rows were chosen by ("" for any)
	Rows    []SessionRow
	Page    int  // 1-based page these rows are; 0 counts as 1
	HasMore bool // another page follows: a "Load more" control is shown
	Profile string
	// Now, when set, lets rows show "3 hours ago" beside the absolute time.
	// The view takes it rather than reading the clock so it stays pure.
	Now time.Time
}

// SessionRow is one line of a listing. A damaged document has only its ID
// and Damaged, the reason it cannot be read.
type SessionRow struct {
	ID        string
	Title     string
	Model     string
	UpdatedAt time.Time
	Messages  int
	Damaged   string
	Cwd       string // the folder the agent works in: rows group by it
	// Status is what the session is doing (Status* values); the server
	// knows it from the live sessions, so it fills it in.
	Status string
	// Parent is the session this one was forked from ("" when it was not),
	// and ParentTitle its title as people read it: the row says "↳ from
	// ParentTitle".
	Parent      string
	ParentTitle string
	// Usage is the session's tokens and cost (WithCost fills in the cost).
	Usage UsageView
	// Pinned and Tags are the person's marks (session.Document.Pinned, Tags).
	Pinned bool
	Tags   []string
}

// NewSessionRow returns the row of one listed session.
func NewSessionRow(s session.Summary) SessionRow {
	row := SessionRow{
		ID:        s.ID,
		Title:     SessionTitle(s.Title, s.Parent, s.ParentTitle),
		Model:     s.Model,
		UpdatedAt: s.UpdatedAt,
		Messages:  s.Messages,
		Damaged:   s.Damaged,
		Cwd:       s.Cwd,
		Pinned:    s.Pinned,
		Tags:      s.Tags,
		Status:    listStatus(s),
		Parent:    s.Parent,
	}
	if s.Parent != "" {
		row.ParentTitle = titleOr(s.ParentTitle)
	}
	return row
}

// NewSessionRows returns the rows of a listing, in its order.
func NewSessionRows(list []session.Summary) []SessionRow {
	rows := make([]SessionRow, len(list))
	for i, s := range list {
		rows[i] = NewSessionRow(s)
	}
	return rows
}

// URL is the session's page.
func (r SessionRow) URL() string { return SessionURL(r.ID) }

// ArchiveURL is where the row's Archive button posts.
func (r SessionRow) ArchiveURL() string { return apiURL(r.ID, "archive") }

// RestoreURL is where the row's Restore button posts.
func (r SessionRow) RestoreURL() string { return apiURL(r.ID, "restore") }

// DeleteURL is where the row's Delete button sends DELETE.
func (r SessionRow) DeleteURL() string { return sessionAPIURL(r.ID) }

// ParentURL is the page of the session this one was forked from.
func (r SessionRow) ParentURL() string { return SessionURL(r.Parent) }

// SessionURL is the page of session id.
func SessionURL(id string) string { return "/s/" + url.PathEscape(id) }

func apiURL(id, action string) string {
	return "/api/sessions/" + url.PathEscape(id) + "/" + action
}

// Heading is the page's title: Title, or a default for the listing.
func (v HomeView) Heading() string {
	switch {
	case v.Title != "":
		return v.Title
	case v.Archived && v.Subagents:
		return "Archived sub-agents"
	case v.Archived:
		return "Archived sessions"
	case v.Subagents:
		return "Sub-agents"
	default:
		return "Sessions"
	}
}

// PageURL is the full page this listing lives at (the search form's action).
func (v HomeView) PageURL() string {
	switch {
	case v.Subagents:
		return "/subagents"
	case v.Archived:
		return "/archived"
	}
	return "/"
}

// PartialURL is the rows fragment of this listing without a query or page:
// the search box adds q as the user types.
func (v HomeView) PartialURL() string {
	return v.partialURL("", 0)
}

// NextPageURL is the rows fragment of the page after this one.
func (v HomeView) NextPageURL() string {
	return v.partialURL(v.Query, v.page()+1)
}

// NextPageFallbackURL is the full page after this one, for a tab without
// JavaScript (the link the "Load more" control is built on).
func (v HomeView) NextPageFallbackURL() string {
	q := url.Values{}
	if v.Query != "" {
		q.Set("q", v.Query)
	}
	if v.Tag != "" {
		q.Set("tag", v.Tag)
	}
	q.Set("page", strconv.Itoa(v.page()+1))
	return v.PageURL() + "?" + q.Encode()
}

func (v HomeView) partialURL(query string, page int) string {
	q := url.Values{}
	if v.Archived {
		q.Set("archived", "1")
	}
	if v.Subagents {
		q.Set("subagents", "1")
	}
	if query != "" {
		q.Set("q", query)
	}
	if v.Tag != "" {
		q.Set("tag", v.Tag)
	}
	if page > 0 {
		q.Set("page", strconv.Itoa(page))
	}
	if len(q) == 0 {
		return "/partials/sessions"
	}
	return "/partials/sessions?" + q.Encode()
}

func (v HomeView) page() int { return max(v.Page, 1) }

// FirstPage reports whether these rows start the listing, where an empty
// result deserves a message rather than nothing.
func (v HomeView) FirstPage() bool { return v.page() == 1 }

// EmptyText is what the list says when it has no rows.
func (v HomeView) EmptyText() string {
	switch {
	case v.Query != "":
		return "No title, name, model or ID matches “" + v.Query + "”."
	case v.Tag != "":
		return "No session is tagged “" + v.Tag + "”."
	case v.Subagents:
		return "No sub-agent has run yet: the agent starts one with its task tool."
	case v.Archived:
		return "No archived sessions."
	default:
		return "No sessions yet."
	}
}

// listStatus is the status a summary alone tells: failed or idle. The
// server knows more (a live session's turn) and overrides it.
func listStatus(s session.Summary) string {
	if s.Failed {
		return StatusFailed
	}
	return StatusIdle
}

func titleOr(title string) string {
	if title == "" {
		return untitled
	}
	return title
}

// SessionTitle is the title people see for a session: its own, or, for a
// fork that has none yet, "Fork of" its parent's (the fork's own title,
// automatic or given, replaces it later), else Untitled.
func SessionTitle(title, parent, parentTitle string) string {
	if title == "" && parent != "" {
		return forkTitle(parentTitle)
	}
	return titleOr(title)
}

// forkTitle names an untitled fork by its parent's title.
func forkTitle(parentTitle string) string {
	return "Fork of " + titleOr(parentTitle)
}

// TagURL is the listing at page (PageURL) filtered by tag.
func TagURL(page, tag string) string {
	return page + "?" + url.Values{"tag": {tag}}.Encode()
}
