package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"myco/session"
)

// Project instructions (server/live/instructions.go): POST
// …/instructions/reload reads the session's instruction files again
// (/init reload); the next model call carries them.

type instructionsAnswer struct {
	Instructions []session.Instruction `json:"instructions"`
}

func (s *Server) reloadInstructions(c echo.Context) error {
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	files, err := ls.ReloadInstructions()
	if err != nil {
		return err
	}
	if files == nil {
		files = []session.Instruction{}
	}
	return c.JSON(http.StatusOK, instructionsAnswer{Instructions: files})
}

// initPrompt is the message /init sends: the agent explores the project
// and writes an AGENTS.md, which the person approves like any edit.
const initPrompt = `/init — Explore this project and write an AGENTS.md in its root folder for agents that work here after you.

Look first: the README and other docs, the build and test setup (Makefile, Taskfile, package.json, go.mod, pyproject.toml, CI files…), the layout of the source, and a few representative files. Run harmless commands to check what you find (listing files, --help, a dry run), nothing that changes anything.

Then write AGENTS.md with write_file (or improve the one there, with edit_file, after reading it): short and concrete, for an agent, not a person — how to build, test, lint and run it (exact commands), where things are, the conventions the code follows that are not obvious from one file, and what to avoid. Leave out what any agent would know. If CLAUDE.md or other agent instructions exist, take what is still true from them. The person approves the file before it is written.`

// initProject sends /init's message: 202 {turn} or {queued}, as a
// message sent with queue:true.
func (s *Server) initProject(c echo.Context) error {
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	turn, queued, err := ls.Submit(initPrompt, nil, true)
	if err != nil {
		return err
	}
	if queued != "" {
		return c.JSON(http.StatusAccepted, map[string]string{"queued": queued})
	}
	return c.JSON(http.StatusAccepted, map[string]string{"turn": turn})
}

// The project's memory (server/live/memory.go): GET reads
// .myco/memory.md of the session's project, PUT replaces it (the side
// panel's editor) and reloads the session's instruction files.

func (s *Server) readMemory(c echo.Context) error {
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	mem, err := ls.ReadMemory()
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, mem)
}

type memoryRequest struct {
	Text string `json:"text"`
	// BaseSHA256 is the sha256 the text was read with; the write is
	// refused (409) when the file changed since. Empty: written anyway.
	BaseSHA256 string `json:"base_sha256"`
}

func (s *Server) writeMemory(c echo.Context) error {
	var req memoryRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	ls, err := s.liveSession(c.Param("id"))
	if err != nil {
		return err
	}
	mem, err := ls.WriteMemory(req.Text, req.BaseSHA256)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, mem)
}
