package live

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"myco/internal/errkind"
	"myco/server/event"
	"myco/server/tools"
	"myco/session"
)

// Plan mode lets the agent look before it leaps: it reads, runs commands
// that change nothing, and writes a plan in its answer, but it cannot
// change a file. The mode is the document's (session.Document.Mode), so
// it survives a restart, and every decision about it is here:
//
//   - write_file and edit_file are refused without asking: an approval
//     the person would have to deny every time is noise, and a plan is
//     for reading.
//   - bash runs in a fresh sandbox (tools.Sandbox) rather than the
//     session's persistent shell, whose writes nothing could stop: read
//     only, no network, no capabilities even as root, myco's own data
//     and the denied paths hidden (hiddenFromPlans). The agent is told that cd and export do not
//     carry over. With no sandbox on this machine bash is off, and the
//     agent is told why. Approval is asked as usual: read-only is not
//     harmless (what a command reads, a secret too, goes to the model).
//   - web_fetch runs as in build mode: it only reads, and it asks before
//     a new host as it always does (webfetch.go). The sandbox's "no
//     network" is bash's; the prompt says web_fetch still reads the web.
//   - The system prompt says plan mode is on and what that means.
//   - A turn that ends with an answer in plan mode is a plan ready: the
//     tabs ask "Build this plan?" (event.PlanReady).
//   - The mode may change while a turn runs; each tool call looks at it
//     as it starts.

// Modes as the API and the tabs name them.
const (
	ModePlan  = "plan"
	ModeBuild = "build"
)

// ErrBadMode is a mode that is neither plan nor build.
var ErrBadMode = errkind.New(errkind.Invalid, "mode must be plan or build")

// BuildPlanText is what "Build now" sends once build mode is back on.
const BuildPlanText = "Build the plan above."

const planPrompt = `

Plan mode is on: the person wants a plan before anything changes. Read
files and run commands that only look (each bash command runs in a fresh
read-only sandbox without network: the folder cannot change, nothing can be
downloaded, and cd and export do not carry over); web_fetch still reads web
pages; write_file and edit_file are refused. Study what you need, then
answer with a clear, numbered plan: the files to change and how, the
commands to run, and the risks. Do not claim to have changed anything. The
person switches to build mode to carry the plan out.`

const planPromptNoBash = `

Plan mode is on: the person wants a plan before anything changes. Read
files with read_file and web pages with web_fetch; write_file and edit_file
are refused, and bash is off in plan mode here (this machine has no
read-only sandbox to run it in).
Study what you need, then answer with a clear, numbered plan: the files to
change and how, the commands to run, and the risks. Do not claim to have
changed anything. The person switches to build mode to carry the plan out.`

// sandboxProbe finds plan mode's sandbox once per process: probing runs
// a process, and the answer does not change while myco runs.
type sandboxProbe struct {
	once sync.Once
	sb   *tools.Sandbox
	err  error
}

// sandbox is the process's read-only sandbox, or why there is none.
func (m *Manager) sandbox() (*tools.Sandbox, error) {
	m.probe.once.Do(func() {
		probe := m.opts.ProbeSandbox
		if probe == nil {
			probe = tools.ProbeSandbox
		}
		m.probe.sb, m.probe.err = probe(context.Background())
		if m.probe.err != nil {
			m.log.Info("plan mode runs no commands", "why", m.probe.err)
		}
	})
	return m.probe.sb, m.probe.err
}

// Mode is the session's mode: ModePlan or ModeBuild.
func (s *Session) Mode() string {
	if s.planMode() {
		return ModePlan
	}
	return ModeBuild
}

func (s *Session) planMode() bool {
	var plan bool
	s.w.View(func(d *session.Document) { plan = d.Mode == session.ModePlan })
	return plan
}

// SetMode switches between plan and build mode, keeps it in the header
// and tells the tabs. It may be set while a turn runs: the next tool call
// and model call follow it.
func (s *Session) SetMode(mode string) (string, error) {
	stored := ""
	switch strings.ToLower(strings.TrimSpace(mode)) {
	case ModePlan:
		stored = session.ModePlan
	case ModeBuild:
	default:
		return "", fmt.Errorf("%w: %q", ErrBadMode, mode)
	}
	if err := s.refuse(); err != nil {
		return "", err
	}
	if _, err := s.Update(func(d *session.Document) error {
		d.Mode = stored
		return nil
	}); err != nil {
		return "", err
	}
	now := s.Mode()
	s.mu.Lock()
	s.planCard = nil
	s.mu.Unlock()
	s.publish(event.Mode{Mode: now})
	return now, nil
}

// planSystem is what plan mode adds to the system prompt ("" in build
// mode).
func (s *Session) planSystem() string {
	if !s.planMode() {
		return ""
	}
	if _, err := s.m.sandbox(); err != nil {
		return planPromptNoBash
	}
	return planPrompt
}

// planRefusal is the outcome of a tool call plan mode refuses without
// asking, and whether it refuses use.
func (s *Session) planRefusal(use session.Block) (toolOutcome, bool) {
	if !s.planMode() {
		return toolOutcome{}, false
	}
	switch use.Name {
	case "write_file", "edit_file":
		return toolOutcome{isError: true, output: "Refused: plan mode is on, and in plan mode no file is changed. " +
			"Put this change in your plan instead; the person switches to build mode to carry the plan out."}, true
	case rememberTool:
		return toolOutcome{isError: true, output: "Refused: plan mode is on, and in plan mode nothing is saved, the project's memory included. " +
			"Put the fact in your plan; it can be saved once the person switches to build mode."}, true
	case "bash":
		if _, err := s.m.sandbox(); err != nil {
			return toolOutcome{isError: true, output: "Refused: bash is off in plan mode here: " + err.Error() +
				". Read files with read_file, and put the commands you would run in your plan."}, true
		}
	}
	return toolOutcome{}, false
}

// sandboxNote starts every plan-mode command's result, so the agent
// never takes the sandbox for its shell.
const sandboxNote = "[plan mode: run in a fresh read-only sandbox without network, not your persistent shell; files cannot change here, and cd and export do not carry over]\n"

// runPlanBash runs an approved bash call in the read-only sandbox, in the
// folder the session's shell is in.
func (s *Session) runPlanBash(ctx context.Context, use session.Block, in tools.BashInput) toolOutcome {
	sb, err := s.m.sandbox()
	if err != nil {
		out, _ := s.planRefusal(use)
		return out
	}
	s.mu.Lock()
	dir := s.cwd()
	s.mu.Unlock()
	timeout := s.m.opts.CommandTimeout
	if in.TimeoutS > 0 {
		timeout = in.Timeout()
	}
	s.enter(StatusTool, "bash")
	sb = sb.Hiding(s.m.hiddenFromPlans()...)
	res, err := sb.Run(ctx, dir, in.Command, s.shellEnv(), timeout, s.outputRecorder(use.ID))
	if err != nil && ctx.Err() == nil {
		return toolOutcome{output: sandboxNote + "The command could not run: " + err.Error(), isError: true}
	}
	return toolOutcome{output: sandboxNote + formatRun(res, ctx.Err() != nil, timeout), isError: res.ExitCode != 0 || res.TimedOut || ctx.Err() != nil}
}

// hiddenFromPlans is what plan mode's sandbox hides: what the one
// denied-path rule denies (the settings' denied_paths, and myco's data
// folder: every profile's server.json and token, settings, sessions,
// snapshots and images), and each profile folder linked into the data
// folder from elsewhere. .env files, which the rule names wherever they
// are, stay readable: there is no folder to hide them by.
func (m *Manager) hiddenFromPlans() []string {
	hidden := tools.DeniedRule(m.settings().DeniedPaths, m.opts.ProfileDir).Paths()
	if dir := m.opts.ProfileDir; dir != "" && filepath.Base(filepath.Dir(dir)) == "profiles" {
		entries, _ := os.ReadDir(filepath.Dir(dir)) // none: nothing more to hide
		for _, e := range entries {
			hidden = append(hidden, filepath.Join(filepath.Dir(dir), e.Name()))
		}
	}
	return hidden
}

// shellEnv is the environment of a sandboxed command: the one the
// session's shell gets, without the provider keys and secret-looking
// variables the settings drop.
func (s *Session) shellEnv() []string { return s.m.shellEnv().Apply(os.Environ()) }

// planReady tells the tabs that a turn which ended with an answer in plan
// mode holds a plan, so they ask "Build this plan?". Nothing is asked
// when the turn was stopped or failed, or when the next turn (a queued
// message) already started.
func (s *Session) planReady(turn, stop string, err error) {
	if err != nil || stop == session.StopInterrupted || stop == session.StopError || stop == "max_rounds" || !s.planMode() {
		return
	}
	s.mu.Lock()
	busy := s.slot != nil
	s.mu.Unlock()
	if busy {
		return
	}
	html := ""
	if r := s.m.opts.RenderPlanReady; r != nil {
		var rerr error
		if html, rerr = r(); rerr != nil {
			s.m.log.Warn("render plan prompt failed", "session", s.id, "err", rerr)
		}
	}
	ev := event.PlanReady{Turn: turn, HTML: html}
	s.mu.Lock()
	s.planCard = &ev // offered until a turn starts or the mode changes
	s.mu.Unlock()
	s.publish(ev)
}
