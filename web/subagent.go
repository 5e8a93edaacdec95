package web

import (
	"net/url"

	"myco/server/event"
)

// SubagentView is a sub-agent a task call started, as its strip in the
// call's card shows it.
type SubagentView struct {
	ToolUseID, Session, Title string
	Status, Detail            string
}

// NewSubagentView is the view of a subagent event.
func NewSubagentView(ev event.Subagent) SubagentView {
	return SubagentView{ToolUseID: ev.ToolUseID, Session: ev.Session, Title: ev.Title, Status: ev.Status, Detail: ev.Detail}
}

// Running says whether it still works (Stop is offered).
func (v SubagentView) Running() bool {
	switch v.Status {
	case event.SubagentDone, event.SubagentFailed, event.SubagentStopped:
		return false
	}
	return true
}

// State is its state in words.
func (v SubagentView) State() string {
	switch v.Status {
	case event.SubagentDone:
		return "answered"
	case event.SubagentFailed:
		if v.Detail != "" {
			return "failed: " + v.Detail
		}
		return "failed"
	case event.SubagentStopped:
		return "stopped"
	case "approval":
		return "waits for your approval"
	case "tool":
		if v.Detail != "" {
			return "running " + v.Detail
		}
		return "running a tool"
	case "writing":
		return "writing"
	case "retrying":
		return "retrying"
	case "compacting":
		return "compacting"
	case "stopping":
		return "stopping"
	}
	return "thinking"
}

// URL is its session's page.
func (v SubagentView) URL() string { return SessionURL(v.Session) }

// StopURL stops its turn.
func (v SubagentView) StopURL() string {
	return "/api/sessions/" + url.PathEscape(v.Session) + "/stop"
}

// SubagentHTML renders a sub-agent's strip, for the subagent event.
func SubagentHTML(_ string, ev event.Subagent) (string, error) {
	return renderString(subagentStrip(NewSubagentView(ev)))
}

// RunningSubagent is a row of the /subagents card.
type RunningSubagent struct {
	SubagentView
	ParentID, ParentTitle string
}

// ParentURL is the page of the session it works for, at its call.
func (r RunningSubagent) ParentURL() string { return SessionURL(r.ParentID) }
