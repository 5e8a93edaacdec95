package server

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"myco/server/live"
	"myco/session"
	"myco/web"
)

// The board: what needs the person, what works, and what was done since
// they last looked, across sessions, sub-agents and scheduled runs (a
// scheduled run is a session's turn like any other).

// boardRecent bounds how far back a failed turn or a finished one counts:
// older ones are history, not news.
const boardRecent = 7 * 24 * time.Hour

// maxDoneRows bounds the "done since you last looked" rows.
const maxDoneRows = 8

// boardView gathers the board from the live sessions and the listing.
func (s *Server) boardView() (web.BoardView, error) {
	now := s.opts.Now()
	v := web.BoardView{Now: now}
	busy := map[string]bool{}
	for _, a := range s.live.Activities() {
		busy[a.Session] = true
		row := s.activityRow(a)
		if a.Status == live.StatusApproval {
			row.What = "waits for your approval"
			v.Needs = append(v.Needs, row)
		} else {
			v.Working = append(v.Working, row)
		}
	}
	// The listing's summaries as they are (Summaries copies none): the
	// board reads the newest week of them on every home page and sidebar.
	own, _, err := s.opts.Sessions.Summaries(session.ListOptions{})
	if err != nil {
		return v, err
	}
	doneMore := 0
	for sum := range own {
		if now.Sub(sum.UpdatedAt) > boardRecent {
			if sum.Pinned {
				continue // pinned ones come first, whatever their age
			}
			break // newest first: the rest are older
		}
		if sum.Damaged != "" || busy[sum.ID] {
			continue
		}
		row := web.BoardRow{ID: sum.ID, Title: web.SessionTitle(sum.Title, sum.Parent, sum.ParentTitle), Since: sum.UpdatedAt}
		switch {
		case sum.Failed:
			row.What = "its last turn failed"
			v.Needs = append(v.Needs, row)
		case sum.GoalBlocked:
			row.What = "its goal is blocked"
			v.Needs = append(v.Needs, row)
		case sum.Messages > 0 && s.seen.unseen(sum.ID, sum.UpdatedAt):
			if len(v.Done) == maxDoneRows {
				doneMore++
				continue
			}
			row.What = "done"
			v.Done = append(v.Done, row)
		}
	}
	v.DoneMore = doneMore
	return v, nil
}

// activityRow is a busy live session's row: what it does, since when,
// and whose sub-agent it is.
func (s *Server) activityRow(a live.Activity) web.BoardRow {
	row := web.BoardRow{ID: a.Session, What: web.BoardStatusText(a.Status, a.Detail), Since: a.Since, Parent: a.Parent}
	if h, err := s.opts.Sessions.Header(a.Session); err == nil {
		row.Title = h.Title
		if a.Parent == "" { // a fork is named as the listings name it; a sub-agent's row names whose it is
			row.Title = web.SessionTitle(h.Title, h.Parent, h.ParentTitle)
		}
	}
	if a.Parent != "" {
		if h, err := s.opts.Sessions.Header(a.Parent); err == nil {
			row.ParentTitle = h.Title
		}
	}
	return row
}

// boardPartial is the board alone, what the home page fetches again as
// the listing changes.
func (s *Server) boardPartial(c echo.Context) error {
	v, err := s.boardView()
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.Board(v))
}
