package server

import (
	"bytes"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"myco/web"
)

// render renders a component into a buffer first, so a failed render is
// still an error answer rather than half a page with a 200.
func render(c echo.Context, status int, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.HTMLBlob(status, buf.Bytes())
}

func (s *Server) renderError(c echo.Context, status int, msg string) error {
	return render(c, status, web.ErrorPage(status, msg))
}
