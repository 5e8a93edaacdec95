package server

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"myco/server/custom"
	"myco/web"
)

// Custom commands (server/live/custom.go): GET …/commands lists them, with
// where each came from and why one cannot run; POST …/commands/run runs
// one, its expansion sent as the person's message.

type commandsAnswer struct {
	Commands []custom.Command `json:"commands"`
}

func (s *Server) listCustomCommands(c echo.Context) error {
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	cmds := ls.CustomCommands()
	if cmds == nil {
		cmds = []custom.Command{}
	}
	return c.JSON(http.StatusOK, commandsAnswer{Commands: cmds})
}

type runCommandRequest struct {
	Name string `json:"name"`
	Args string `json:"args"`
}

// maxCommandArgs bounds what is typed after a command's name: it becomes
// part of a message, which has no bound of its own, but a command's
// arguments are a line or a few.
const maxCommandArgs = 256 << 10

func (s *Server) runCustomCommand(c echo.Context) error {
	var req runCommandRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.Name == "" {
		return fmt.Errorf("%w: name the command to run", errBadInput)
	}
	if len(req.Args) > maxCommandArgs {
		return fmt.Errorf("%w: the arguments are %d KB, at most %d KB", errBadInput, len(req.Args)>>10, maxCommandArgs>>10)
	}
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	turn, err := ls.RunCustomCommand(req.Name, req.Args)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]string{"turn": turn})
}

// customCommandViews are the custom commands of the session's folder as
// the composer lists them.
func customCommandViews(cmds []custom.Command) []web.CustomCommandView {
	out := make([]web.CustomCommandView, 0, len(cmds))
	for _, c := range cmds {
		out = append(out, web.CustomCommandView{
			Name: c.Name, Args: c.ArgumentHint, Help: c.Description, Origin: c.Origin, Scope: c.Scope,
			Path: c.Path, Model: c.Model, Problem: c.Problem, ShadowedBy: c.ShadowedBy, Builtin: c.Builtin,
		})
	}
	return out
}

// builtinCommandNames are the composer's own commands, which a custom
// command never replaces.
func builtinCommandNames() []string {
	out := make([]string, 0, len(web.Commands))
	for _, c := range web.Commands {
		out = append(out, c.Name)
	}
	return out
}
