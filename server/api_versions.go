package server

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"myco/internal/errkind"
	"myco/server/live"
	"myco/session"
	"myco/web"
)

// Edits and regenerations, with versions (session/versions.go says how a
// version is kept): an edit of a person's message, or a regeneration of
// an answer before the conversation's last, forks the session just before
// that message and runs the new version's turn in the fork; regenerating
// the last answer is the retry, in place.

var (
	errNoMessage     = errkind.New(errkind.NotFound, "no such message")
	errEarlierThread = errkind.New(errkind.Conflict, "the message is in an earlier thread")
	errNotEditable   = errkind.New(errkind.Invalid, "the message cannot be changed")
)

type editRequest struct {
	Text string `json:"text"`
	// Images are the edited message's images (sha256 of POST /api/images);
	// absent keeps the ones the message had, [] drops them.
	Images *[]string `json:"images"`
}

type regenerateRequest struct {
	// Model answers this turn instead of the session's (provider/model-id).
	Model string `json:"model"`
}

// versionResponse is the session that holds the new version, its page,
// the turn that makes it, and the point it is a version of.
type versionResponse struct {
	session.Summary
	URL   string               `json:"url"`
	Turn  string               `json:"turn"`
	Point session.VersionPoint `json:"point"`
	// Retried: the last answer was asked again in the same session (the
	// replaced one folded, as a retry does), no fork was made.
	Retried bool `json:"retried,omitempty"`
}

// editMessage makes a version of a message the person wrote, with new
// words, and sends it.
func (s *Server) editMessage(c echo.Context) error {
	var req editRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	doc, msgs, at, err := s.versionTarget(c.Param("id"), c.Param("message"))
	if err != nil {
		return err
	}
	m := msgs[at]
	if !m.Human {
		return fmt.Errorf("%w: only a message you wrote can be edited; an answer can be regenerated", errNotEditable)
	}
	images := imagesOf(m)
	if req.Images != nil {
		images = *req.Images
	}
	for _, sha := range images {
		if !session.ValidSHA256(sha) {
			return fmt.Errorf("%w: %q is not an image sha256", errBadInput, sha)
		}
	}
	if isBlank(req.Text) && len(images) == 0 {
		return fmt.Errorf("%w: the edited message is empty", errBadInput)
	}
	point := doc.VersionPointOf(m.ID)
	fork, err := s.opts.Sessions.Fork(doc.ID, session.ForkOptions{Before: m.ID, Version: &point})
	if err != nil {
		return err
	}
	ls, err := s.liveSession(fork.ID)
	if err != nil {
		return err
	}
	turn, _, err := ls.Submit(req.Text, images, false)
	if err != nil {
		return fmt.Errorf("the edited message was not sent (its version is session %s): %w", fork.ID, err)
	}
	return c.JSON(http.StatusCreated, versionResponse{Summary: ls.Header(), URL: web.SessionURL(fork.ID), Turn: turn, Point: point})
}

// regenerateMessage asks the model again for the answer a message is
// part of, optionally of another model: in place for the conversation's
// last turn (the retry), else in a fork that holds the new version.
func (s *Server) regenerateMessage(c echo.Context) error {
	var req regenerateRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	model, err := s.turnModelOf(c, req.Model)
	if err != nil {
		return err
	}
	doc, msgs, at, err := s.versionTarget(c.Param("id"), c.Param("message"))
	if err != nil {
		return err
	}
	if msgs[at].Human {
		return fmt.Errorf("%w: a message you wrote is edited, not regenerated", errNotEditable)
	}
	human := lastHuman(msgs[:at])
	if human < 0 {
		return fmt.Errorf("%w: it answers no message of yours", errNotEditable)
	}
	if lastHuman(msgs) == human {
		return s.regenerateInPlace(c, doc, msgs, human, model)
	}
	point := doc.VersionPointOf(answerOf(msgs, human))
	fork, err := s.opts.Sessions.Fork(doc.ID, session.ForkOptions{Before: msgs[human+1].ID, Version: &point})
	if err != nil {
		return err
	}
	ls, err := s.liveSession(fork.ID)
	if err != nil {
		return err
	}
	turn, err := ls.RetryWith(model)
	if err != nil {
		return fmt.Errorf("the answer was not asked for (its version is session %s): %w", fork.ID, err)
	}
	return c.JSON(http.StatusCreated, versionResponse{Summary: ls.Header(), URL: web.SessionURL(fork.ID), Turn: turn, Point: point})
}

// regenerateInPlace is the retry of the conversation's last turn.
func (s *Server) regenerateInPlace(c echo.Context, doc *session.Document, msgs []session.Message, human int, model string) error {
	ls, err := s.liveSession(doc.ID)
	if err != nil {
		return err
	}
	turn, err := ls.RetryWith(model)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, versionResponse{
		Summary: ls.Header(), URL: web.SessionURL(doc.ID), Turn: turn,
		Point: doc.VersionPointOf(answerOf(msgs, human)), Retried: true,
	})
}

// turnModelOf checks a model asked for one turn: "" is the session's.
func (s *Server) turnModelOf(c echo.Context, typed string) (string, error) {
	if isBlank(typed) {
		return "", nil
	}
	stored, _, err := s.resolveModel(c.Request().Context(), typed)
	if err != nil {
		return "", err
	}
	if stored == "" { // "default"
		stored = s.defaultModel()
	}
	return stored, nil
}

// versionTarget finds message in session id's latest thread, refusing
// one of an earlier thread, an unknown one, and any while the session
// runs a turn here.
func (s *Server) versionTarget(id, message string) (*session.Document, []session.Message, int, error) {
	if err := session.ValidateID(id); err != nil {
		return nil, nil, 0, err
	}
	doc, err := s.opts.Sessions.Load(id)
	if err != nil {
		return nil, nil, 0, err
	}
	if ls, ok := s.live.Get(id); ok && ls.Busy() {
		return nil, nil, 0, fmt.Errorf("%w: stop it or let it finish, then edit or regenerate", live.ErrTurnRunning)
	}
	last := len(doc.Threads) - 1
	msgs := doc.Threads[last].Messages
	at := slices.IndexFunc(msgs, func(m session.Message) bool { return m.ID == message })
	if at < 0 {
		for _, t := range doc.Threads[:last] {
			if slices.ContainsFunc(t.Messages, func(m session.Message) bool { return m.ID == message }) {
				return nil, nil, 0, fmt.Errorf("%w (before a compaction): fork from it instead; only the latest thread's messages can be edited or regenerated", errEarlierThread)
			}
		}
		return nil, nil, 0, fmt.Errorf("%w: %q is not in session %s", errNoMessage, message, id)
	}
	if msgs[at].Undone {
		return nil, nil, 0, fmt.Errorf("%w: its turn was undone (/redo brings it back)", errNotEditable)
	}
	return doc, msgs, at, nil
}

// lastHuman is the index of the last message a person wrote in msgs, or -1.
func lastHuman(msgs []session.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Human {
			return i
		}
	}
	return -1
}

// answerOf is the message that stands for the answer to msgs[human]: its
// first answer a retry did not replace (the first message after it when
// every one was).
func answerOf(msgs []session.Message, human int) string {
	for _, m := range msgs[human+1:] {
		if m.Human {
			break
		}
		if m.Role == "assistant" && m.ReplacedBy == "" {
			return m.ID
		}
	}
	return msgs[human+1].ID
}

func imagesOf(m session.Message) []string {
	var out []string
	for _, b := range m.Content {
		if b.Type == session.BlockImage && b.SHA256 != "" {
			out = append(out, b.SHA256)
		}
	}
	return out
}

func isBlank(s string) bool {
	for _, r := range s {
		if r != ' ' && r != '\t' && r != '\r' && r != '\n' {
			return false
		}
	}
	return true
}

// versionsResponse lists the versions at one point, or, without a
// message, at every point of the session's latest thread that has more
// than one (by the message of this session there).
type versionsResponse struct {
	Message  string               `json:"message,omitempty"`
	Point    session.VersionPoint `json:"point,omitzero"`
	Versions []versionView        `json:"versions,omitempty"`
	// Current is the index in Versions of this session's version.
	Current int                      `json:"current"`
	Points  map[string]pointVersions `json:"points,omitempty"`
}

type pointVersions struct {
	Current  int           `json:"current"`
	Versions []versionView `json:"versions"`
}

type versionView struct {
	session.Version
	URL string `json:"url"`
}

func (s *Server) listVersions(c echo.Context) error {
	id := c.Param("id")
	if err := session.ValidateID(id); err != nil {
		return err
	}
	doc, err := s.opts.Sessions.Load(id)
	if err != nil {
		return err
	}
	message := c.QueryParam("message")
	if message == "" {
		all, err := s.opts.Sessions.VersionsIn(doc)
		if err != nil {
			return err
		}
		points := make(map[string]pointVersions, len(all))
		for m, vs := range all {
			views, cur := versionViews(vs, id)
			points[m] = pointVersions{Current: cur, Versions: views}
		}
		return c.JSON(http.StatusOK, versionsResponse{Points: points})
	}
	if !slices.ContainsFunc(doc.Threads, func(t session.Thread) bool {
		return slices.ContainsFunc(t.Messages, func(m session.Message) bool { return m.ID == message })
	}) {
		return fmt.Errorf("%w: %q is not in session %s", errNoMessage, message, id)
	}
	point := doc.VersionPointOf(message)
	vs, err := s.opts.Sessions.Versions(point)
	if err != nil {
		return err
	}
	views, cur := versionViews(vs, id)
	return c.JSON(http.StatusOK, versionsResponse{Message: message, Point: point, Versions: views, Current: cur})
}

// versionViews are vs with their pages, and the index of session id's.
func versionViews(vs []session.Version, id string) ([]versionView, int) {
	views := make([]versionView, len(vs))
	cur := 0
	for i, v := range vs {
		views[i] = versionView{Version: v, URL: web.SessionURL(v.Session)}
		if v.Session == id {
			cur = i
		}
	}
	return views, cur
}
