package server

import (
	"time"

	"github.com/labstack/echo/v4"

	"myco/web"
)

// zoneCookie names the reader's time zone (an IANA name): the tab sets it
// (static/app.js) so that the next page is rendered with times in that
// zone and the tab has nothing to rewrite, nothing that moves, on load.
const zoneCookie = "zone"

// readerZone puts the zone of the zone cookie into the request's context
// (web.WithZone); without the cookie, or with a name this machine does not
// know, times are rendered in UTC and the tab rewrites them.
func readerZone(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if loc := zoneOf(c); loc != nil {
			r := c.Request()
			c.SetRequest(r.WithContext(web.WithZone(r.Context(), loc)))
		}
		return next(c)
	}
}

func zoneOf(c echo.Context) *time.Location {
	ck, err := c.Cookie(zoneCookie)
	if err != nil || ck.Value == "" || len(ck.Value) > 64 {
		return nil
	}
	loc, err := time.LoadLocation(ck.Value)
	if err != nil {
		return nil
	}
	return loc
}
