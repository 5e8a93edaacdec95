package server

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"myco/session"
)

// uploadImage stores an image sent as the raw body or as the first file of
// a multipart form. The type is sniffed from the bytes by the store; the
// name and the declared type are never trusted.
func (s *Server) uploadImage(c echo.Context) error {
	r := c.Request()
	// Multipart framing adds a little to the image itself.
	body := http.MaxBytesReader(c.Response(), r.Body, s.opts.MaxUpload+64<<10)
	src, err := uploadedFile(r, body)
	if err != nil {
		return err
	}
	ref, err := s.opts.Images.PutReader(src)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return fmt.Errorf("%w: the limit is %d bytes", session.ErrImageTooLarge, s.opts.MaxUpload)
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ref)
}

func uploadedFile(r *http.Request, body io.Reader) (io.Reader, error) {
	ct := r.Header.Get("Content-Type")
	if !strings.HasPrefix(ct, "multipart/form-data") {
		return body, nil
	}
	_, params, err := mime.ParseMediaType(ct)
	if err != nil || params["boundary"] == "" {
		return nil, fmt.Errorf("%w: malformed multipart Content-Type", errBadInput)
	}
	mr := multipart.NewReader(body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: the form holds no file", errBadInput)
		}
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, session.ErrImageTooLarge
		}
		if err != nil {
			return nil, fmt.Errorf("%w: malformed multipart body: %v", errBadInput, err)
		}
		if part.FileName() != "" {
			return part, nil
		}
	}
}

// getImage serves a verified blob. Images are immutable (named by their
// hash) so they may be cached for good; the sandbox CSP keeps a crafted
// file from running anything if opened directly.
func (s *Server) getImage(c echo.Context) error {
	data, ref, err := s.opts.Images.Read(c.Param("sha"))
	if err != nil {
		return err
	}
	return serveImage(c, data, ref.MediaType, true)
}

func serveImage(c echo.Context, data []byte, mediaType string, immutable bool) error {
	h := c.Response().Header()
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	if immutable {
		h.Set("Cache-Control", "private, max-age=31536000, immutable")
	}
	return c.Blob(http.StatusOK, mediaType, data)
}
