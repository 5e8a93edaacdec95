package session

import "github.com/go-json-experiment/json/jsontext"

// CommandUse, on a person's message, says it was a custom command
// (server/custom): what was typed, "/review file.go", is Name and Args;
// the message's text is the command's file with the arguments put in,
// which is what the model sees. Model is the model the command asked its
// turn to run on ("" for the session's).
type CommandUse struct {
	Name    string         `json:"name"`
	Args    string         `json:"args,omitempty"`
	Path    string         `json:"path,omitempty"`
	Model   string         `json:"model,omitempty"`
	Unknown jsontext.Value `json:",embed"`
}

// Typed is the command as the person typed it.
func (c CommandUse) Typed() string {
	if c.Args == "" {
		return "/" + c.Name
	}
	return "/" + c.Name + " " + c.Args
}

// SkillRecord is one skill a live session offered its agent (its name and
// description in the skill tool's description), or found and could not
// offer (Problem, ShadowedBy). Like the instruction files, the list is
// what the session read when it opened or on /init reload; the skills'
// text is not kept.
type SkillRecord struct {
	Name       string         `json:"name"`
	Path       string         `json:"path"`
	Scope      string         `json:"scope,omitempty"`
	Problem    string         `json:"problem,omitempty"`
	ShadowedBy string         `json:"shadowed_by,omitempty"`
	Unknown    jsontext.Value `json:",embed"`
}

// Same reports whether x and y record the same skill (Unknown aside).
func (x SkillRecord) Same(y SkillRecord) bool {
	return x.Name == y.Name && x.Path == y.Path && x.Scope == y.Scope && x.Problem == y.Problem && x.ShadowedBy == y.ShadowedBy
}
