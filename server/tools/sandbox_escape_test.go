package tools_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"myco/internal/reexec"
	"myco/server/tools"
)

// projectEnv names the project folder a root parent made for the
// unprivileged leg, with a setuid-root binary in it.
const projectEnv = "MYCO_TEST_SANDBOX_PROJECT"

// TestSandboxEscapes runs what walked out of plan mode's sandbox before
// (issue 18) inside it, as the user running the tests and, when that is
// root, again as uid 65534: each must fail, and nothing on the machine
// may change. CI runs as root, so both legs run there.
func TestSandboxEscapes(t *testing.T) {
	if testing.Short() {
		t.Skip("tries every escape in its own sandbox")
	}
	sb := sandbox(t)
	t.Run("uid "+strconv.Itoa(os.Geteuid()), func(t *testing.T) {
		runEscapes(t, sb, os.Getenv(projectEnv))
	})
	if reexec.Role() != "" {
		return
	}
	t.Run("uid 65534 run by root", func(t *testing.T) {
		cmd := reexec.Command(t, "TestSandboxEscapes", "escapes")
		home := reexec.AsNobody(t, cmd)
		project := filepath.Join(home, "project")
		mkdir(t, project)
		setuidCopy(t, "id", filepath.Join(project, "suid-id"))
		if err := os.Chown(project, reexec.Nobody, reexec.Nobody); err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(cmd.Env, projectEnv+"="+project)
		out, err := cmd.CombinedOutput()
		t.Logf("as uid 65534:\n%s", out)
		if err != nil || strings.Contains(string(out), "--- SKIP") {
			t.Fatalf("the unprivileged leg did not pass: %v", err)
		}
	})
}

// escape is one attempt: the command must exit non-zero when mustFail,
// and its output must hold each of say and none of notSay.
type escape struct {
	name     string
	command  string
	mustFail bool
	say      []string
	notSay   []string
}

func runEscapes(t *testing.T, sb *tools.Sandbox, project string) {
	if project == "" {
		project = t.TempDir()
	}
	w := newWorld(t, project)
	sb = sb.Hiding(w.data, w.elsewhere)
	escapes := []escape{
		{name: "no capabilities", command: `grep -E '^Cap(Prm|Eff|Amb)' /proc/self/status`,
			say: []string{"CapPrm:\t0000000000000000", "CapEff:\t0000000000000000", "CapAmb:\t0000000000000000"}},
		{name: "remount / writable", command: `mount -o remount,rw,bind / && touch "$ESCAPE"`, mustFail: true},
		{name: "remount the project writable", command: `mount -o remount,rw,bind "$P" && touch "$P/escaped"`, mustFail: true},
		{name: "a user namespace inside", command: `unshare -rm sh -c 'mount -o remount,rw,bind / && touch "$ESCAPE"'`, mustFail: true},
		{name: "write /proc/sys/kernel/hostname", command: `echo myco-escape > /proc/sys/kernel/hostname`, mustFail: true},
		{name: "write kernel.core_pattern", command: `cat /proc/sys/kernel/core_pattern > /proc/sys/kernel/core_pattern`, mustFail: true},
		{name: "hostname", command: `hostname myco-escape`, mustFail: true},
		{name: "write into the project", command: `echo x > "$P/new.txt"`, mustFail: true},
		{name: "write into $HOME", command: `echo x > "$HOME/new.txt"`, mustFail: true},
		{name: "read server.json", command: `cat "$DATA/profiles/default/server.json" "$P/datalink/profiles/default/server.json" "$DATA/profiles/work/server.json" "$ELSEWHERE/server.json"; grep -r token "$P"`,
			notSay: []string{w.token}},
		{name: "connect to the server's port", command: `exec 3<>"/dev/tcp/127.0.0.1/$PORT" && echo connected`, mustFail: true, notSay: []string{"connected"}},
		{name: "curl the server", command: `curl -sS --max-time 5 "http://127.0.0.1:$PORT/"`, mustFail: true, notSay: []string{"secret-page"}},
		{name: "see myco's process", command: `kill -0 "$MYCO_PID" && echo visible`, mustFail: true, notSay: []string{"visible"}},
		{name: "sockets in /run", command: `test -z "$(ls -A /run)" && echo run-is-empty`, say: []string{"run-is-empty"}},
	}
	if e, ok := setuidEscape(t, project); ok {
		escapes = append(escapes, e)
	}
	before := w.look(t)
	for _, e := range escapes {
		t.Run(e.name, func(t *testing.T) {
			res, err := sb.Run(context.Background(), project, e.command, w.env, time.Minute, nil)
			if err != nil {
				t.Fatal(err)
			}
			if e.mustFail && res.ExitCode == 0 {
				t.Errorf("%s: exit 0, want a failure; output %q", e.command, res.Output)
			}
			for _, s := range e.say {
				if !strings.Contains(res.Output, s) {
					t.Errorf("%s: output %q lacks %q", e.command, res.Output, s)
				}
			}
			for _, s := range e.notSay {
				if strings.Contains(res.Output, s) {
					t.Errorf("%s: output %q holds %q", e.command, res.Output, s)
				}
			}
		})
	}
	if after := w.look(t); after != before {
		t.Errorf("the machine changed:\nbefore %s\nafter  %s", before, after)
	}
}

// world is what the escapes aim at: a project holding a home folder and
// myco's data (a profile with a token, another profile linked from
// elsewhere, and a link to the data), and a server on loopback.
type world struct {
	project, data, elsewhere, home, escape, token string
	env                                           []string
}

func newWorld(t *testing.T, project string) *world {
	w := &world{project: project, token: "myco-test-token-" + randomHex(t)}
	w.data = filepath.Join(project, ".local", "share", "myco")
	w.elsewhere = filepath.Join(project, "elsewhere")
	w.home = filepath.Join(project, "home")
	w.escape = "/myco-escape-" + randomHex(t)
	t.Cleanup(func() { os.Remove(w.escape) })
	for _, d := range []string{filepath.Join(w.data, "profiles", "default"), w.elsewhere, w.home} {
		mkdir(t, d)
	}
	server := `{"pid": 1, "url": "http://127.0.0.1:1", "token": "` + w.token + `"}`
	writeFile(t, filepath.Join(w.data, "profiles", "default", "server.json"), server)
	writeFile(t, filepath.Join(w.elsewhere, "server.json"), server)
	symlink(t, w.elsewhere, filepath.Join(w.data, "profiles", "work"))
	symlink(t, w.data, filepath.Join(project, "datalink"))
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
		io.WriteString(rw, "secret-page")
	}))
	t.Cleanup(srv.Close)
	w.env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "P=" + project, "DATA=" + w.data,
		"ELSEWHERE=" + w.elsewhere, "ESCAPE=" + w.escape, "PORT=" + srv.URL[strings.LastIndexByte(srv.URL, ':')+1:],
		"MYCO_PID=" + strconv.Itoa(os.Getpid()),
	}
	return w
}

// look describes the machine as far as the escapes could change it: the
// hostname, the escape file, and every file in the project.
func (w *world) look(t *testing.T) string {
	t.Helper()
	host, _ := os.Hostname()
	_, err := os.Lstat(w.escape)
	var b strings.Builder
	fmt.Fprintf(&b, "host=%s escape-exists=%v", host, err == nil)
	filepath.WalkDir(w.project, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, _ := d.Info()
		data, _ := os.ReadFile(path)
		fmt.Fprintf(&b, " %s:%v:%d:%x", path, info.Mode(), info.Size(), sha256.Sum256(data))
		return nil
	})
	return b.String()
}

// setuidEscape runs a setuid-root copy of id(1) that a root parent put in
// the project: outside the sandbox it would say uid 0; inside it must say
// ours. There is nothing to gain as root, and nothing to run without one.
func setuidEscape(t *testing.T, project string) (escape, bool) {
	bin := filepath.Join(project, "suid-id")
	if os.Geteuid() == 0 {
		return escape{}, false
	}
	out, err := exec.Command(bin, "-u").Output()
	if err != nil || strings.TrimSpace(string(out)) != "0" {
		t.Logf("no setuid-root binary to try (%s: %q, %v)", bin, out, err)
		return escape{}, false
	}
	me := strconv.Itoa(os.Geteuid())
	return escape{name: "setuid root binary", command: `"$P/suid-id" -u`, say: []string{me}, notSay: []string{"\n0\n"}}, true
}

// setuidCopy copies the program name to dst, owned by root, setuid.
func setuidCopy(t *testing.T, name, dst string) {
	t.Helper()
	src, err := exec.LookPath(name)
	if err != nil {
		t.Skip(err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dst, string(data))
	if err := os.Chmod(dst, os.ModeSetuid|0o755); err != nil {
		t.Fatal(err)
	}
}

func randomHex(t *testing.T) string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
