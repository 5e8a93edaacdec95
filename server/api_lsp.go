package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"myco/server/lsp"
	"myco/web"
)

// Language servers (server/live/lsp.go): GET …/lsp is /lsp's listing,
// the servers found when the session opened with their states, and the
// known ones not found, as data and as the panel's HTML.

type lspAnswer struct {
	Servers []lsp.Status `json:"servers"`
	Missing []lsp.Known  `json:"missing"`
	HTML    string       `json:"html"`
}

func (s *Server) listLSP(c echo.Context) error {
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	servers, missing := ls.LanguageServers()
	html, err := web.LSPListHTML(web.LSPListView{Folder: ls.LSPFolder(), Servers: servers, Missing: missing})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, lspAnswer{Servers: servers, Missing: missing, HTML: html})
}
