package server

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"myco/web"
)

// contentSecurityPolicy allows our own scripts, styles, images and
// connections only: no inline script but the one a session page opens at
// its bottom with (by its hash), no framing, no form posts elsewhere.
var contentSecurityPolicy = "default-src 'none'; script-src 'self' " + web.InlineScriptHashes + "; style-src 'self'; " +
	"img-src 'self'; connect-src 'self'; font-src 'self'; base-uri 'none'; " +
	"form-action 'self'; frame-ancestors 'none'; manifest-src 'self'"

// securityHeaders go on every response, errors included.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		return next(c)
	}
}

// checkHost refuses requests whose Host is not this server's own loopback
// name and port: a DNS-rebinding page reaches 127.0.0.1 under a foreign name.
func (s *Server) checkHost(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !s.ownHost(c.Request().Host) {
			return echo.NewHTTPError(http.StatusForbidden, "unexpected Host header")
		}
		return next(c)
	}
}

func (s *Server) ownHost(host string) bool {
	switch host {
	case "127.0.0.1:" + s.port, "localhost:" + s.port, "[::1]:" + s.port:
		return true
	}
	return false
}

// checkOrigin refuses state-changing requests from another site. Browsers
// send Origin on every cross-origin request and on same-origin POSTs;
// Sec-Fetch-Site backs it up where Origin is absent.
func (s *Server) checkOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions {
			return next(c)
		}
		if err := s.sameOrigin(r); err != nil {
			return err
		}
		return next(c)
	}
}

// cookieName includes the port: cookies are shared by every port of a
// host, and each profile's server has its own token.
func (s *Server) cookieName() string { return "myco_token_" + s.port }

// authenticate accepts the token as a bearer header or the cookie. A page
// opened with ?token= sets the cookie and redirects to the same URL without
// it, so the token stays out of history and logs.
func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if isPublic(r.Method, r.URL.Path) { // the app's manifest and icons (manifest.go)
			return next(c)
		}
		if tok := r.URL.Query().Get("token"); tok != "" && r.Method == http.MethodGet {
			if !s.validToken(tok) {
				return echo.NewHTTPError(http.StatusUnauthorized, "wrong token")
			}
			s.setCookie(c)
			return c.Redirect(http.StatusSeeOther, withoutToken(r.URL))
		}
		if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && s.validToken(tok) {
			return next(c)
		}
		if r.Method == http.MethodGet && r.URL.Path == mcpCallbackPath {
			// An MCP sign-in's way back (mcp.go): the browser comes from
			// the authorization server, without the Strict cookie, and the
			// page acts only on a state this process made.
			return next(c)
		}
		if ck, err := r.Cookie(s.cookieName()); err == nil && s.validToken(ck.Value) {
			return next(c)
		}
		return echo.NewHTTPError(http.StatusUnauthorized, "missing or wrong token: open the URL that myco printed")
	}
}

func (s *Server) validToken(tok string) bool {
	return subtle.ConstantTimeCompare([]byte(tok), []byte(s.opts.Token)) == 1
}

// cookieMaxAge keeps the cookie across a browser's restart: the profile
// keeps its token (address.json), so a bookmark opens without the link
// myco printed. A new token (address.json removed) makes it useless.
const cookieMaxAge = 30 * 24 * 60 * 60

func (s *Server) setCookie(c echo.Context) {
	c.SetCookie(&http.Cookie{
		Name: s.cookieName(), Value: s.opts.Token, Path: "/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: cookieMaxAge,
	})
}

// withoutToken is where a link with ?token= redirects: the same local path
// and query without the token. A path that a browser would read as another
// host (//evil.example/ is scheme-relative) goes home instead, so the link
// cannot be an open redirect.
func withoutToken(u *url.URL) string {
	q := u.Query()
	q.Del("token")
	path := u.Path
	if path == "" {
		path = "/"
	}
	out := (&url.URL{Path: path, RawQuery: q.Encode()}).String()
	if !strings.HasPrefix(out, "/") || strings.HasPrefix(out, "//") || strings.HasPrefix(out, "/\\") {
		return "/"
	}
	return out
}
