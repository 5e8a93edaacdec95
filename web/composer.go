package web

import (
	"net/url"

	"myco/session"
)

// ComposerView is the message box of a session the tab may write to. The
// URLs become data attributes, so static/chat.js never builds a
// session-specific path itself.
type ComposerView struct {
	SessionID string
	// Waiting are the notes waiting for the next message: the attachments
	// among them are chips above the message box (note.templ).
	Waiting []session.Note
	// Queued is what waits for the running turn (queued.templ).
	Queued []session.Queued
	// Status is the turn's state as the page is rendered (status.go).
	Status StatusView
	// Custom are the custom commands (custom.go): /help, the palette and
	// the completion list show the usable ones, /commands all of them.
	Custom []CustomCommandView
}

// Composer returns the composer of the session page; only a writable page
// renders it.
func (v SessionView) Composer() ComposerView {
	return ComposerView{SessionID: v.ID, Waiting: v.Latest.Waiting, Queued: v.Queued, Status: v.Status, Custom: v.CustomCommands}
}

// MessagesURL is where a message is posted.
func (v ComposerView) MessagesURL() string { return apiURL(v.SessionID, "messages") }

// StopURL stops the running turn.
func (v ComposerView) StopURL() string { return apiURL(v.SessionID, "stop") }

// RetryURL runs the last submission again.
func (v ComposerView) RetryURL() string { return apiURL(v.SessionID, "retry") }

// ApprovalsURL is the prefix an approval's tool_use ID is appended to.
func (v ComposerView) ApprovalsURL() string { return apiURL(v.SessionID, "approvals") + "/" }

// SessionURL is where title and model changes are PATCHed.
func (v ComposerView) SessionURL() string { return "/api/sessions/" + url.PathEscape(v.SessionID) }

// InputID is the textarea's id: the label and the hint point at it.
func (v ComposerView) InputID() string { return "composer-input" }

// Command is a slash command the composer understands. The help panel
// lists them, and the script reads its autocomplete list from that panel,
// so this table is the only place they are named.
type Command struct {
	Name string // without the slash
	Args string // how its argument is written, "" when it takes none
	Help string
}

// Usage is the command as typed: "/resume ID".
func (c Command) Usage() string {
	if c.Args == "" {
		return "/" + c.Name
	}
	return "/" + c.Name + " " + c.Args
}

// Commands are the composer's slash commands, in the order /help lists them.
var Commands = []Command{
	{Name: "stop", Help: "Stop the running turn (Esc does the same)"},
	{Name: "retry", Help: "Run the last message again"},
	{Name: "new", Help: "Start a new session in this tab"},
	{Name: "resume", Args: "ID", Help: "Open a session by its ID, or the start of it; @last is the most recently active one other than this"},
	{Name: "title", Args: "TEXT", Help: "Rename this session (alone, /title says the title)"},
	{Name: "model", Args: "[NAME]", Help: "Switch the model; without a name, list the models"},
	{Name: "compact", Args: "[TEXT]", Help: "Summarise this thread into a new one now (the old one is kept); TEXT says what the summary must keep"},
	{Name: "fork", Help: "Fork this session: a new session with the whole conversation, opened here"},
	{Name: "rewind", Args: "[N]", Help: "Fork without the last N turns (default 1) and open the fork"},
	{Name: "steer", Args: "TEXT", Help: "Guide the running turn: taken in after the current tool round, before the agent's next step (with no turn running, an ordinary message)"},
	{Name: "queue", Args: "TEXT", Help: "Send a message once the current turn is done (what Enter does during a turn); it can be edited until it starts"},
	{Name: "btw", Args: "QUESTION", Help: "Ask a side question about the conversation: answered in a card, not kept, not sent to the model later"},
	{Name: "usage", Help: "Tokens, cache hit and cost of the last turn and of the session"},
	{Name: "subagents", Help: "The sub-agents running now (the agent starts them with its task tool), each with Stop"},
	{Name: "think", Args: "[off|low|medium|high|max|default]", Help: "How hard the model thinks in this session (its reasoning shows folded in the answer); alone, shows the level"},
	{Name: "personality", Args: "[NAME|off]", Help: "Answer as a persona from settings.json's personalities in this session; alone, lists them"},
	{Name: "goal", Args: "[--turns N] [TEXT|off]", Help: "Keep the agent working on TEXT turn after turn (10 turns by default, at most 100) until it reports done or blocked; alone, shows the goal and resumes it when paused; off stops it after the current step"},
	{Name: "plan", Args: "[TASK]", Help: "Plan mode: the agent reads and plans, and changes no file (Alt+P toggles); with TASK, plans it at once"},
	{Name: "build", Args: "[TASK]", Help: "Build mode: the agent may change files again; with TASK, builds it at once"},
	{Name: "undo", Help: "Take back the latest turn: its file changes (and changes made by hand since) and its messages; asks first, listing the files"},
	{Name: "redo", Help: "Bring back the turn /undo took back"},
	{Name: "diff", Args: "[last|PATH]", Help: "What changed in the folder since the session's first turn (last: since the latest turn; PATH: one file or folder)"},
	{Name: "init", Args: "[reload]", Help: "Have the agent explore the project and write an AGENTS.md for it (you approve the file). /init reload reads the instruction files again (AGENTS.md, CLAUDE.md, MYCO.md up to the repository's root, ~/.config/myco/AGENTS.md, the project's memory) and the skills: the next request carries what they say now"},
	{Name: "export", Args: "[md|json|html]", Help: "Download this session as Markdown (the default), its JSON document, or one HTML page"},
	{Name: "session", Help: "Show this session's ID, the path of the file that holds it, and its folder"},
	{Name: "theme", Args: "[light|dark|system]", Help: "The tab's colours: light, dark, or the system's (remembered in this browser); alone, says which"},
	{Name: "lsp", Help: "List the language servers the agent can check files with (lsp_diagnostics), and their states"},
	{Name: "commands", Help: "List the custom commands (.myco/commands, .claude/commands, ~/.config/myco/commands, …) and where each came from"},
	{Name: "help", Help: "Show this list"},
}

// ImageTypes are the image types the composer attaches (the server sniffs
// the bytes too).
const ImageTypes = "image/png,image/jpeg,image/gif,image/webp"
