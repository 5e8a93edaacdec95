package server

import (
	"errors"
	"io/fs"
	"mime"
	"net/http"
	"path"

	"github.com/labstack/echo/v4"
)

// staticFile serves the embedded assets. They change only with the binary;
// no-cache makes the browser revalidate rather than keep a stale app.js.
func (s *Server) staticFile(assets fs.FS) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := path.Clean(c.Param("*"))
		data, err := fs.ReadFile(assets, name)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) {
			return echo.NewHTTPError(http.StatusNotFound, "no such file")
		}
		if err != nil {
			return err
		}
		ct := mime.TypeByExtension(path.Ext(name))
		if ct == "" {
			ct = "application/octet-stream"
		}
		c.Response().Header().Set("Cache-Control", "no-cache")
		return c.Blob(http.StatusOK, ct, data)
	}
}
