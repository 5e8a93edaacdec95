package live

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"myco/profiles"
	"myco/server/event"
	"myco/server/llm"
	"myco/session"
)

// published is one event a live session sent to its tabs.
type published struct {
	name string
	data any
}

// recorder is a Publisher that keeps every event for the test to wait on.
type recorder struct{ ch chan published }

func (r *recorder) Publish(_ string, ev event.Event) {
	select {
	case r.ch <- published{ev.Name(), ev}:
	default: // a test that does not read events must not block the session
	}
}

// next waits for the next event named name.
func (r *recorder) next(t *testing.T, name string) published {
	t.Helper()
	// A bound that only turns a hang into a failure: a turn that scans a
	// 50,001-file folder twice (TestTooLargeFolderSaysSo) took over 10 s
	// under -race on a loaded machine.
	timeout := time.After(60 * time.Second)
	for {
		select {
		case ev := <-r.ch:
			if ev.name == name {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %s event", name)
		}
	}
}

type noModels struct{}

func (noModels) Client(string) (llm.Client, string, error) { return nil, "", llm.ErrNoProvider }
func (noModels) Configured() bool                          { return false }
func (noModels) Help() string                              { return "" }

// fileEnv is a profile on disk and a working folder for the file tools.
type fileEnv struct {
	store   *session.Store
	images  *session.Images
	events  *recorder
	profile string
	work    string
	opts    Options
}

func newFileEnv(t *testing.T, mutate ...func(*Options)) *fileEnv {
	t.Helper()
	dir := t.TempDir()
	e := &fileEnv{profile: filepath.Join(dir, "profile"), work: filepath.Join(dir, "work"), events: &recorder{ch: make(chan published, 1000)}}
	var err error
	if e.store, err = session.Open(filepath.Join(e.profile, "session"), session.Options{}); err != nil {
		t.Fatal(err)
	}
	if e.images, err = session.OpenImages(filepath.Join(e.profile, "images")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(e.work, 0o755); err != nil {
		t.Fatal(err)
	}
	e.opts = Options{
		Store: e.store, Images: e.images, Models: noModels{}, Events: e.events,
		DefaultCwd: e.work, ProfileDir: e.profile, Settings: profiles.NewLiveSettings(profiles.Settings{DeniedPaths: []string{filepath.Join(dir, "secrets")}}),
	}
	for _, m := range mutate {
		m(&e.opts)
	}
	return e
}

// open opens session id in a new Manager, as a new process would.
func (e *fileEnv) open(t *testing.T, id string) *Session {
	t.Helper()
	m := NewManager(e.opts)
	t.Cleanup(m.Close)
	s, err := m.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (e *fileEnv) newSession(t *testing.T) *Session {
	t.Helper()
	doc, err := e.store.Create(session.NewSession{Title: "files", Cwd: e.work})
	if err != nil {
		t.Fatal(err)
	}
	return e.open(t, doc.ID)
}

func (e *fileEnv) write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(e.work, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (e *fileEnv) read(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(e.work, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

var calls atomic.Int64

func toolUse(name string, input any) session.Block {
	in, _ := json.Marshal(input)
	return session.Block{Type: session.BlockToolUse, ID: fmt.Sprintf("toolu_%d", calls.Add(1)), Name: name, Input: in}
}

func run(t *testing.T, s *Session, name string, input any) toolOutcome {
	t.Helper()
	return s.runTool(context.Background(), toolUse(name, input))
}

func wantOutcome(t *testing.T, out toolOutcome, isError bool, has ...string) {
	t.Helper()
	if out.isError != isError {
		t.Errorf("is_error = %v, want %v: %s", out.isError, isError, out.output)
	}
	for _, h := range has {
		if !strings.Contains(out.output, h) {
			t.Errorf("outcome lacks %q:\n%s", h, out.output)
		}
	}
}

func allowEdits(o *Options) {
	withSettings(o, func(st *profiles.Settings) { st.Approvals.Edit = profiles.ApprovalAllow })
}

func allowBash(o *Options) {
	withSettings(o, func(st *profiles.Settings) { st.Approvals.Bash = profiles.ApprovalAllow })
}

// withSettings changes o's settings as change says, in the holder o
// shares with a Manager made from it: the Manager reads the change at its
// next use, as it reads an edit of settings.json.
func withSettings(o *Options, change func(*profiles.Settings)) {
	if o.Settings == nil {
		o.Settings = profiles.NewLiveSettings(profiles.Settings{})
	}
	st := o.Settings.Current()
	change(&st)
	o.Settings.Replace(st)
}

func edit(path, old, new string) map[string]any {
	return map[string]any{"path": path, "edits": []map[string]string{{"old_text": old, "new_text": new}}}
}

func TestReadThenEditAsksWithTheDiffAndRecordsIt(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	e.write(t, "a.txt", "one\ntwo\nthree\n")
	wantOutcome(t, run(t, s, "read_file", map[string]any{"path": "a.txt"}), false, "     2\ttwo\n")

	done := make(chan error, 1)
	go func() {
		done <- s.runTools(context.Background(), []session.Block{toolUse("edit_file", edit("a.txt", "two", "TWO"))})
	}()
	ev := e.events.next(t, "tool.approval")
	a := ev.data.(event.ToolApproval)
	if !strings.Contains(a.Diff, "-two\n+TWO\n") || !strings.Contains(a.Diff, "+++ "+filepath.Join(e.work, "a.txt")) {
		t.Errorf("approval diff:\n%s", a.Diff)
	}
	if got := e.read(t, "a.txt"); got != "one\ntwo\nthree\n" {
		t.Errorf("written before approval: %q", got)
	}
	if err := s.Approve(a.ToolUseID, DecisionOnce); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := e.read(t, "a.txt"); got != "one\nTWO\nthree\n" {
		t.Errorf("after approval: %q", got)
	}
	result := lastResult(t, s)
	if result.IsError || !strings.Contains(result.ResultText(), "Edited "+filepath.Join(e.work, "a.txt")+": 1 edit applied (+1 −1 lines") {
		t.Errorf("result %s", result.ResultText())
	}
	var extra struct{ Diff string }
	if err := json.Unmarshal(result.Unknown, &extra); err != nil || !strings.Contains(extra.Diff, "+TWO") {
		t.Errorf("the stored result has no diff: %s (%v)", result.Unknown, err)
	}
	// The diff survives a save and a load, beside the result.
	doc, err := e.store.Load(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := session.Encode(doc); !bytes.Contains(data, []byte(`"diff": "--- `)) {
		t.Error("the document on disk has no diff")
	}
	// The write refreshed the stamp: a second edit needs no new read.
	allowEdits(&s.m.opts)
	wantOutcome(t, run(t, s, "edit_file", edit("a.txt", "TWO", "2")), false, "Edited")
}

func lastResult(t *testing.T, s *Session) session.Block {
	t.Helper()
	doc := s.Document()
	msgs := doc.Threads[len(doc.Threads)-1].Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, b := range msgs[i].Content {
			if b.Type == session.BlockToolResult {
				return b
			}
		}
	}
	t.Fatal("no tool result")
	return session.Block{}
}

func TestDenyLeavesTheFileAndSaysSo(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	e.write(t, "a.txt", "keep me\n")
	run(t, s, "read_file", map[string]any{"path": "a.txt"})
	done := make(chan error, 1)
	go func() {
		done <- s.runTools(context.Background(), []session.Block{toolUse("write_file", map[string]any{"path": "a.txt", "content": "gone\n"})})
	}()
	a := e.events.next(t, "tool.approval").data.(event.ToolApproval)
	if err := s.Approve(a.ToolUseID, DecisionDeny); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := e.read(t, "a.txt"); got != "keep me\n" {
		t.Errorf("file is %q", got)
	}
	r := lastResult(t, s)
	if !r.IsError || !strings.Contains(r.ResultText(), "denied") || !bytes.Contains(r.Unknown, []byte("+gone")) {
		t.Errorf("result %s %s", r.ResultText(), r.Unknown)
	}
}

func TestAllowForTheSessionCoversBothFileTools(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	done := make(chan toolOutcome, 1)
	go func() { done <- run(t, s, "write_file", map[string]any{"path": "new.txt", "content": "a\n"}) }()
	a := e.events.next(t, "tool.approval").data.(event.ToolApproval)
	if err := s.Approve(a.ToolUseID, DecisionSession); err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, <-done, false, "Created")
	// Asked no more: edit_file goes ahead at once.
	wantOutcome(t, run(t, s, "edit_file", edit("new.txt", "a", "b")), false, "Edited")
	if got := e.read(t, "new.txt"); got != "b\n" {
		t.Errorf("file is %q", got)
	}
}

func TestChangesRefusedWithoutAFreshRead(t *testing.T) {
	e := newFileEnv(t, allowEdits)
	s := e.newSession(t)
	e.write(t, "a.txt", "one\n")
	wantOutcome(t, run(t, s, "edit_file", edit("a.txt", "one", "1")), true, "you have not read it", "read_file")
	wantOutcome(t, run(t, s, "write_file", map[string]any{"path": "a.txt", "content": "x"}), true, "you have not read it")

	run(t, s, "read_file", map[string]any{"path": "a.txt"})
	e.write(t, "a.txt", "one\nand another\n") // an editor saves
	wantOutcome(t, run(t, s, "edit_file", edit("a.txt", "one", "1")), true, "changed since you read it", "Read it again")
	if got := e.read(t, "a.txt"); got != "one\nand another\n" {
		t.Errorf("file is %q", got)
	}
	run(t, s, "read_file", map[string]any{"path": "a.txt"})
	wantOutcome(t, run(t, s, "edit_file", edit("a.txt", "one", "1")), false, "Edited")
}

func TestEditErrorsAreClear(t *testing.T) {
	e := newFileEnv(t, allowEdits)
	s := e.newSession(t)
	e.write(t, "a.go", "x := 1\ny := 2\nx := 1\n")
	run(t, s, "read_file", map[string]any{"path": "a.go"})
	wantOutcome(t, run(t, s, "edit_file", edit("a.go", "x := 1", "x := 3")), true, "occurs 2 times", "     1\tx := 1", "     3\tx := 1")
	wantOutcome(t, run(t, s, "edit_file", edit("a.go", "y := 3", "y := 4")), true, "not found", "     2\ty := 2")
	wantOutcome(t, run(t, s, "edit_file", map[string]any{"path": "a.go", "edits": []map[string]string{{"old_string": "y", "new_string": "z"}}}),
		true, `unknown field "new_string"`)
	if got := e.read(t, "a.go"); got != "x := 1\ny := 2\nx := 1\n" {
		t.Errorf("file is %q", got)
	}
}

func TestUnchangedReadIsNotSentAgain(t *testing.T) {
	e := newFileEnv(t, allowEdits)
	s := e.newSession(t)
	e.write(t, "a.txt", "alpha\nbeta\n")
	first := toolUse("read_file", map[string]any{"path": "a.txt"})
	wantOutcome(t, s.runTool(context.Background(), first), false, "alpha")
	again := run(t, s, "read_file", map[string]any{"path": "a.txt"})
	wantOutcome(t, again, false, "unchanged since you read these lines", first.ID)
	if strings.Contains(again.output, "alpha") {
		t.Errorf("sent again: %s", again.output)
	}
	wantOutcome(t, run(t, s, "read_file", map[string]any{"path": "a.txt", "offset": 2}), false, "     2\tbeta")
	e.write(t, "a.txt", "alpha\nbeta\ngamma\n")
	wantOutcome(t, run(t, s, "read_file", map[string]any{"path": "a.txt"}), false, "gamma")
	// After the agent's own write, a read sends the new content.
	wantOutcome(t, run(t, s, "edit_file", edit("a.txt", "gamma", "delta")), false, "Edited")
	wantOutcome(t, run(t, s, "read_file", map[string]any{"path": "a.txt"}), false, "delta")
}

func TestStampsSurviveANewThread(t *testing.T) {
	e := newFileEnv(t, allowEdits)
	s := e.newSession(t)
	e.write(t, "a.txt", "alpha\n")
	run(t, s, "read_file", map[string]any{"path": "a.txt"})
	// Compaction appends a successor thread; the live session stays.
	if _, err := s.Update(func(d *session.Document) error {
		from := len(d.Threads) - 1
		d.Threads = append(d.Threads, session.Thread{CreatedAt: time.Now(), CompactedFrom: &from, Summary: "s", Messages: []session.Message{}})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// The read is in the predecessor, out of the model's sight: sent again.
	wantOutcome(t, run(t, s, "read_file", map[string]any{"path": "a.txt"}), false, "     1\talpha")
	if _, err := s.Update(func(d *session.Document) error {
		d.Threads = append(d.Threads, session.Thread{CreatedAt: time.Now(), Messages: []session.Message{}})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// The stamp is still good for a change.
	wantOutcome(t, run(t, s, "edit_file", edit("a.txt", "alpha", "omega")), false, "Edited")
}

func TestStampsAreDroppedOnReopen(t *testing.T) {
	e := newFileEnv(t, allowEdits)
	s := e.newSession(t)
	e.write(t, "a.txt", "alpha\n")
	run(t, s, "read_file", map[string]any{"path": "a.txt"})
	s.m.Close() // the process exits
	again := e.open(t, s.ID())
	wantOutcome(t, run(t, again, "edit_file", edit("a.txt", "alpha", "omega")), true, "you have not read it")
	wantOutcome(t, run(t, again, "read_file", map[string]any{"path": "a.txt"}), false, "     1\talpha")
	wantOutcome(t, run(t, again, "edit_file", edit("a.txt", "alpha", "omega")), false, "Edited")
}

func TestDeniedPathsThroughLinks(t *testing.T) {
	e := newFileEnv(t, allowEdits)
	secrets := e.opts.Settings.Current().DeniedPaths[0]
	if err := os.MkdirAll(secrets, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secrets, "key"), []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, link := range [][2]string{{filepath.Join(secrets, "key"), "key-link"}, {secrets, "dir-link"}, {e.profile, "profile-link"}} {
		if err := os.Symlink(link[0], filepath.Join(e.work, link[1])); err != nil {
			t.Fatal(err)
		}
	}
	s := e.newSession(t)
	tests := []struct {
		tool  string
		input any
		rule  string
	}{
		{"read_file", map[string]any{"path": filepath.Join(secrets, "key")}, "settings denied_paths"},
		{"read_file", map[string]any{"path": "key-link"}, "it leads to " + filepath.Join(secrets, "key")},
		{"write_file", map[string]any{"path": "dir-link/new", "content": "x"}, "settings denied_paths"},
		{"edit_file", edit("key-link", "secret", "public"), "settings denied_paths"},
		{"read_file", map[string]any{"path": "profile-link/session"}, "profile folder"},
		{"write_file", map[string]any{"path": ".env", "content": "TOKEN=1"}, ".env file"},
		{"read_file", map[string]any{"path": ".env.production"}, ".env file"},
	}
	for _, tt := range tests {
		wantOutcome(t, run(t, s, tt.tool, tt.input), true, "is denied", tt.rule)
	}
	if data, _ := os.ReadFile(filepath.Join(secrets, "key")); string(data) != "secret\n" {
		t.Errorf("denied file changed: %q", data)
	}
	if _, err := os.Stat(filepath.Join(e.work, ".env")); err == nil {
		t.Error(".env was written")
	}
}

func TestReadImageComesBackAsAnImage(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 3, 3))); err != nil {
		t.Fatal(err)
	}
	e.write(t, "shot.png", buf.String())
	if err := s.runTools(context.Background(), []session.Block{toolUse("read_file", map[string]any{"path": "shot.png"})}); err != nil {
		t.Fatal(err)
	}
	r := lastResult(t, s)
	var content []session.Block
	if err := jsonv2.Unmarshal(r.Content, &content); err != nil {
		t.Fatalf("content %s: %v", r.Content, err)
	}
	if len(content) != 2 || content[0].Type != session.BlockText || content[1].Type != session.BlockImage ||
		content[1].MediaType != "image/png" || !e.images.Has(content[1].SHA256) {
		t.Errorf("content %s", r.Content)
	}
	if strings.Contains(string(r.Content), "data") {
		t.Error("the image bytes are inline in the document")
	}
}

func TestBinaryRefused(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	e.write(t, "a.bin", "PK\x03\x04\x00\x00binary")
	wantOutcome(t, run(t, s, "read_file", map[string]any{"path": "a.bin"}), true, "is a binary file", "bash")
}

func TestALinkChangedWhileWaitingIsNotFollowed(t *testing.T) {
	e := newFileEnv(t)
	secrets := e.opts.Settings.Current().DeniedPaths[0]
	if err := os.MkdirAll(secrets, 0o755); err != nil {
		t.Fatal(err)
	}
	real := e.write(t, "real.txt", "same\n")
	if err := os.WriteFile(filepath.Join(secrets, "key"), []byte("same\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(e.work, "link.txt")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	s := e.newSession(t)
	run(t, s, "read_file", map[string]any{"path": "link.txt"})
	done := make(chan toolOutcome, 1)
	go func() { done <- run(t, s, "edit_file", edit("link.txt", "same", "changed")) }()
	a := e.events.next(t, "tool.approval").data.(event.ToolApproval)
	// While the person looks, the link is pointed into a denied folder.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(secrets, "key"), link); err != nil {
		t.Fatal(err)
	}
	if err := s.Approve(a.ToolUseID, DecisionOnce); err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, <-done, true, "is denied")
	for _, p := range []string{real, filepath.Join(secrets, "key")} {
		if data, _ := os.ReadFile(p); string(data) != "same\n" {
			t.Errorf("%s is %q", p, data)
		}
	}
}
