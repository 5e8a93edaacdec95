package live

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/uuid"

	"myco/internal/errkind"
	"myco/server/custom"
	"myco/server/llm"
	"myco/server/tools"
	"myco/session"
)

// Custom commands and skills (package custom reads them).
//
//   - Commands are read when asked for (a page render, a run), through
//     the manager's Loader, which rereads only the files that changed: a
//     new file is there on the next reload of the page. Running one
//     (RunCommand) sends its text, the arguments put in, as the person's
//     message, marked with the command (session.CommandUse); its
//     frontmatter's model runs that turn, and its allowed-tools run
//     without asking in that turn (commandGrant).
//   - Skills are read when the live session opens and on /init reload,
//     as the instruction files are: their names and descriptions are the
//     skill tool's description, part of the tools block at the head of the
//     cached prefix, so it changes only when the person reloads. No skill,
//     no tool: a session without skills sends what it sent before. The
//     agent loads a skill's body and the list of its files with the tool,
//     read from disk then.

// ErrUnknownCommand: no usable custom command has that name.
var ErrUnknownCommand = errkind.New(errkind.NotFound, "no such custom command")

// newCustomLoader makes the manager's reader of commands and skills: it
// never reads a denied path (settings denied_paths, myco's own data).
func newCustomLoader(m *Manager) *custom.Loader {
	allow := func(p string) error {
		_, err := m.denied().Resolve(filepath.Clean(p))
		if err != nil {
			return fmt.Errorf("%s", skipReason(err))
		}
		return nil
	}
	return custom.NewLoader(allow, m.opts.BuiltinCommands)
}

// places are where folder's commands and skills are looked for.
func (m *Manager) places(folder string) custom.Places {
	if folder == "" {
		folder = m.opts.DefaultCwd
	}
	p := custom.Places{Folder: folder, Home: m.opts.UserHome}
	if m.opts.PersonalInstructions != "" {
		p.Config = filepath.Dir(m.opts.PersonalInstructions)
	}
	return p
}

// CustomCommands are the custom commands of a session working in folder
// ("" for the default folder), usable first (custom.Loader.Commands).
func (m *Manager) CustomCommands(folder string) []custom.Command {
	return m.customFiles.Commands(m.places(folder))
}

// CustomSkills are the skills a session opened in folder now would find.
func (m *Manager) CustomSkills(folder string) []custom.Skill {
	return m.customFiles.Skills(m.places(folder))
}

// RunCustomCommand runs the custom command name with args: its expansion is
// sent as the person's message and starts a turn, which it returns. A
// command runs only when no turn is running (ErrTurnRunning): its model
// and its tools are that turn's.
func (s *Session) RunCustomCommand(name, args string) (string, error) {
	c, ok := custom.Find(s.m.CustomCommands(s.folder()), name)
	if !ok {
		return "", fmt.Errorf("%w: /%s (the commands are listed with /commands)", ErrUnknownCommand, name)
	}
	args = strings.TrimSpace(args)
	text := c.Expand(args)
	if strings.TrimSpace(text) == "" {
		return "", ErrEmptyMessage
	}
	if c.Model != "" {
		if _, _, err := s.m.opts.Models.Client(c.Model); err != nil {
			return "", errkind.Errorf(errkind.Invalid, "/%s asks for the model %q (its file %s says model: %s), which myco cannot reach: %w", c.Name, c.Model, c.Path, c.Model, err)
		}
	}
	s.pauseGoal("paused for the person's message; /goal resumes it")
	s.mu.Lock()
	if err := s.refuseLocked(); err != nil {
		s.mu.Unlock()
		return "", err
	}
	if s.slot != nil {
		s.mu.Unlock()
		return "", fmt.Errorf("%w: a custom command runs once the turn is done", ErrTurnRunning)
	}
	slot := s.claimLocked(slotTurn)
	slot.command = newCommandGrant(c)
	s.mu.Unlock()
	m := session.Message{
		ID: uuid.NewString(), Role: "user", At: s.m.opts.Now().UTC(), Human: true,
		Content: []session.Block{{Type: session.BlockText, Text: text}},
		Command: &session.CommandUse{Name: c.Name, Args: args, Path: c.Path, Model: c.Model},
	}
	if err := s.appendHumanMessage(m); err != nil {
		s.release(slot, turnEnd{notStarted: true})
		return "", err
	}
	s.runTurn(slot, m.ID)
	return slot.turn, nil
}

// commandGrant is what a custom command's frontmatter gives its turn.
type commandGrant struct {
	model string
	// tools are the myco tools allowed whole; bash the command prefixes
	// (Bash(git status:*)) and commands (Bash(make test)) allowed.
	tools        map[string]bool
	bashPrefixes []string
	bashExact    []string
}

// grantTool maps the peers' tool names to myco's (only the tools that
// ask the person first matter here).
var grantTool = map[string]string{
	"bash": "bash", "edit": "edit_file", "multiedit": "edit_file", "edit_file": "edit_file",
	"write": "write_file", "write_file": "write_file",
}

func newCommandGrant(c custom.Command) *commandGrant {
	g := &commandGrant{model: c.Model, tools: map[string]bool{}}
	for _, t := range c.AllowedTools {
		name, pattern, hasPattern := strings.Cut(t, "(")
		tool, ok := grantTool[strings.ToLower(strings.TrimSpace(name))]
		if !ok {
			continue // a tool that never asks in myco, or one it lacks
		}
		pattern = strings.TrimSuffix(strings.TrimSpace(pattern), ")")
		switch {
		case !hasPattern || pattern == "*" || pattern == "":
			g.tools[tool] = true
		case tool == "bash" && strings.HasSuffix(pattern, ":*"):
			g.bashPrefixes = append(g.bashPrefixes, strings.TrimSuffix(pattern, ":*"))
		case tool == "bash" && strings.HasSuffix(pattern, "*"):
			g.bashPrefixes = append(g.bashPrefixes, strings.TrimSuffix(pattern, "*"))
		case tool == "bash":
			g.bashExact = append(g.bashExact, pattern)
		}
		// Edit(path) and Write(path) patterns are not honoured: those
		// calls still ask (README says so).
	}
	return g
}

// allows reports whether use runs without asking in the command's turn.
func (g *commandGrant) allows(use session.Block) bool {
	if g == nil {
		return false
	}
	if g.tools[use.Name] {
		return true
	}
	if use.Name != "bash" || (len(g.bashPrefixes) == 0 && len(g.bashExact) == 0) {
		return false
	}
	var in tools.BashInput
	if json.Unmarshal(use.Input, &in) != nil {
		return false
	}
	cmd := strings.TrimSpace(in.Command)
	// One simple command only: "git status; rm -rf ~" is not "git status".
	if strings.ContainsAny(cmd, ";&|`$<>\n()") {
		return false
	}
	if slices.Contains(g.bashExact, cmd) {
		return true
	}
	for _, p := range g.bashPrefixes {
		if cmd == p || strings.HasPrefix(cmd, p+" ") {
			return true
		}
	}
	return false
}

// commandGrantLocked is the running turn's grant; s.mu is held.
func (s *Session) commandGrantLocked() *commandGrant {
	if s.slot == nil {
		return nil
	}
	return s.slot.command
}

// turnModel is the model the running turn calls: the one its custom
// command asked for, else the session's.
func (s *Session) turnModel() string {
	s.mu.Lock()
	g := s.commandGrantLocked()
	s.mu.Unlock()
	if g != nil && g.model != "" {
		return g.model
	}
	return s.model()
}

// --- Skills ---------------------------------------------------------------------

const skillTool = "skill"

// skillSet is what a live session offers its agent of skills.
type skillSet struct {
	folder string
	all    []custom.Skill
	tool   *llm.Tool // nil when no skill is usable
}

const skillToolIntro = `Load a skill: instructions the person or the project wrote for a kind of task, kept in a folder with other files it may use. When a task matches a skill's description below, call this tool with its name before you start, then follow what it says; it returns the skill's instructions and the list of its files, which you read with read_file (or run with bash) when the instructions say to. Load a skill once per conversation; its text stays in the conversation.

Skills:`

var skillSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name": map[string]any{"type": "string", "description": "The skill's name, as listed."},
	},
	"required": []string{"name"},
}

// loadSkills reads the session's skills into it and records them in the
// document when they changed.
func (s *Session) loadSkills() error {
	folder := s.folder()
	set := &skillSet{folder: folder, all: s.m.CustomSkills(folder)}
	var b strings.Builder
	b.WriteString(skillToolIntro)
	usable := 0
	for _, sk := range set.all {
		if sk.Usable() {
			fmt.Fprintf(&b, "\n- %s: %s", sk.Name, sk.Description)
			usable++
		}
	}
	if usable > 0 {
		set.tool = &llm.Tool{Name: skillTool, Description: b.String(), InputSchema: skillSchema}
	}
	s.skills.Store(set)
	recs := make([]session.SkillRecord, 0, len(set.all))
	for _, sk := range set.all {
		recs = append(recs, session.SkillRecord{Name: sk.Name, Path: cmpOr(sk.Path, sk.Dir), Scope: sk.Scope, Problem: sk.Problem, ShadowedBy: sk.ShadowedBy})
	}
	var same bool
	s.w.View(func(d *session.Document) { same = slices.EqualFunc(d.Skills, recs, session.SkillRecord.Same) })
	if same {
		return nil
	}
	_, err := s.w.Update(func(d *session.Document) error {
		d.Skills = recs
		return nil
	})
	if isClosed(err) {
		err = ErrSessionClosed
	}
	return err
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// skillToolDef is the skill tool, when the session has skills.
func (s *Session) skillToolDef() (llm.Tool, bool) {
	if set := s.skills.Load(); set != nil && set.tool != nil {
		return *set.tool, true
	}
	return llm.Tool{}, false
}

// runSkill gives the agent a skill's body and files.
func (s *Session) runSkill(use session.Block) toolOutcome {
	var in struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(use.Input, &in); err != nil || strings.TrimSpace(in.Name) == "" {
		return toolOutcome{output: `skill needs {"name": "…"}, a name from the tool's list.`, isError: true}
	}
	set := s.skills.Load()
	var found *custom.Skill
	var names []string
	if set != nil {
		for i, sk := range set.all {
			if sk.Usable() {
				names = append(names, sk.Name)
				if sk.Name == strings.ToLower(strings.TrimSpace(in.Name)) {
					found = &set.all[i]
				}
			}
		}
	}
	if found == nil {
		return toolOutcome{output: fmt.Sprintf("There is no skill %q. The skills are: %s.", in.Name, strings.Join(names, ", ")), isError: true}
	}
	l, err := s.m.customFiles.Load(*found)
	if err != nil {
		return toolOutcome{output: "The skill could not be read: " + err.Error(), isError: true}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<skill name=%q folder=%q>\n%s\n", found.Name, found.Dir, l.Body)
	if l.Cut {
		fmt.Fprintf(&b, "[myco cut SKILL.md here: it has %d bytes, of which the body's first %d are above. Read the rest with read_file %s if you need it.]\n", l.Size, len(l.Body), found.Path)
	}
	b.WriteString("</skill>")
	if len(l.Files) > 0 {
		b.WriteString("\n\nFiles in the skill's folder (read them with read_file when the skill says to):")
		for _, f := range l.Files {
			b.WriteString("\n" + f)
		}
		if l.More > 0 {
			fmt.Fprintf(&b, "\n… and %d or more not listed (list the folder with bash).", l.More)
		}
	}
	return toolOutcome{output: b.String()}
}

// CustomCommands are the custom commands of the session's folder.
func (s *Session) CustomCommands() []custom.Command { return s.m.CustomCommands(s.folder()) }
