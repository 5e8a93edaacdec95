package server

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"myco/internal/errkind"
	"myco/session"
)

// messageMarkdown answers a message's Markdown source as text/plain: the
// page has only its rendering, and the copy button of a message puts the
// source on the clipboard. A message's text blocks are joined by a blank
// line; images and tool calls have no Markdown source and are left out.
func (s *Server) messageMarkdown(c echo.Context) error {
	if err := s.sameOrigin(c.Request()); err != nil {
		return err
	}
	doc, err := s.opts.Sessions.Load(c.Param("id"))
	if err != nil {
		return err
	}
	m, ok := findMessage(doc, c.Param("message"))
	if !ok {
		return errkind.Errorf(errkind.NotFound, "no message %q in session %s", c.Param("message"), doc.ID)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.Blob(http.StatusOK, echo.MIMETextPlainCharsetUTF8, []byte(messageText(m)))
}

// sameOrigin refuses a read that another site starts. A GET passes the
// Origin check, and the SameSite cookie and the Host check already keep
// other sites out; a message's words may hold what the person would not
// share, so this read also refuses what the browser marks as cross-site.
func (s *Server) sameOrigin(r *http.Request) error {
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || u.Scheme != "http" || !s.ownHost(u.Host) {
			return errkind.New(errkind.Forbidden, "cross-origin request refused")
		}
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		return errkind.New(errkind.Forbidden, "cross-site request refused")
	}
	return nil
}

// findMessage finds a message by ID in any thread. A message carried into
// a successor thread is stored in both, the same each time.
func findMessage(doc *session.Document, id string) (session.Message, bool) {
	for _, t := range doc.Threads {
		for _, m := range t.Messages {
			if m.ID == id && id != "" {
				return m, true
			}
		}
	}
	return session.Message{}, false
}

// messageText is the Markdown of a message: its text blocks, in order.
func messageText(m session.Message) string {
	var parts []string
	for _, b := range m.Content {
		if b.Type == session.BlockText && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}
