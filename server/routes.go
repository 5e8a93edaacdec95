package server

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"myco/static"
)

// routes is the whole HTTP surface at a glance. Every route sits behind the
// Host check and the token; state-changing ones behind the Origin check too.
func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	e.Use(middleware.Recover())
	e.Use(securityHeaders, s.checkHost, s.authenticate, s.checkOrigin, s.settingsNotice, readerZone)

	e.GET("/", s.homePage)
	e.GET("/archived", s.archivedPage)
	e.GET("/subagents", s.subagentsPage)
	e.GET("/partials/subagents", s.subagentsCard)
	e.GET("/partials/board", s.boardPartial)
	e.GET("/partials/sessions", s.sessionRowsPartial)
	e.GET("/partials/search", s.searchPartial)
	e.GET("/partials/sidebar", s.sidebarPartial)
	e.GET("/partials/new-session", s.newSessionForm)
	e.GET("/help/providers", s.providerHelpPage)
	e.GET("/settings", s.settingsPage)
	e.POST("/settings", s.saveSettings)
	e.POST("/settings/key", s.saveKey)
	e.GET("/s/:id", s.sessionPage)
	e.GET("/s/:id/messages", s.messagesPartial)
	e.GET("/s/:id/usage", s.usageCard)
	e.GET("/s/:id/inline/:message/:block", s.inlineImage)
	e.GET("/images/:sha", s.getImage)
	e.GET("/static/*", s.staticFile(newAssets(static.FS, static.Version)))
	e.GET("/healthz", s.health)

	api := e.Group("/api")
	api.GET("/sessions", s.listSessions)
	api.GET("/subagents", s.listSubagents)
	api.GET("/resolve", s.resolveSession)
	api.POST("/sessions", s.createSession)
	api.GET("/sessions/:id", s.getSession)
	api.PATCH("/sessions/:id", s.patchSession)
	api.GET("/sessions/:id/steering", s.getSteering)
	api.GET("/sessions/:id/budget", s.budget)
	api.POST("/sessions/:id/archive", s.archiveSession)
	api.POST("/sessions/:id/restore", s.restoreSession)
	api.POST("/sessions/:id/fork", s.forkSession)
	api.DELETE("/sessions/:id", s.deleteSession)
	api.GET("/sessions/:id/events", s.sessionEvents)
	api.POST("/sessions/:id/messages", s.postMessage)
	api.GET("/sessions/:id/messages/:message/markdown", s.messageMarkdown)
	api.GET("/sessions/:id/export", s.exportSession)
	api.POST("/sessions/:id/stop", s.stopTurn)
	api.POST("/sessions/:id/retry", s.retryTurn)
	api.POST("/sessions/:id/compact", s.compactSession)
	api.POST("/sessions/:id/instructions/reload", s.reloadInstructions)
	api.GET("/sessions/:id/lsp", s.listLSP) // api_lsp.go
	api.POST("/sessions/:id/init", s.initProject)
	api.GET("/sessions/:id/memory", s.readMemory)
	api.PUT("/sessions/:id/memory", s.writeMemory)
	api.GET("/sessions/:id/commands", s.listCustomCommands)
	api.POST("/sessions/:id/commands/run", s.runCustomCommand)
	api.POST("/sessions/:id/approvals/:tool", s.approve)
	api.POST("/sessions/:id/steer", s.steerTurn)
	api.POST("/sessions/:id/btw", s.askBtw)
	api.PATCH("/sessions/:id/queued/:qid", s.editQueued)
	api.DELETE("/sessions/:id/queued/:qid", s.cancelQueued)
	api.POST("/sessions/:id/notes", s.postNote)
	api.DELETE("/sessions/:id/notes/:note", s.deleteNote)
	api.POST("/sessions/:id/attach", s.attachPath)
	api.POST("/sessions/:id/mentions", s.attachMentions)
	api.GET("/sessions/:id/paths", s.listPaths)
	api.POST("/sessions/:id/shell", s.runCommand)
	api.GET("/sessions/:id/goal", s.getGoal)
	api.POST("/sessions/:id/goal", s.postGoal)
	api.PATCH("/sessions/:id/goal", s.patchGoal)
	api.DELETE("/sessions/:id/goal", s.deleteGoal)
	api.PUT("/sessions/:id/mode", s.putMode)
	api.GET("/sessions/:id/undo", s.getUndo)
	api.POST("/sessions/:id/undo", s.postUndo)
	api.GET("/sessions/:id/redo", s.getRedo)
	api.POST("/sessions/:id/redo", s.postRedo)
	api.GET("/sessions/:id/diff", s.getDiff)
	api.POST("/sessions/:id/mcp", s.switchMCP)
	api.GET("/mcp", s.listMCP)
	api.POST("/mcp/:name/reconnect", s.reconnectMCP)
	api.GET("/models", s.listModels)
	api.GET("/settings", s.settingsJSON)
	api.POST("/images", s.uploadImage)
	api.GET("/search", s.search)
	api.GET("/events", s.profileEvents)
	e.GET("/import", s.importPage)
	api.POST("/import", s.postImport)
	api.GET("/import/:job", s.getImport)
	if s.schedules != nil {
		e.GET("/schedules", s.schedulesPage)
		e.GET("/partials/schedules", s.schedulesPartial)
		api.GET("/schedules", s.listSchedules)
		api.POST("/schedules", s.createSchedule)
		api.GET("/schedules/:id", s.getSchedule)
		api.PATCH("/schedules/:id", s.patchSchedule)
		api.DELETE("/schedules/:id", s.deleteSchedule)
		api.POST("/schedules/:id/run", s.runScheduleNow)
		api.GET("/schedules/:id/runs", s.scheduleRuns)
	}

	e.RouteNotFound("/*", func(c echo.Context) error {
		return echo.NewHTTPError(http.StatusNotFound, "no such page")
	})
	return e
}
