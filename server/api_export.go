package server

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"myco/export"
	"myco/session"
)

// exportSession answers a session as a file to download: Markdown, its
// JSON document or one self-contained HTML page (?format=md|json|html).
// It carries the same redaction as the documents: a live session's
// document holds the real secrets, so the copy exported is redacted.
// Like a message's Markdown, it is a read another site may not start.
func (s *Server) exportSession(c echo.Context) error {
	if err := s.sameOrigin(c.Request()); err != nil {
		return err
	}
	f, err := export.ParseFormat(c.QueryParam("format"))
	if err != nil {
		return fmt.Errorf("%w: %w", errBadInput, err)
	}
	doc, err := s.exportDocument(c.Param("id"))
	if err != nil {
		return err
	}
	if doc, err = s.opts.Sessions.Redacted(doc); err != nil {
		return err
	}
	data, err := export.Render(doc, f, s.opts.Images)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	// The name is ASCII letters, digits, dashes and a dot: nothing to quote.
	h.Set("Content-Disposition", `attachment; filename="`+export.FileName(doc, f)+`"`)
	h.Set("Cache-Control", "no-store")
	// Opened rather than saved, the page still runs nothing.
	h.Set("Content-Security-Policy", contentSecurityPolicy+"; sandbox")
	return c.Blob(http.StatusOK, f.ContentType(), data)
}

// exportDocument is the session as it is now: the live session's document
// when this process has it open (the file may lag it by a journal), else
// the document on disk with its journal, active, archived or held by
// another process alike. Exporting never opens a session.
func (s *Server) exportDocument(id string) (*session.Document, error) {
	if err := session.ValidateID(id); err != nil {
		return nil, err
	}
	if ls, ok := s.live.Get(id); ok {
		if doc := ls.Document(); doc != nil {
			return doc, nil
		}
	}
	return s.opts.Sessions.Load(id)
}
