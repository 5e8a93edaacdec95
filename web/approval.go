package web

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// ApprovalView is a tool call waiting for the person's decision, as the
// composer shows it: what would run (a command, or a file's diff) and the
// three answers.
type ApprovalView struct {
	ToolUseID string
	Name      string
	Path      string    // a file tool's path, shown above its diff
	Command   string    // bash's command
	Input     string    // any other input, as indented JSON
	Diff      *DiffView // a file tool's change; nil for other tools
}

// NewApprovalView returns the view of a pending approval from the fields
// of the tool.approval event.
func NewApprovalView(toolUseID, name string, input []byte, diff string) ApprovalView {
	a := ApprovalView{ToolUseID: toolUseID, Name: name, Diff: NewDiffView(diff)}
	var fields struct {
		Command string `json:"command"`
		Path    string `json:"path"`
	}
	// An input that is not an object, or has other fields, still shows:
	// as its JSON, below.
	_ = json.Unmarshal(input, &fields)
	a.Path = fields.Path
	if a.Diff == nil {
		a.Command = fields.Command
		if a.Command == "" {
			a.Input = indentJSON(jsontext.Value(input))
		}
	}
	return a
}

// ToolLabel names the tool, or says there is one when the name is missing.
func (a ApprovalView) ToolLabel() string {
	if a.Name == "" {
		return "tool"
	}
	return a.Name
}

// Label is the card's accessible name.
func (a ApprovalView) Label() string { return "Approve " + a.ToolLabel() + "?" }

// SessionText labels "allow for this session": for a file tool it allows
// both file tools (server/live/files.go), and says so.
func (a ApprovalView) SessionText() string {
	if a.Diff != nil {
		return "Allow file changes for this session"
	}
	return "Allow for this session"
}

// ApprovalHTML renders the card of a pending approval, for the
// tool.approval event and a snapshot's approvals.
func ApprovalHTML(toolUseID, name string, input []byte, diff string) (string, error) {
	return renderString(ApprovalCard(NewApprovalView(toolUseID, name, input, diff)))
}
