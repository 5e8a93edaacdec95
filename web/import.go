package web

// ImportURL is the Import page, which brings other agents' sessions in.
const ImportURL = "/import"

// ImportView is the Import page: one form per tool, its folder filled in.
type ImportView struct {
	Profile string
	Tools   []ImportTool
}

// ImportTool is one tool's form: Tool is what the API takes
// (claude-code, codex, opencode), Label its name for people,
// DefaultPath where it keeps its sessions on this machine.
type ImportTool struct {
	Tool, Label, DefaultPath string
}
