package server

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"myco/static"
)

// The web app manifest and its icons make the tab installable as an app
// (issue 24). A browser fetches the manifest without cookies (a <link
// rel="manifest"> omits credentials unless told otherwise) and the icons
// when it installs, so these few fixed files are served without the
// token: they say nothing but the app's name, colours and icon. They
// still go through the Host check, and nothing in them names the token:
// the app starts at "/", which the token's cookie (30 days) opens.

// ManifestPath is where the manifest is served.
const ManifestPath = "/manifest.webmanifest"

// appIcons are the icons the manifest names, by their name under
// /icons/; the bytes are static's.
var appIcons = map[string]bool{"icon-192.png": true, "icon-512.png": true, "icon-maskable-512.png": true}

// manifestJSON is the manifest: fixed, so written out rather than
// encoded on every request. Colours are favicon.svg's blue and the
// light page's background.
const manifestJSON = `{
  "name": "myco",
  "short_name": "myco",
  "description": "A local agent you chat with in a browser tab",
  "id": "/",
  "start_url": "/",
  "scope": "/",
  "display": "standalone",
  "theme_color": "#1d5fb8",
  "background_color": "#fcfcfb",
  "icons": [
    {"src": "/icons/icon-192.png", "sizes": "192x192", "type": "image/png", "purpose": "any"},
    {"src": "/icons/icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any"},
    {"src": "/icons/icon-maskable-512.png", "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
    {"src": "/icons/favicon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any"}
  ]
}
`

// isPublic reports whether a GET of path is served without the token:
// the manifest and its icons only.
func isPublic(method, path string) bool {
	if method != http.MethodGet && method != http.MethodHead {
		return false
	}
	if path == ManifestPath {
		return true
	}
	name, ok := strings.CutPrefix(path, "/icons/")
	return ok && (appIcons[name] || name == "favicon.svg")
}

func (s *Server) webManifest(c echo.Context) error {
	h := c.Response().Header()
	h.Set("Cache-Control", cacheRevalidated)
	return c.Blob(http.StatusOK, "application/manifest+json", []byte(manifestJSON))
}

// appIcon serves an icon the manifest names; anything else under /icons/
// is not found (the static files beside them are the token's).
func (s *Server) appIcon(a *assets) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := c.Param("name")
		if !appIcons[name] && name != "favicon.svg" {
			return echo.NewHTTPError(http.StatusNotFound, "no such icon")
		}
		f, err := a.get(name)
		if err != nil {
			return err
		}
		f.serve(c.Response(), c.Request(), false)
		return nil
	}
}

// iconAssets are the icons as served, from static's files.
func iconAssets() *assets { return newAssets(static.FS, static.Version) }
