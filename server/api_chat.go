package server

import (
	"bytes"
	"context"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"myco/server/event"
	"myco/server/live"
	"myco/session"
	"myco/web"
)

// liveSession opens session id for writing in this process (taking its
// writer lock) or returns the one already open.
func (s *Server) liveSession(id string) (*live.Session, error) {
	if err := session.ValidateID(id); err != nil {
		return nil, err
	}
	return s.live.Open(id)
}

type messageRequest struct {
	Text   string   `json:"text"`
	Images []string `json:"images"`
	// Files are documents (api_files.go): a sha256 or {sha256, name} each.
	Files []fileRequest `json:"files"`
	Queue bool          `json:"queue"`
}

// postMessage answers 202 once the message is durable; the turn runs on.
func (s *Server) postMessage(c echo.Context) error {
	var req messageRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	for _, sha := range req.Images {
		if !session.ValidSHA256(sha) {
			return fmt.Errorf("%w: %q is not an image sha256", errBadInput, sha)
		}
	}
	files, err := fileRefs(req.Files)
	if err != nil {
		return err
	}
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	turn, queued, err := ls.SubmitFiles(req.Text, req.Images, files, req.Queue)
	if err != nil {
		return err
	}
	if queued != "" {
		return c.JSON(http.StatusAccepted, map[string]string{"queued": queued})
	}
	return c.JSON(http.StatusAccepted, map[string]string{"turn": turn})
}

// stopTurn stops everything the session does: 200 {unqueued}, the
// messages taken out of the queue in the order they were sent, for the
// tab that asked to put back in its composer.
func (s *Server) stopTurn(c echo.Context) error {
	ls, ok := s.live.Get(c.Param("id"))
	if !ok {
		return live.ErrNoTurn
	}
	unqueued, err := ls.Stop()
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, stopResponse{Unqueued: unqueued})
}

type stopResponse struct {
	Unqueued []event.Queued `json:"unqueued"`
}

func (s *Server) retryTurn(c echo.Context) error {
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	turn, err := ls.Retry()
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]string{"turn": turn})
}

// compactSession makes a successor thread now and answers when it is
// saved (or has failed, saying why).
type compactRequest struct {
	// Focus is what the summary is to keep (/compact TEXT); optional.
	Focus string `json:"focus"`
}

func (s *Server) compactSession(c echo.Context) error {
	var req compactRequest
	// The Compact button sends no body: decodeJSON takes it as no fields.
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	if err := ls.Compact(req.Focus); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ls.Header())
}

type approvalRequest struct {
	Decision string `json:"decision"`
	// Hunks, for a file change, are the indexes (from 0) of the hunks of
	// its diff accepted: absent or null accepts all, [] is a denial.
	Hunks []int `json:"hunks"`
}

func (s *Server) approve(c echo.Context) error {
	var req approvalRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	ls, ok := s.live.Get(c.Param("id"))
	if !ok {
		return live.ErrNoApproval
	}
	if err := ls.ApproveHunks(c.Param("tool"), req.Decision, req.Hunks); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"decision": req.Decision})
}

// hubPublisher lets live sessions publish on the hub.
type hubPublisher struct{ h *Hub }

var _ live.Publisher = hubPublisher{}

func (p hubPublisher) Publish(id string, ev event.Event) { p.h.Publish(id, ev) }

// renderMessage renders a message as the page does, for message.end.
func renderMessage(id string, m session.Message) (string, error) {
	var buf bytes.Buffer
	err := web.Message(web.NewMessageView(id, m)).Render(context.Background(), &buf)
	return buf.String(), err
}

// renderContext is a live session's context gauge as the page renders it.
func renderContext(id string, c event.Context) (string, error) {
	return web.ContextGaugeHTML(id, web.ContextInfo{
		Used: c.Used, Threshold: c.Threshold, Window: c.Window, OffReason: c.OffReason,
	})
}
