package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"myco/internal/errkind"
	"myco/server/live"
	"myco/web"
)

// Undo, redo and /diff (server/live/undo.go). GET …/undo and GET …/redo
// say what would be done, with the confirm card to show; POST does it for
// the turn named (a turn that is no longer the one to take is a 409, so a
// stale card changes nothing). GET …/diff is the folder's changes since
// the first turn (since=first) or the latest (since=last), under path.

type undoRequest struct {
	Turn string `json:"turn"`
}

type undoAnswer struct {
	*live.UndoPlan
	HTML string `json:"html,omitempty"`
}

type diffAnswer struct {
	Files []live.DiffFile `json:"files"`
	HTML  string          `json:"html"`
}

func (s *Server) getUndo(c echo.Context) error { return s.planUndo(c, false) }
func (s *Server) getRedo(c echo.Context) error { return s.planUndo(c, true) }

func (s *Server) planUndo(c echo.Context, redo bool) error {
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	var p *live.UndoPlan
	if redo {
		p, err = ls.PlanRedo()
	} else {
		p, err = ls.PlanUndo()
	}
	if err != nil {
		return err
	}
	html, err := web.UndoHTML(undoView(ls.ID(), p))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, undoAnswer{p, html})
}

func (s *Server) postUndo(c echo.Context) error { return s.doUndo(c, false) }
func (s *Server) postRedo(c echo.Context) error { return s.doUndo(c, true) }

func (s *Server) doUndo(c echo.Context, redo bool) error {
	var req undoRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.Turn == "" {
		return errkind.New(errkind.Invalid, "turn is required: the turn the card named (GET first)")
	}
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	var p *live.UndoPlan
	if redo {
		p, err = ls.Redo(req.Turn)
	} else {
		p, err = ls.Undo(req.Turn)
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, undoAnswer{UndoPlan: p})
}

func (s *Server) getDiff(c echo.Context) error {
	since := c.QueryParam("since")
	switch since {
	case "":
		since = "first"
	case "first", "last":
	default:
		return errkind.New(errkind.Invalid, "since must be first or last")
	}
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	path := c.QueryParam("path")
	files, err := ls.Diff(since, path)
	if err != nil {
		return err
	}
	v := web.DiffCardView{Since: since, Path: path}
	for _, f := range files {
		v.Files = append(v.Files, web.DiffFileView{Path: f.Path, Kind: f.Kind, Added: f.Added, Removed: f.Removed, Binary: f.Binary, Diff: f.Diff})
	}
	html, err := web.DiffCardHTML(v)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, diffAnswer{files, html})
}

func undoView(id string, p *live.UndoPlan) web.UndoView {
	v := web.UndoView{SessionID: id, Turn: p.Turn, Redo: p.Redo, Text: p.Text, FilesOnly: p.FilesOnly}
	for _, f := range p.Files {
		v.Files = append(v.Files, web.UndoFileView{Path: f.Path, Action: f.Action, ByHand: f.ByHand})
	}
	return v
}
