package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myco/profiles"
	"myco/server/event"
	"myco/server/tools"
	"myco/session"
)

// noSandbox is the probe of a machine without bubblewrap.
func noSandbox(o *Options) {
	o.ProbeSandbox = func(context.Context) (*tools.Sandbox, error) {
		return nil, fmt.Errorf("%w: bwrap (bubblewrap) is not installed", tools.ErrNoSandbox)
	}
}

// realSandbox skips (fails in CI, which installs bubblewrap) when this
// machine has no working sandbox.
func realSandbox(t *testing.T) {
	t.Helper()
	if _, err := tools.ProbeSandbox(context.Background()); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must have a working bubblewrap (apt-get install -y bubblewrap): %v", err)
		}
		t.Skip(err)
	}
}

func planSession(t *testing.T, e *fileEnv) *Session {
	t.Helper()
	s := e.newSession(t)
	if mode, err := s.SetMode(ModePlan); err != nil || mode != ModePlan {
		t.Fatalf("SetMode(plan) = %q, %v", mode, err)
	}
	return s
}

// In plan mode write_file and edit_file are refused without asking, even
// where settings allow edits, and the agent is told plan mode is on.
func TestPlanModeRefusesWritesAndEdits(t *testing.T) {
	e := newFileEnv(t, allowEdits, noSandbox)
	s := planSession(t, e)
	e.write(t, "a.txt", "one\n")
	wantOutcome(t, run(t, s, "read_file", map[string]any{"path": "a.txt"}), false, "one")
	tests := []struct {
		name  string
		tool  string
		input map[string]any
	}{
		{"edit", "edit_file", edit("a.txt", "one", "ONE")},
		{"overwrite", "write_file", map[string]any{"path": "a.txt", "content": "new\n"}},
		{"create", "write_file", map[string]any{"path": "b.txt", "content": "new\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantOutcome(t, run(t, s, tt.tool, tt.input), true, "plan mode is on")
		})
	}
	if got := e.read(t, "a.txt"); got != "one\n" {
		t.Errorf("a.txt changed in plan mode: %q", got)
	}
	if _, err := os.Stat(filepath.Join(e.work, "b.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("b.txt was created in plan mode: %v", err)
	}
	// Back in build mode the same edit goes through.
	if _, err := s.SetMode(ModeBuild); err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, run(t, s, "edit_file", edit("a.txt", "one", "ONE")), false, "Edited")
}

// Without a sandbox, bash is off in plan mode and the agent is told so;
// the system prompt says it too.
func TestPlanModeBashOffWithoutSandbox(t *testing.T) {
	e := newFileEnv(t, noSandbox, allowBash)
	s := planSession(t, e)
	wantOutcome(t, run(t, s, "bash", map[string]any{"command": "touch made.txt"}), true, "bash is off in plan mode", "not installed")
	if _, err := os.Stat(filepath.Join(e.work, "made.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command ran: %v", err)
	}
	if sys := s.planSystem(); !strings.Contains(sys, "Plan mode is on") || !strings.Contains(sys, "bash is off") {
		t.Errorf("system prompt addition:\n%s", sys)
	}
}

// With a sandbox, plan mode's bash reads the folder and cannot create a
// file in it; the session's own shell is not used.
func TestPlanModeBashRunsReadOnly(t *testing.T) {
	realSandbox(t)
	e := newFileEnv(t, allowBash)
	s := planSession(t, e)
	e.write(t, "a.txt", "plan me\n")
	wantOutcome(t, run(t, s, "bash", map[string]any{"command": "cat a.txt"}), false, "plan me", "read-only sandbox")
	wantOutcome(t, run(t, s, "bash", map[string]any{"command": "touch made.txt"}), true, "Read-only file system")
	// The sandbox gets the shell's environment: no secret-looking keys.
	t.Setenv("MYCO_PLAN_TEST_API_KEY", "sk-plan-secret")
	if out := run(t, s, "bash", map[string]any{"command": "env"}); strings.Contains(out.output, "sk-plan-secret") {
		t.Error("the sandboxed command sees a secret-looking variable")
	}
	if _, err := os.Stat(filepath.Join(e.work, "made.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("plan mode's bash created a file: %v", err)
	}
	if s.shell != nil {
		t.Error("plan mode started the session's persistent shell")
	}
	if sys := s.planSystem(); !strings.Contains(sys, "read-only sandbox") {
		t.Errorf("system prompt addition:\n%s", sys)
	}
	// In build mode the same command writes, in the session's shell.
	if _, err := s.SetMode(ModeBuild); err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, run(t, s, "bash", map[string]any{"command": "touch made.txt"}), false)
	if _, err := os.Stat(filepath.Join(e.work, "made.txt")); err != nil {
		t.Errorf("build mode's bash: %v", err)
	}
}

// The mode is kept in the header: the tabs are told, a snapshot carries
// it, and it survives a restart.
func TestPlanModeIsKept(t *testing.T) {
	e := newFileEnv(t, noSandbox)
	s := planSession(t, e)
	if ev := e.events.next(t, "mode"); ev.data.(event.Mode).Mode != ModePlan {
		t.Errorf("mode event %+v", ev.data)
	}
	if snap := s.Snapshot(); snap.Mode != ModePlan {
		t.Errorf("snapshot mode %q", snap.Mode)
	}
	if _, err := s.SetMode("sideways"); !errors.Is(err, ErrBadMode) {
		t.Errorf("SetMode(sideways) = %v, want ErrBadMode", err)
	}
	id := s.ID()
	s.m.Close()
	doc, err := e.store.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Mode != session.ModePlan {
		t.Errorf("document mode %q after close", doc.Mode)
	}
	if again := e.open(t, id); again.Mode() != ModePlan {
		t.Errorf("mode after a restart %q", again.Mode())
	}
}

// A turn that answers in plan mode ends with plan.ready, its card
// rendered; the model was told plan mode is on.
func TestPlanReadyAfterAPlanTurn(t *testing.T) {
	e, fake := newGoalEnv(t)
	e.opts.RenderPlanReady = func() (string, error) { return `<div data-testid="plan-ready"></div>`, nil }
	noSandbox(&e.opts)
	s := planSession(t, e)
	turn, _, err := s.Submit("Plan the work [[say:1. Read. 2. Change.]]", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	ev := e.events.next(t, "plan.ready")
	if pr := ev.data.(event.PlanReady); pr.Turn != turn || !strings.Contains(pr.HTML, "plan-ready") {
		t.Errorf("plan.ready %+v, want turn %s with the card", pr, turn)
	}
	reqs := fake.Requests()
	if len(reqs) == 0 || !strings.Contains(string(reqs[len(reqs)-1].Body), "Plan mode is on") {
		t.Error("the model was not told plan mode is on")
	}
	// A tab that (re)connects now is offered the card too, until the
	// mode changes.
	if pr := s.Snapshot().PlanReady; pr == nil || pr.Turn != turn {
		t.Errorf("snapshot's plan_ready %+v, want the card of turn %s", pr, turn)
	}
	if _, err := s.SetMode(ModeBuild); err != nil {
		t.Fatal(err)
	}
	if pr := s.Snapshot().PlanReady; pr != nil {
		t.Errorf("snapshot's plan_ready %+v after build mode, want none", pr)
	}
}

// Plan mode's sandbox hides myco's data, even inside the session's folder
// (a session working in the home folder): the token in server.json, the
// settings and the sessions, through a link too; and the denied paths.
func TestPlanModeSandboxHidesMycoData(t *testing.T) {
	realSandbox(t)
	var profile string
	e := newFileEnv(t, func(o *Options) {
		allowBash(o)
		profile = filepath.Join(o.DefaultCwd, ".local", "share", "myco", "profiles", "default")
		o.ProfileDir = profile
		withSettings(o, func(st *profiles.Settings) {
			st.DeniedPaths = append(st.DeniedPaths, filepath.Join(o.DefaultCwd, "private"))
		})
	})
	if err := os.MkdirAll(profile, 0o700); err != nil {
		t.Fatal(err)
	}
	e.write(t, ".local/share/myco/profiles/default/server.json", `{"token": "myco-plan-test-token"}`)
	if err := os.Mkdir(filepath.Join(e.work, "private"), 0o700); err != nil {
		t.Fatal(err)
	}
	e.write(t, "private/key", "myco-plan-test-private-key")
	if err := os.Symlink(".local/share/myco", filepath.Join(e.work, "data")); err != nil {
		t.Fatal(err)
	}
	s := planSession(t, e)
	out := run(t, s, "bash", map[string]any{"command": "cat .local/share/myco/profiles/default/server.json data/profiles/default/server.json; grep -r myco-plan-test-token ."})
	if strings.Contains(out.output, "myco-plan-test-token") {
		t.Errorf("plan mode's bash read the token:\n%s", out.output)
	}
	// A denied path (settings denied_paths) is hidden as well.
	out = run(t, s, "bash", map[string]any{"command": "cat private/key; grep -r myco-plan-test-private-key ."})
	if strings.Contains(out.output, "myco-plan-test-private-key") {
		t.Errorf("plan mode's bash read a denied file:\n%s", out.output)
	}
	wantOutcome(t, run(t, s, "bash", map[string]any{"command": "ls -A .local/share/myco | wc -l"}), false, "\n0\n")
}
