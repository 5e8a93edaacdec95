package tools_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myco/internal/reexec"
	"myco/server/tools"
)

// sandbox probes bubblewrap. CI installs it (e2e/setup.sh), so there a
// missing sandbox fails the test; elsewhere the test is skipped with why.
func sandbox(t *testing.T) *tools.Sandbox {
	t.Helper()
	sb, err := tools.ProbeSandbox(context.Background())
	if err != nil {
		if !errors.Is(err, tools.ErrNoSandbox) {
			t.Fatalf("probe error %v does not wrap ErrNoSandbox", err)
		}
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must have a working bubblewrap (apt-get install -y bubblewrap): %v", err)
		}
		t.Skip(err)
	}
	return sb
}

// The sandboxed shell reads the folder and cannot change it: no new
// file, no edit, no removal; writes to /tmp go to a private /tmp that is
// gone after the command (the folder itself lives under /tmp here, bound
// back read-only over it).
func TestSandboxReadsButCannotWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a sandbox per write it tries")
	}
	sb := sandbox(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello from a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		command  string
		wantExit bool // exits 0
		wantOut  string
	}{
		{"read", "cat a.txt", true, "hello from a"},
		{"list", "ls", true, "a.txt"},
		{"pwd", "pwd", true, dir},
		{"create", "touch b.txt", false, "Read-only file system"},
		{"redirect", "echo x > c.txt", false, "Read-only file system"},
		{"change", "echo more >> a.txt", false, "Read-only file system"},
		{"remove", "rm a.txt", false, "Read-only file system"},
		{"private tmp", "echo scratch > /tmp/scratch && cat /tmp/scratch", true, "scratch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := sb.Run(context.Background(), dir, tt.command, os.Environ(), time.Minute, nil)
			if err != nil {
				t.Fatal(err)
			}
			if (res.ExitCode == 0) != tt.wantExit || !strings.Contains(res.Output, tt.wantOut) {
				t.Errorf("%q: exit %d, output %q; want exit 0 = %v and %q", tt.command, res.ExitCode, res.Output, tt.wantExit, tt.wantOut)
			}
		})
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("the folder changed: %v", entries)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "hello from a\n" {
		t.Errorf("a.txt is now %q", data)
	}
}

// A command that outlives its timeout is killed with everything it
// started, and says so as a Shell's does.
// A .env file at the top of the folder reads as empty in the sandbox, as
// the file tools refuse it; the folder's other files read as they are.
func TestSandboxEmptiesTopLevelEnvFiles(t *testing.T) {
	sb := sandbox(t)
	dir := t.TempDir()
	for name, text := range map[string]string{
		".env":       "API_KEY=top-secret-1\n",
		".env.local": "API_KEY=top-secret-2\n",
		"a.txt":      "plain\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(".env", filepath.Join(dir, ".env.link")); err != nil {
		t.Fatal(err)
	}
	res, err := sb.Run(context.Background(), dir, "cat .env .env.local .env.link a.txt; grep -r top-secret . ; echo end", os.Environ(), 30*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Output, "top-secret") {
		t.Errorf("the sandbox showed a .env file's secret:\n%s", res.Output)
	}
	if !strings.Contains(res.Output, "plain") || !strings.Contains(res.Output, "end") {
		t.Errorf("the folder's other files should read as they are:\n%s", res.Output)
	}
	// Outside the sandbox the files are unchanged.
	if b, _ := os.ReadFile(filepath.Join(dir, ".env")); string(b) != "API_KEY=top-secret-1\n" {
		t.Errorf(".env changed outside: %q", b)
	}
}

func TestSandboxTimeout(t *testing.T) {
	sb := sandbox(t)
	res, err := sb.Run(context.Background(), t.TempDir(), "echo started; sleep 30 & sleep 30", nil, time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.ExitCode != 124 || !strings.Contains(res.Output, "started") {
		t.Errorf("result %+v, want a timeout with the output before it", res)
	}
}

// A stop (the context) ends the command and is an error wrapping it.
func TestSandboxStop(t *testing.T) {
	sb := sandbox(t)
	ctx, cancel := context.WithCancel(context.Background())
	progress := func(p []byte) {
		if strings.Contains(string(p), "ready") {
			cancel()
		}
	}
	_, err := sb.Run(ctx, t.TempDir(), "echo ready; sleep 30", nil, time.Minute, progress)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
}

// Where no user namespace can be made, there is no sandbox: the probe
// says so (plan mode then refuses bash with that reason) rather than
// running commands in a sandbox that would keep root's capabilities. The
// probe runs inside a bwrap that forbids new user namespaces.
func TestProbeWithoutUserNamespaces(t *testing.T) {
	if reexec.Role() == "no-userns" {
		_, err := tools.ProbeSandbox(context.Background())
		if !errors.Is(err, tools.ErrNoSandbox) {
			t.Fatalf("probe without user namespaces: %v, want ErrNoSandbox", err)
		}
		t.Logf("probe: %v", err)
		return
	}
	sandbox(t)
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatal(err)
	}
	cmd := reexec.Command(t, "TestProbeWithoutUserNamespaces", "no-userns")
	cmd.Args = append([]string{bwrap, "--dev-bind", "/", "/", "--unshare-user", "--disable-userns", "--"}, cmd.Args...)
	cmd.Path = bwrap
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "no read-only sandbox is available: bwrap cannot start here") {
		t.Errorf("the probe did not say why:\n%s", out)
	}
}
