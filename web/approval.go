package web

import (
	"regexp"
	"strconv"
	"strings"

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
	Fact      string    // remember's fact, shown whole above the memory file's diff
	Command   string    // bash's command
	Input     string    // any other input, as indented JSON
	Diff      *DiffView // a file tool's change; nil for other tools
	// Hunks are the diff's hunks, each accepted or rejected on its own,
	// when there are two or more (and the diff was not cut short); the
	// diff's file header is DiffHead then.
	Hunks    []ApprovalHunk
	DiffHead []DiffLine
	// Fetch is web_fetch's host and URL (webfetch_approval.go); nil for
	// other tools.
	Fetch *FetchApproval
}

// ApprovalHunk is one hunk of a change waiting for approval, with its
// own accept toggle: "Allow once" sends the indexes of those still
// checked (static/approvals.js; server/live/files.go applies them).
type ApprovalHunk struct {
	Index, Of      int // from 0; of how many
	First, Last    int // lines of the file as it is, context included
	Added, Removed int
	Lines          []DiffLine // the "@@" header first
}

// Label names the hunk's toggle.
func (h ApprovalHunk) Label() string {
	return "Accept hunk " + strconv.Itoa(h.Index+1) + " of " + strconv.Itoa(h.Of)
}

// Where says which lines it changes and by how much.
func (h ApprovalHunk) Where() string {
	where := "line " + strconv.Itoa(h.First)
	if h.Last > h.First {
		where = "lines " + strconv.Itoa(h.First) + "–" + strconv.Itoa(h.Last)
	}
	return where + " · +" + strconv.Itoa(h.Added) + " −" + strconv.Itoa(h.Removed)
}

// IndexText is the index the toggle's value carries.
func (h ApprovalHunk) IndexText() string { return strconv.Itoa(h.Index) }

// HunksStatus says how many hunks are accepted, as the card first shows
// (all); static/approvals.js keeps it true.
func (a ApprovalView) HunksStatus() string {
	return "All " + strconv.Itoa(len(a.Hunks)) + " hunks accepted"
}

// hunkHeader reads where a hunk starts in the file as it is, and how many
// of its lines it shows: "@@ -40,13 +40,14 @@".
var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? `)

// cutNote starts the note server/tools puts where it cut a long diff: a
// cut diff does not show all its hunks, so it is taken whole or denied.
const cutNote = `\ [diff cut here`

// splitHunks cuts a diff into its file header and its hunks; no hunks
// when it has fewer than two or was cut short.
func splitHunks(d *DiffView) (head []DiffLine, hunks []ApprovalHunk) {
	for _, l := range d.Lines {
		switch {
		case l.Kind == DiffNote && strings.HasPrefix(l.Text, cutNote):
			return nil, nil
		case l.Kind == DiffHunk:
			h := ApprovalHunk{Index: len(hunks), First: 1}
			count := 1
			if m := hunkHeader.FindStringSubmatch(l.Text); m != nil {
				h.First, _ = strconv.Atoi(m[1])
				if m[2] != "" {
					count, _ = strconv.Atoi(m[2])
				}
			}
			h.Last = h.First + max(count, 1) - 1
			hunks = append(hunks, h)
		case len(hunks) == 0:
			head = append(head, l)
			continue
		case l.Kind == DiffAdd:
			hunks[len(hunks)-1].Added++
		case l.Kind == DiffDel:
			hunks[len(hunks)-1].Removed++
		}
		hunks[len(hunks)-1].Lines = append(hunks[len(hunks)-1].Lines, l)
	}
	if len(hunks) < 2 {
		return nil, nil
	}
	for i := range hunks {
		hunks[i].Of = len(hunks)
	}
	return head, hunks
}

// NewApprovalView returns the view of a pending approval from the fields
// of the tool.approval event.
func NewApprovalView(toolUseID, name string, input []byte, diff string) ApprovalView {
	a := ApprovalView{ToolUseID: toolUseID, Name: name, Diff: NewDiffView(diff)}
	var fields struct {
		Command string `json:"command"`
		Path    string `json:"path"`
		Fact    string `json:"fact"`
	}
	// An input that is not an object, or has other fields, still shows:
	// as its JSON, below.
	_ = json.Unmarshal(input, &fields)
	a.Path = fields.Path
	if name == rememberTool {
		a.Fact = fields.Fact
	}
	if a.Diff != nil {
		a.DiffHead, a.Hunks = splitHunks(a.Diff)
	}
	if name == "web_fetch" {
		a.Fetch = newFetchApproval(input)
	}
	if a.Diff == nil && a.Fetch == nil {
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

// rememberTool saves a fact to the project's memory (server/live/memory.go).
const rememberTool = "remember"

// Label is the card's accessible name.
func (a ApprovalView) Label() string { return "Approve " + a.ToolLabel() + "?" }

// SessionText labels "allow for this session": for a file tool it allows
// both file tools (server/live/files.go), and says so.
func (a ApprovalView) SessionText() string {
	if a.Name == rememberTool {
		return "Allow saving facts for this session"
	}
	if a.Diff != nil {
		return "Allow file changes for this session"
	}
	if a.Fetch != nil {
		return "Allow " + a.Fetch.Host + " for this session"
	}
	if a.Name == lspTool {
		return "Allow this language server for this session"
	}
	return "Allow for this session"
}

// lspTool is lsp_diagnostics (server/live/lsp.go), whose approval is to
// start a language server.
const lspTool = "lsp_diagnostics"

// Note is the one sentence that says what the approval is worth: a
// command in build mode runs with the person's own powers, and once
// commands run, approving edits holds back nothing a command could not
// do. "" for other tools.
func (a ApprovalView) Note() string {
	switch {
	case a.Name == rememberTool:
		return "The fact joins the project's memory, which every new session of this project reads (the side panel edits it)."
	case a.Diff != nil || a.Name == "write_file" || a.Name == "edit_file":
		return "Once bash is allowed, the agent can change files through it too: approving edits is then a courtesy, not a wall."
	case a.Name == "bash":
		return "In build mode a command runs with your own powers: it can read and change whatever you can, myco's token too."
	case a.Fetch != nil:
		return a.Fetch.Note()
	case a.Name == lspTool:
		return "Checking the file starts its language server (gopls, pyright, …) in the file's project. The server runs the project's build tools " +
			"with your shell's environment, secrets left out, and stops after 10 idle minutes or when the session closes."
	}
	return ""
}

// ApprovalHTML renders the card of a pending approval, for the
// tool.approval event and a snapshot's approvals.
func ApprovalHTML(toolUseID, name string, input []byte, diff string) (string, error) {
	return renderString(ApprovalCard(NewApprovalView(toolUseID, name, input, diff)))
}
