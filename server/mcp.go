package server

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"

	"github.com/labstack/echo/v4"

	"myco/internal/errkind"
	"myco/profiles"
	"myco/server/event"
	"myco/server/mcphost"
	"myco/server/tools"
	"myco/session"
	"myco/web"
)

// The profile's MCP servers: one mcphost.Host for the server process,
// configured from settings mcp_servers at start and at every change of
// them. Sessions fix their tools from it (server/live/mcp.go); the side
// panel shows each server's state and the session's switch.

// startMCP builds the Host and connects the configured servers.
func (s *Server) startMCP() {
	s.mcp = mcphost.New(mcphost.Options{
		Logger:   s.log,
		OnChange: s.publishMCPPanels,
		// A server gets the environment the agent's shell gets: it runs
		// code myco did not write, and needs no provider key.
		Environ: func() []string {
			st := s.settings()
			f := tools.EnvFilter{Drop: st.ShellEnvDropped(), Keep: st.ShellEnvKeep}
			if f.Drop == nil {
				f.Drop = tools.DefaultEnvDrop()
			}
			return f.Apply(os.Environ())
		},
		Getenv: s.getenv,
		// Sign-ins live with the profile, beside settings.json; a server
		// without a profile folder (tests) keeps them for the process.
		GrantsPath: s.mcpGrantsPath(),
	})
	configs := make(chan map[string]profiles.MCPServer, 1)
	s.opts.Settings.OnChange(func(st profiles.Settings) {
		// Only the latest settings count; a restart of a server can take
		// seconds, so it is not done under the settings' lock.
		select {
		case <-configs:
		default:
		}
		configs <- st.MCPServers
	})
	s.mcpDone = make(chan struct{})
	s.mcp.Configure(s.settings().MCPServers)
	go func() {
		for {
			select {
			case cfg := <-configs:
				s.mcp.Configure(cfg)
			case <-s.mcpDone:
				return
			}
		}
	}()
}

// mcpGrantsFile keeps the profile's MCP sign-ins (OAuth grants), 0600.
const mcpGrantsFile = "mcp-oauth.json"

func (s *Server) mcpGrantsPath() string {
	if s.opts.ProfileDir == "" {
		return ""
	}
	return filepath.Join(s.opts.ProfileDir, mcpGrantsFile)
}

// mcpCallbackPath is where an authorization server sends the person's
// browser back after a sign-in. It is the one page served without the
// token (the browser comes from another site, and the cookie is
// SameSite=Strict); it acts only on the state of a sign-in this process
// started, which nobody else knows.
const mcpCallbackPath = "/mcp/oauth/callback"

// loginMCP is POST /api/mcp/{name}/login: it starts a sign-in and answers
// the URL the tab opens.
func (s *Server) loginMCP(c echo.Context) error {
	authURL, err := s.mcp.Login(c.Request().Context(), c.Param("name"), s.URL()+mcpCallbackPath)
	switch {
	case errors.Is(err, mcphost.ErrNotFound):
		return errkind.New(errkind.NotFound, err.Error())
	case errors.Is(err, mcphost.ErrNoSignIn):
		return errkind.New(errkind.Conflict, err.Error())
	case err != nil:
		return errkind.New(errkind.Conflict, err.Error())
	}
	return c.JSON(http.StatusOK, map[string]string{"auth_url": authURL})
}

// logoutMCP is POST /api/mcp/{name}/logout: the sign-in is forgotten.
func (s *Server) logoutMCP(c echo.Context) error {
	if err := s.mcp.Logout(c.Param("name")); err != nil {
		if errors.Is(err, mcphost.ErrNotFound) {
			return errkind.New(errkind.NotFound, err.Error())
		}
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// mcpCallback is the page the authorization server sends the browser
// back to: it ends the sign-in and says how it went.
func (s *Server) mcpCallback(c echo.Context) error {
	name, err := s.mcp.Callback(c.QueryParams())
	status, title, text := http.StatusOK, "Signed in", "myco is connecting to "+name+". You can close this tab."
	if err != nil {
		status, title, text = http.StatusBadRequest, "Sign-in failed", err.Error()
		if name != "" {
			text = name + ": " + text
		}
	}
	return render(c, status, web.MCPSignedIn(title, text))
}

// stopMCP stops the servers, at shutdown.
func (s *Server) stopMCP() {
	select {
	case <-s.mcpDone: // a second Shutdown
	default:
		close(s.mcpDone)
	}
	s.mcp.Close()
}

// mcpPanel is the MCP part of doc's side panel.
func (s *Server) mcpPanel(doc *session.Document, editable bool) web.MCPPanelView {
	v := web.MCPPanelView{SessionID: doc.ID, Editable: editable}
	for _, st := range s.mcp.Statuses() {
		v.Servers = append(v.Servers, web.MCPServerView{
			Name: st.Name, Transport: st.Transport, State: string(st.State), Reason: st.Reason, LastError: st.LastError,
			Tools: st.Tools, On: !slices.Contains(doc.MCPOff, st.Name), OAuth: st.OAuth, SignedIn: st.SignedIn,
		})
	}
	return v
}

// publishMCPPanels tells every open tab of the servers' states.
func (s *Server) publishMCPPanels() {
	for _, id := range s.events.ids() {
		s.publishMCPPanel(id)
	}
}

// mcpPanelHTML is the MCP part of a live session's panel, for its
// snapshot; "" when no server is configured.
func (s *Server) mcpPanelHTML(doc *session.Document) string {
	if s.mcp == nil || len(s.mcp.Statuses()) == 0 {
		return ""
	}
	html, err := web.RenderMCPPanel(s.mcpPanel(doc, true))
	if err != nil {
		s.log.Warn("render mcp panel failed", "session", doc.ID, "err", err)
		return ""
	}
	return html
}

func (s *Server) publishMCPPanel(id string) {
	doc, err := s.opts.Sessions.Load(id)
	if err != nil {
		return // archived or gone: its tabs show no switch anyway
	}
	html, err := web.RenderMCPPanel(s.mcpPanel(doc, !doc.Archived))
	if err != nil {
		s.log.Warn("render mcp panel failed", "session", id, "err", err)
		return
	}
	s.events.Publish(id, event.Panel{HTML: html})
}

// mcpSwitch is the body of POST /api/sessions/{id}/mcp.
type mcpSwitch struct {
	Server string `json:"server"`
	On     *bool  `json:"on"`
}

// switchMCP turns an MCP server on or off for one session (the panel's
// switch): the session's tools are fixed anew from the servers on.
func (s *Server) switchMCP(c echo.Context) error {
	var req mcpSwitch
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.On == nil {
		return errkind.New(errkind.Invalid, `"on" (true or false) is required`)
	}
	if _, ok := s.settings().MCPServers[req.Server]; !ok {
		return errkind.New(errkind.Invalid, "no MCP server named "+req.Server+" in settings mcp_servers")
	}
	id := c.Param("id")
	if err := session.ValidateID(id); err != nil {
		return err
	}
	_, err := s.updateSession(id, func(d *session.Document) error {
		if archived, _ := s.opts.Sessions.IsArchived(d.ID); archived || d.Archived {
			return errReadOnly
		}
		// A copy: d shares its slices with the document as it was.
		d.MCPOff = slices.DeleteFunc(slices.Clone(d.MCPOff), func(n string) bool { return n == req.Server })
		if !*req.On {
			d.MCPOff = append(d.MCPOff, req.Server)
			slices.Sort(d.MCPOff)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if ls, ok := s.live.Get(id); ok {
		ls.RefreshMCPTools()
	}
	s.publishMCPPanel(id)
	return c.JSON(http.StatusOK, s.mcpAnswer(id))
}

// mcpServerJSON is one server in GET /api/mcp and the switch's answer.
type mcpServerJSON struct {
	Name      string   `json:"name"`
	Transport string   `json:"transport"`
	State     string   `json:"state"`
	Reason    string   `json:"reason,omitempty"`
	LastError string   `json:"last_error,omitempty"`
	Tools     []string `json:"tools"`
	// OAuth: the server signs in with OAuth; SignedIn: a sign-in is kept.
	OAuth    bool `json:"oauth"`
	SignedIn bool `json:"signed_in"`
	// On is whether the session uses it (only in a session's answer).
	On *bool `json:"on,omitempty"`
}

type mcpAnswerJSON struct {
	Servers []mcpServerJSON `json:"servers"`
}

// mcpAnswer is the servers' states, and whether session id uses each
// ("" for none).
func (s *Server) mcpAnswer(id string) mcpAnswerJSON {
	var off []string
	if id != "" {
		if doc, err := s.opts.Sessions.Load(id); err == nil {
			off = doc.MCPOff
		}
	}
	out := mcpAnswerJSON{Servers: []mcpServerJSON{}}
	for _, st := range s.mcp.Statuses() {
		j := mcpServerJSON{Name: st.Name, Transport: st.Transport, State: string(st.State), Reason: st.Reason, LastError: st.LastError, Tools: st.Tools, OAuth: st.OAuth, SignedIn: st.SignedIn}
		if j.Tools == nil {
			j.Tools = []string{}
		}
		if id != "" {
			on := !slices.Contains(off, st.Name)
			j.On = &on
		}
		out.Servers = append(out.Servers, j)
	}
	return out
}

// listMCP is GET /api/mcp: the profile's MCP servers and their states.
func (s *Server) listMCP(c echo.Context) error {
	return c.JSON(http.StatusOK, s.mcpAnswer(""))
}

// reconnectMCP is POST /api/mcp/{name}/reconnect: a failed server tries
// again now rather than after its backoff.
func (s *Server) reconnectMCP(c echo.Context) error {
	if !s.mcp.Reconnect(c.Param("name")) {
		return errkind.New(errkind.NotFound, "no MCP server named "+c.Param("name"))
	}
	return c.NoContent(http.StatusAccepted)
}
