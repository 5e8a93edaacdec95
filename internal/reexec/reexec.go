// Package reexec runs one test of the running test binary again in a
// process of its own: to SIGKILL it, or to run it as the unprivileged uid
// 65534 when the tests run as root (CI and containers do), so that what an
// ordinary user cannot do is tested there too. It is for tests only.
package reexec

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// Nobody is the uid and gid of the unprivileged leg.
const Nobody = 65534

const roleEnv = "MYCO_REEXEC_ROLE"

// Role is the role the parent gave this copy, "" in the test binary the
// go command started.
func Role() string { return os.Getenv(roleEnv) }

// Command runs the test named test (exactly) of this binary, verbose,
// with role and env added to this process's environment.
func Command(t *testing.T, test, role string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v", "-test.count=1")
	cmd.Env = append(append(os.Environ(), roleEnv+"="+role), env...)
	return cmd
}

// AsNobody makes cmd run as uid and gid 65534, from a copy of the test
// binary that user can read, in a fresh folder it owns (its TMPDIR and
// HOME, returned). It skips t, saying why, when this process is not root:
// then no other user is reachable, and this leg is the unprivileged one.
func AsNobody(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("not root (uid %d): this run was the unprivileged leg; run as root to test both", os.Geteuid())
	}
	root, err := os.MkdirTemp("", "myco-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	// MkdirTemp makes 0700; the other user must get in to run the copy.
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, filepath.Base(os.Args[0]))
	if err := copyFile(bin, os.Args[0]); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, Nobody, Nobody); err != nil {
		t.Fatal(err)
	}
	cmd.Path, cmd.Args[0], cmd.Dir = bin, bin, home
	cmd.Env = append(cmd.Env, "HOME="+home, "TMPDIR="+home, "USER=nobody", "LOGNAME=nobody")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: Nobody, Gid: Nobody, Groups: []uint32{}}}
	return home
}

// RunAsNobody runs test of this binary as uid 65534 (see AsNobody) and
// fails t with its output when it fails.
func RunAsNobody(t *testing.T, test, role string, env ...string) {
	t.Helper()
	cmd := Command(t, test, role, env...)
	AsNobody(t, cmd)
	out, err := cmd.CombinedOutput()
	t.Logf("as uid %s:\n%s", strconv.Itoa(Nobody), out)
	switch {
	case err != nil:
		t.Fatalf("as uid %d: %v", Nobody, err)
	case bytes.Contains(out, []byte("no tests to run")):
		t.Fatalf("as uid %d: no test named %s ran", Nobody, test)
	case bytes.Contains(out, []byte("--- SKIP")):
		t.Skipf("as uid %d the test skipped (output above)", Nobody)
	}
}

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
