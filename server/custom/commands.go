package custom

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Command is a custom command: a Markdown file whose text, its arguments
// put in, is sent as the person's message.
type Command struct {
	// Name is the command as typed, without the slash: "review",
	// "frontend:test", or "project:help" for a file named like a built-in.
	Name string `json:"name"`
	// Description, ArgumentHint, Model and AllowedTools are the
	// frontmatter's (Description falls back to the body's first line).
	Description  string   `json:"description,omitempty"`
	ArgumentHint string   `json:"argument_hint,omitempty"`
	Model        string   `json:"model,omitempty"`
	AllowedTools []string `json:"allowed_tools,omitempty"`
	// Path is the file; Origin the folder it was found in, as people read
	// it (".myco/commands", "~/.claude/commands"); Scope project or user.
	Path   string `json:"path"`
	Origin string `json:"origin"`
	Scope  string `json:"scope"`
	// Problem says why the command cannot run (damaged frontmatter, too
	// large, a name that cannot be typed); ShadowedBy names the file of the
	// command of the same name that wins.
	Problem    string `json:"problem,omitempty"`
	ShadowedBy string `json:"shadowed_by,omitempty"`
	// Builtin is set when the file's own name is a built-in command's, so
	// it is reached under Name instead.
	Builtin string `json:"builtin,omitempty"`

	body string
}

// Usable reports whether the command runs when typed.
func (c Command) Usable() bool { return c.Problem == "" && c.ShadowedBy == "" }

// Body is the command's text before its arguments are put in.
func (c Command) Body() string { return c.body }

// Commands are the commands found for p, the ones that run first (in
// name order), then the shadowed and damaged ones.
func (l *Loader) Commands(p Places) []Command {
	var all []Command
	won := map[string]string{} // name → path
	for _, d := range p.commandDirs() {
		for _, c := range l.commandsIn(d, p) {
			if c.Problem == "" {
				if first, ok := won[c.Name]; ok {
					c.ShadowedBy = first
				} else {
					won[c.Name] = c.Path
				}
			}
			all = append(all, c)
		}
	}
	slices.SortStableFunc(all, func(a, b Command) int {
		if a.Usable() != b.Usable() {
			if a.Usable() {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return all
}

// Find is the usable command named name, if any.
func Find(cmds []Command, name string) (Command, bool) {
	name = strings.ToLower(name)
	for _, c := range cmds {
		if c.Name == name && c.Usable() {
			return c, true
		}
	}
	return Command{}, false
}

// commandsIn reads the .md files below d, subfolders up to maxDepth.
func (l *Loader) commandsIn(d dir, p Places) []Command {
	var out []Command
	seen := 0
	var walk func(path string, parts []string)
	walk = func(path string, parts []string) {
		ents, err := readDir(path)
		if err != nil {
			out = append(out, Command{Name: strings.Join(parts, ":"), Path: path, Origin: origin(d, p), Scope: d.scope, Problem: "folder not readable: " + err.Error()})
			return
		}
		for _, e := range ents {
			if seen >= maxPerFolder {
				return
			}
			name := e.Name()
			full := filepath.Join(path, name)
			if strings.HasPrefix(name, ".") {
				continue
			}
			info, err := e.Info()
			if err != nil {
				continue
			}
			if info.Mode()&fs.ModeSymlink != 0 {
				// A link to a file or a folder is followed, as the peers do.
				if info, err = os.Stat(full); err != nil {
					continue
				}
			}
			if info.IsDir() {
				if len(parts)+1 < maxDepth {
					walk(full, append(slices.Clip(parts), strings.ToLower(name)))
				}
				continue
			}
			if !strings.HasSuffix(strings.ToLower(name), ".md") {
				continue
			}
			seen++
			out = append(out, l.command(d, p, full, info, append(slices.Clip(parts), strings.ToLower(strings.TrimSuffix(name, name[len(name)-3:])))))
		}
	}
	walk(d.path, nil)
	return out
}

func (l *Loader) command(d dir, p Places, path string, info fs.FileInfo, parts []string) Command {
	c := Command{Name: strings.Join(parts, ":"), Path: path, Origin: origin(d, p), Scope: d.scope}
	for _, part := range parts {
		if !namePart.MatchString(part) {
			c.Problem = "its name cannot be typed: use letters, digits, - and _ in file and folder names"
			return c
		}
	}
	// "/5 minutes later" is a message: a command starts with a letter.
	if c.Name[0] < 'a' || c.Name[0] > 'z' {
		c.Problem = "its name cannot be typed: a command's name starts with a letter"
		return c
	}
	if l.builtins[c.Name] {
		c.Builtin = c.Name
		c.Name = d.scope + ":" + c.Name
	}
	f := l.read(path, info, maxCommandFile, false)
	if f.err != "" {
		c.Problem = f.err
		return c
	}
	c.body = f.body
	c.Description = oneLine(f.fm.Description, maxDescription)
	if c.Description == "" {
		c.Description = oneLine(firstLine(f.body), 200)
	}
	c.ArgumentHint = oneLine(string(f.fm.ArgumentHint), 200)
	c.Model = strings.TrimSpace(f.fm.Model)
	c.AllowedTools = f.fm.AllowedTools
	if strings.TrimSpace(f.body) == "" {
		c.Problem = "it has no text to send"
	}
	return c
}
