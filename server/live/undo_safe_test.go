package live

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myco/profiles"
	"myco/server/tools"
	"myco/snapshot"
)

// homeEnv is a session working in a fake home folder that holds secrets
// and myco's own data, as a session started in ~ does: the undo env with
// HOME, the profile and the session's folder moved there.
type homeEnv struct {
	*fileEnv
	home    string
	secrets map[string]string // path relative to home → contents
}

func newHomeEnv(t *testing.T) *homeEnv {
	t.Helper()
	e := newUndoEnv(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	data := filepath.Join(home, ".local", "share", "myco")
	e.profile = filepath.Join(data, "profiles", "default")
	e.work = home
	e.opts.DefaultCwd = home
	e.opts.ProfileDir = e.profile
	withSettings(&e.opts, func(st *profiles.Settings) { st.DeniedPaths = []string{"~/.ssh", "~/.aws", "~/.gnupg"} }) // the settings' default
	e.opts.Snapshots = snapshot.Open(filepath.Join(e.profile, "snapshots"), tools.DeniedRule(e.opts.Settings.Current().DeniedPaths, e.opts.ProfileDir))
	h := &homeEnv{fileEnv: e, home: home, secrets: map[string]string{
		".ssh/id_ed25519":  "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-ed25519\n",
		".aws/credentials": "[default]\naws_secret_access_key = secret-aws\n",
		".env":             "TOKEN=secret-env\n",
		"app/.env.local":   "TOKEN=secret-env-local\n",
		".local/share/myco/profiles/work/server.json": `{"token":"secret-other-profile"}`,
	}}
	for p, body := range h.secrets {
		write(t, home, p, body)
	}
	write(t, home, "project.txt", "one\n")
	// Hard links: the same files under names no rule denies.
	for link, target := range map[string]string{"notes-key.txt": ".ssh/id_ed25519", "app/config.txt": "app/.env.local"} {
		if err := os.Link(filepath.Join(home, target), filepath.Join(home, link)); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func write(t *testing.T, dir, rel, body string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A session working in the home folder: its snapshots copy none of the
// secrets nor myco's data (nor a hard link to one), /diff refuses a .env and never shows a secret
// (not even through a link), and /undo plans no change to ~/.ssh, ~/.aws
// or a .env, and makes none.
func TestSnapshotsUndoAndDiffNeverTouchSecrets(t *testing.T) {
	h := newHomeEnv(t)
	s := h.newSession(t)
	turn(t, h.fileEnv, s, `change things [[steps: tool:bash {"command":"echo two >> project.txt && echo new-key > .ssh/id_new && echo MORE=secret-env-2 >> .env && echo more >> .aws/credentials && ln -s .ssh/id_ed25519 keylink"} ;; say:done]]`)

	// Nothing of the secrets is in the store: no blob holds their
	// contents, no manifest names them.
	store := filepath.Join(h.profile, "snapshots")
	err := filepath.WalkDir(store, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), "secret-") {
			t.Errorf("%s holds a secret: %q", strings.TrimPrefix(p, store), b)
		}
		if strings.HasSuffix(p, ".json") {
			var m snapshot.Manifest
			if err := json.Unmarshal(b, &m); err != nil {
				return err
			}
			for rel := range m.Files {
				if rel != "project.txt" && rel != "keylink" {
					t.Errorf("%s names %s", strings.TrimPrefix(p, store), rel)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// /diff: a .env is refused as read_file refuses it; all changes show
	// only the project's, the link as its target's name.
	for _, p := range []string{".env", "app/.env.local", "~/.ssh/id_ed25519", ".ssh", ".local/share/myco/profiles/work/server.json"} {
		if _, err := s.Diff("first", p); !errors.Is(err, tools.ErrDenied) {
			t.Errorf("Diff(%q) = %v, want denied", p, err)
		}
	}
	diff, err := s.Diff("first", "")
	if err != nil {
		t.Fatal(err)
	}
	var shown []string
	for _, f := range diff {
		shown = append(shown, f.Path)
		if strings.Contains(f.Diff, "secret") {
			t.Errorf("/diff of %s shows a secret: %q", f.Path, f.Diff)
		}
	}
	if fmt.Sprint(shown) != "[keylink project.txt]" {
		t.Errorf("/diff shows %v, want [keylink project.txt]", shown)
	}

	// /undo plans the project's files only, and leaves the rest alone.
	p, err := s.PlanUndo()
	if err != nil {
		t.Fatal(err)
	}
	var planned []string
	for _, f := range p.Files {
		planned = append(planned, f.Path)
	}
	if fmt.Sprint(planned) != "[keylink project.txt]" {
		t.Errorf("/undo plans %v, want [keylink project.txt]", planned)
	}
	if _, err := s.Undo(p.Turn); err != nil {
		t.Fatal(err)
	}
	if h.read(t, "project.txt") != "one\n" || exists(h.fileEnv, "keylink") {
		t.Error("the project's files were not restored")
	}
	if !exists(h.fileEnv, ".ssh/id_new") || !strings.Contains(h.read(t, ".env"), "secret-env-2") || !strings.Contains(h.read(t, ".aws/credentials"), "more") {
		t.Error("undo changed a denied file")
	}
}

// A folder past the snapshot limit: /undo and /diff say so, not "no turn
// to undo" and "no changes".
func TestTooLargeFolderSaysSo(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 50001 files")
	}
	e := newUndoEnv(t)
	for i := range snapshot.MaxFiles + 1 {
		if err := os.WriteFile(filepath.Join(e.work, fmt.Sprintf("f%05d", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := e.newSession(t)
	turn(t, e, s, `one [[steps: tool:bash {"command":"echo x > f00001"} ;; say:ok]]`)
	_, err := s.PlanUndo()
	if !errors.Is(err, snapshot.ErrTooLarge) || errors.Is(err, ErrNothingToUndo) || !strings.Contains(err.Error(), "too large to snapshot: more than 50000 files") {
		t.Errorf("PlanUndo = %v, want too large to snapshot", err)
	}
	if _, err := s.Diff("first", ""); !errors.Is(err, snapshot.ErrTooLarge) {
		t.Errorf("Diff = %v, want too large to snapshot", err)
	}
}

// The plan of an undo asked for while a turn runs answers at once that a
// turn runs: it does not wait for the turn (here held by an approval).
func TestUndoPlanDuringATurnAnswersAtOnce(t *testing.T) {
	e := newUndoEnv(t)
	withSettings(&e.opts, func(st *profiles.Settings) { st.Approvals.Bash = profiles.ApprovalAsk })
	s := e.newSession(t)
	turn(t, e, s, "first [[say:hello]]")
	if _, _, err := s.Submit(`second [[steps: tool:bash {"command":"true"} ;; say:ok]]`, nil, false); err != nil {
		t.Fatal(err)
	}
	e.events.next(t, "tool.approval")
	for _, redo := range []bool{false, true} {
		if _, err := s.plan(redo); !errors.Is(err, ErrTurnRunning) {
			t.Errorf("plan (redo %v) during a turn: %v, want ErrTurnRunning", redo, err)
		}
	}
	if _, err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	e.events.next(t, "turn.end")
	if _, err := s.PlanUndo(); err != nil {
		t.Errorf("plan after the turn: %v", err)
	}
}

// @path takes the session's folder only: an absolute path or ~/ outside
// it, a link out of it and another profile's server.json are refused, and
// completion offers nothing outside.
func TestAttachTakesTheSessionsFolderOnly(t *testing.T) {
	h := newHomeEnv(t)
	// The session works in a project folder inside the home folder.
	project := filepath.Join(h.home, "project")
	write(t, project, "a.txt", "a\n")
	outside := filepath.Join(t.TempDir(), "outside.txt")
	write(t, filepath.Dir(outside), "outside.txt", "not yours\n")
	if err := os.Symlink(outside, filepath.Join(project, "out")); err != nil {
		t.Fatal(err)
	}
	h.work = project
	s := h.newSession(t)
	for _, tc := range []struct {
		path string
		want error
	}{
		{outside, ErrOutsideFolder},
		{"~/project.txt", ErrOutsideFolder},
		{"../project.txt", ErrOutsideFolder},
		{"out", ErrOutsideFolder},
		{"~/.local/share/myco/profiles/work/server.json", tools.ErrDenied},
		{"~/.ssh/id_ed25519", tools.ErrDenied},
	} {
		if _, err := s.Attach(tc.path); !errors.Is(err, tc.want) {
			t.Errorf("Attach(%q) = %v, want %v", tc.path, err, tc.want)
		}
	}
	if n, err := s.Attach(filepath.Join(project, "a.txt")); err != nil || !strings.Contains(n.Text, "a") {
		t.Errorf("Attach of the folder's own file by its absolute path: %v", err)
	}
	for _, prefix := range []string{"/", "~/", "../", "~/.local/share/myco/profiles/"} {
		if got, err := s.Paths(prefix); err == nil {
			t.Errorf("Paths(%q) = %v, want refused", prefix, got)
		}
	}
	if got, err := s.Paths(""); err != nil || fmt.Sprint(got) != "[a.txt]" {
		t.Errorf("Paths(\"\") = %v, %v; want [a.txt]", got, err)
	}
}
