package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"

	"github.com/labstack/echo/v4"

	"myco/session"
)

// uploadFile stores a document (a text or source file, or a PDF) sent as
// the raw body (its name in ?name=) or as the first file of a multipart
// form (its name the part's), once, beside the images. The type is sniffed
// from the bytes; the declared type is never trusted and the name is only
// kept, cleaned, to be shown.
func (s *Server) uploadFile(c echo.Context) error {
	r := c.Request()
	body := http.MaxBytesReader(c.Response(), r.Body, session.MaxPDFSize+64<<10)
	src, err := uploadedFile(r, body)
	if err != nil {
		if errors.Is(err, session.ErrImageTooLarge) {
			return fileTooLarge()
		}
		return err
	}
	name := c.QueryParam("name")
	if part, ok := src.(*multipart.Part); ok && part.FileName() != "" {
		name = part.FileName()
	}
	data, err := readAllLimited(src, session.MaxPDFSize)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) || errors.Is(err, session.ErrFileTooLarge) {
			return fileTooLarge()
		}
		return fmt.Errorf("read file: %w", err)
	}
	ref, err := s.opts.Images.PutFile(name, data)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ref)
}

func fileTooLarge() error {
	return fmt.Errorf("%w: PDFs may be up to %s, text files up to %s", session.ErrFileTooLarge,
		session.HumanSize(session.MaxPDFSize), session.HumanSize(session.MaxTextFileSize))
}

// readAllLimited reads r up to limit bytes; one more is ErrFileTooLarge.
func readAllLimited(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, session.ErrFileTooLarge
	}
	return data, nil
}

// getFile serves a stored document. Only a PDF and plain text are shown in
// the tab (text always as text/plain, so an HTML or SVG source file is
// never rendered); anything else is a download. The sandbox CSP and
// nosniff keep a crafted file from running anything either way.
func (s *Server) getFile(c echo.Context) error {
	name := session.CleanFileName(c.QueryParam("name"))
	data, ref, err := s.opts.Images.ReadFile(c.Param("sha"), name)
	disposition := "inline"
	mediaType := ref.MediaType
	switch {
	case errors.Is(err, session.ErrFileType):
		// An image or a newer myco's type: the bytes, downloaded.
		data, _, err = s.opts.Images.Read(c.Param("sha"))
		mediaType, disposition = "application/octet-stream", "attachment"
	case err == nil && mediaType == session.MediaText:
		mediaType = "text/plain; charset=utf-8"
	case err == nil && mediaType != session.MediaPDF:
		mediaType, disposition = "application/octet-stream", "attachment"
	}
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "private, max-age=31536000, immutable")
	h.Set("Content-Disposition", mime.FormatMediaType(disposition, map[string]string{"filename": name}))
	return c.Blob(http.StatusOK, mediaType, data)
}

// fileRequest is one file of a message: its SHA-256 alone, or
// {sha256, name} to keep the name it was attached under.
type fileRequest struct {
	SHA256 string `json:"sha256"`
	Name   string `json:"name"`
}

// UnmarshalJSON takes "sha256" or {"sha256", "name"}.
func (f *fileRequest) UnmarshalJSON(data []byte) error {
	var sha string
	if err := json.Unmarshal(data, &sha); err == nil {
		*f = fileRequest{SHA256: sha}
		return nil
	}
	type plain fileRequest
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return fmt.Errorf("a file is its sha256 or {sha256, name}: %w", err)
	}
	*f = fileRequest(p)
	return nil
}

// fileRefs checks the files of a message request and names them for
// live.Session.SubmitFiles.
func fileRefs(files []fileRequest) ([]session.FileRef, error) {
	out := make([]session.FileRef, 0, len(files))
	for _, f := range files {
		if !session.ValidSHA256(f.SHA256) {
			return nil, fmt.Errorf("%w: %q is not a file sha256", errBadInput, f.SHA256)
		}
		name := ""
		if f.Name != "" {
			name = session.CleanFileName(f.Name)
		}
		out = append(out, session.FileRef{SHA256: f.SHA256, Name: name})
	}
	return out, nil
}
