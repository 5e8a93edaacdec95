package web

import "myco/session"

// CustomCommandView is a custom command (server/custom) as the composer
// lists it.
type CustomCommandView struct {
	Name string // as typed, without the slash
	Args string // its argument-hint
	Help string // its description
	// Origin is the folder it came from as people read it; Scope project
	// or user; Path its file.
	Origin, Scope, Path string
	Model               string // the model its turn runs on, "" for the session's
	// Problem says why it cannot run; ShadowedBy names the file of the
	// command of its name that wins; Builtin, the built-in command its
	// file's name is (so it goes by Name instead).
	Problem, ShadowedBy, Builtin string
}

// Usable reports whether typing it runs it.
func (c CustomCommandView) Usable() bool { return c.Problem == "" && c.ShadowedBy == "" }

// Usage is the command as typed: "/review [file]".
func (c CustomCommandView) Usage() string {
	return Command{Name: c.Name, Args: c.Args}.Usage()
}

// HelpLine is its description and where it came from, as /help lists it.
func (c CustomCommandView) HelpLine() string {
	if c.Help == "" {
		return "(" + c.Origin + ")"
	}
	return c.Help + " (" + c.Origin + ")"
}

// Status says what stops it running, or what it does differently.
func (c CustomCommandView) Status() string {
	switch {
	case c.Problem != "":
		return "cannot run: " + c.Problem
	case c.ShadowedBy != "":
		return "not used: " + c.ShadowedBy + " has the same name"
	case c.Builtin != "":
		return "/" + c.Builtin + " is built in, so this one is /" + c.Name
	case c.Model != "":
		return "runs on " + c.Model
	}
	return ""
}

// usableCommands are the commands that run when typed.
func usableCommands(all []CustomCommandView) []CustomCommandView {
	var out []CustomCommandView
	for _, c := range all {
		if c.Usable() {
			out = append(out, c)
		}
	}
	return out
}

// SkillView is a skill the session offers its agent, or found and could
// not offer, as the side panel lists it.
type SkillView struct {
	Name  string
	Path  string // its SKILL.md, as people read it
	Full  string
	Scope string
	Note  string // why it is not offered
}

// skillViews are doc's skills as the side panel lists them.
func skillViews(doc *session.Document) []SkillView {
	out := make([]SkillView, 0, len(doc.Skills))
	for _, sk := range doc.Skills {
		v := SkillView{Name: sk.Name, Path: shortPath(doc.Cwd, sk.Path), Full: sk.Path, Scope: sk.Scope}
		switch {
		case sk.Problem != "":
			v.Note = "not offered: " + sk.Problem
		case sk.ShadowedBy != "":
			v.Note = "not offered: " + shortPath(doc.Cwd, sk.ShadowedBy) + " has the same name"
		}
		out = append(out, v)
	}
	return out
}
