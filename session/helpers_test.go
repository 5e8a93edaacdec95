package session_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"myco/session"
)

// childEnv names the part a re-executed test binary plays; see TestMain.
const childEnv = "MYCO_TEST_CHILD"

// TestMain lets the test binary double as the other process of the
// cross-process tests: with MYCO_TEST_CHILD set it runs no tests and plays
// that part instead.
func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		code := m.Run()
		removeBenchFixtures()
		os.Exit(code)
	case "lock":
		os.Exit(childLock())
	case "saveloop":
		os.Exit(childSaveLoop())
	case "journal":
		os.Exit(childJournal())
	case "hold":
		os.Exit(childHold())
	default:
		fmt.Fprintf(os.Stderr, "unknown %s=%q\n", childEnv, os.Getenv(childEnv))
		os.Exit(2)
	}
}

// IDs of the hand-written documents under testdata/.
const (
	healthyID = "0193c7b2-6c1e-7c4a-9a0e-3f5b2d1e8a90"
	minimalID = "0193c7b2-0000-7000-8000-000000000001"
	unknownID = "0193c7b2-0000-7000-8000-000000000002"
	legacyID  = "0193c7b2-0000-7000-8000-000000000003"
)

// healthyDocs are the readable documents under testdata/.
var healthyDocs = []struct{ name, file, id string }{
	{"healthy", "healthy.json", healthyID},
	{"minimal", "minimal.json", minimalID},
	{"unknown fields at every level", "unknown-fields.json", unknownID},
	{"legacy inline image", "legacy-image.json", legacyID},
}

// damagedDocs are the unreadable documents under testdata/damaged/, each
// with the file name (ID) it is installed under and a part of the reason
// a person should be told.
var damagedDocs = []struct{ name, file, id, reason string }{
	{"truncated JSON", "damaged/truncated.json", "0193c7b2-0000-7000-8000-0000000000d1", "truncated JSON"},
	{"threads is a string", "damaged/wrong-threads.json", "0193c7b2-0000-7000-8000-0000000000d2", `"/threads"`},
	{"title is a number", "damaged/wrong-title.json", "0193c7b2-0000-7000-8000-0000000000d3", `"/title"`},
	{"message content is a number", "damaged/wrong-content.json", "0193c7b2-0000-7000-8000-0000000000d4", `"/threads/0/messages/1/content"`},
	{"unknown schema", "damaged/schema-2.json", "0193c7b2-0000-7000-8000-0000000000d5", "unsupported schema 2"},
	{"no schema", "damaged/no-schema.json", "0193c7b2-0000-7000-8000-0000000000d6", "no schema"},
	{"invalid UTF-8", "damaged/invalid-utf8.json", "0193c7b2-0000-7000-8000-0000000000d7", "invalid UTF-8"},
	{"id does not match the file name", "damaged/id-mismatch.json", "0193c7b2-0000-7000-8000-0000000000d8", "does not match the file name"},
	{"trailing garbage", "damaged/trailing-garbage.json", "0193c7b2-0000-7000-8000-0000000000d9", "after top-level value"},
}

// openStore opens a store on a fresh folder and returns it with the folder.
func openStore(t testing.TB, opts session.Options) (*session.Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "session")
	return mustOpen(t, dir, opts), dir
}

func mustOpen(t testing.TB, dir string, opts session.Options) *session.Store {
	t.Helper()
	s, err := session.Open(dir, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	return s
}

func readTestdata(t testing.TB, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// install copies a testdata document into dir as <id>.json and returns its
// path.
func install(t testing.TB, dir, file, id string) string {
	t.Helper()
	path := filepath.Join(dir, id+".json")
	if err := os.WriteFile(path, readTestdata(t, file), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// fileState is what "left as it was" means for a file: same bytes, same
// modification time.
type fileState struct {
	Data    []byte
	ModTime time.Time
}

// freeze sets a file's modification time into the past, so that a rewrite
// with the same bytes still shows, and returns its state.
func freeze(t testing.TB, path string) fileState {
	t.Helper()
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	return stateOf(t, path)
}

func stateOf(t testing.TB, path string) fileState {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatalf("file %s: %v", filepath.Base(path), err)
	}
	return fileState{Data: readFile(t, path), ModTime: info.ModTime()}
}

func assertUnchanged(t testing.TB, path string, want fileState) {
	t.Helper()
	if diff := cmp.Diff(want, stateOf(t, path)); diff != "" {
		t.Errorf("%s changed (-before +after):\n%s", filepath.Base(path), diff)
	}
}

func assertExists(t testing.TB, path string) {
	t.Helper()
	if _, err := os.Lstat(path); err != nil {
		t.Errorf("want %s: %v", path, err)
	}
}

func assertMissing(t testing.TB, path string) {
	t.Helper()
	if _, err := os.Lstat(path); err == nil {
		t.Errorf("%s exists, want it gone", path)
	}
}

// jsonTree decodes JSON into plain maps and slices, so that two files can be
// compared whatever the order of their members. Numbers stay as written.
func jsonTree(t testing.TB, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode JSON tree: %v", err)
	}
	return v
}

// sameInstant compares strings that are RFC 3339 times by the instant and
// offset they name: "18:05:12.000Z" is written back as "18:05:12Z".
var sameInstant = cmp.Comparer(func(a, b string) bool {
	ta, errA := time.Parse(time.RFC3339Nano, a)
	tb, errB := time.Parse(time.RFC3339Nano, b)
	if errA != nil || errB != nil {
		return a == b
	}
	_, offA := ta.Zone()
	_, offB := tb.Zone()
	return ta.Equal(tb) && offA == offB
})

// memberNames lists the names of a JSON object's members in file order.
func memberNames(t testing.TB, data []byte) []string {
	t.Helper()
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	if _, err := dec.ReadToken(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tok.String())
		if err := dec.SkipValue(); err != nil {
			t.Fatal(err)
		}
	}
	return names
}

// tempFiles lists what atomic writes left behind in dir.
func tempFiles(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			names = append(names, e.Name())
		}
	}
	return names
}

func ids(sums []session.Summary) []string {
	out := make([]string, 0, len(sums))
	for _, s := range sums {
		out = append(out, s.ID)
	}
	return out
}

func findSummary(sums []session.Summary, id string) (session.Summary, bool) {
	i := slices.IndexFunc(sums, func(s session.Summary) bool { return s.ID == id })
	if i < 0 {
		return session.Summary{}, false
	}
	return sums[i], true
}

var t0 = time.Date(2026, 11, 29, 18, 5, 0, 0, time.UTC)

// newDoc builds a valid document with the given number of threads and
// messages per thread.
func newDoc(id string, updated time.Time, threads, messages int) *session.Document {
	d := &session.Document{
		Schema: session.Schema, ID: id, Title: "session " + id,
		Model: "anthropic/claude-sonnet-4-5", CreatedAt: t0, UpdatedAt: updated,
	}
	for ti := range threads {
		th := session.Thread{CreatedAt: t0, Messages: []session.Message{}}
		for mi := range messages {
			th.Messages = append(th.Messages, textMessage(fmt.Sprintf("m%d-%d", ti, mi), "user", "hello"))
		}
		d.Threads = append(d.Threads, th)
	}
	return d
}

func textMessage(id, role, text string) session.Message {
	return session.Message{
		ID: id, Role: role, At: t0,
		Content: []session.Block{{Type: session.BlockText, Text: text}},
	}
}

// realisticDoc builds a session the way an agent writes one: rounds of a
// person's question, an answer that calls a tool, and the tool's output.
// rounds*3 messages; size grows with textLen.
func realisticDoc(id string, rounds, textLen int) *session.Document {
	d := &session.Document{
		Schema: session.Schema, ID: id, Title: "Refactor the store " + id[len(id)-4:],
		Model: "anthropic/claude-sonnet-4-5", Cwd: "/home/ana/src/project",
		CreatedAt: t0, UpdatedAt: t0.Add(time.Duration(rounds) * time.Minute),
		Scratchpad: "- keep the API stable\n- benchmarks before and after\n",
		Threads:    []session.Thread{{CreatedAt: t0, Messages: []session.Message{}}},
	}
	prose := strings.Repeat("The listing reads every header; the cache keeps summaries by stat. ", textLen/67+1)[:textLen]
	at := t0
	for r := range rounds {
		at = at.Add(time.Minute)
		tool := fmt.Sprintf("toolu_%06d", r)
		input, _ := json.Marshal(map[string]string{"command": fmt.Sprintf("go test -run TestList%d ./session/", r)})
		d.Threads[0].Messages = append(d.Threads[0].Messages,
			session.Message{
				ID: fmt.Sprintf("msg_%06d_u", r), Role: "user", At: at, Human: true,
				Content: []session.Block{{Type: session.BlockText, Text: "Round " + fmt.Sprint(r) + ": " + prose[:textLen/4]}},
			},
			session.Message{
				ID: fmt.Sprintf("msg_%06d_a", r), Role: "assistant", At: at.Add(2 * time.Second),
				Model: d.Model, StopReason: "tool_use",
				Usage: &session.Usage{InputTokens: int64(1000 + r*40), OutputTokens: 120, CacheReadInputTokens: int64(900 + r*40)},
				Content: []session.Block{
					{Type: session.BlockText, Text: prose[:textLen/2]},
					{Type: session.BlockToolUse, ID: tool, Name: "bash", Input: jsontext.Value(input)},
				},
			},
			session.Message{
				ID: fmt.Sprintf("msg_%06d_t", r), Role: "user", At: at.Add(9 * time.Second),
				Content: []session.Block{{
					Type: session.BlockToolResult, ToolUseID: tool, DurationMS: int64(300 + r),
					Content: jsontext.Value(mustJSON(prose + "\nok  \tmyco/session\t0.412s\n")),
				}},
			})
	}
	return d
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// child is a re-executed test binary playing another process.
type child struct {
	cmd    *exec.Cmd
	stdout *bufio.Reader
	stdin  io.Closer
	stderr *syncBuffer
}

// startChild runs this test binary as the other process, with the part it
// plays and its settings in the environment. The child lives until it is
// killed or this test ends (its stdin closes).
func startChild(t testing.TB, part string, env ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=" + part}, env...)...)
	c := &child{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = c.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c.stdin, c.stdout = stdin, bufio.NewReader(stdout)
	t.Cleanup(func() { c.kill() })
	return c
}

// waitLine waits for the child to print want on a line of its own.
func (c *child) waitLine(t testing.TB, want string) {
	t.Helper()
	line, err := c.stdout.ReadString('\n')
	if err != nil || strings.TrimSuffix(line, "\n") != want {
		c.kill()
		t.Fatalf("child said %q (%v), want %q; stderr:\n%s", line, err, want, c.stderr.String())
	}
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// kill ends the child with SIGKILL, no clean-up on its side, and reaps it:
// once kill returns, the kernel has closed its files and freed its locks.
func (c *child) kill() {
	if c.cmd.ProcessState != nil {
		return
	}
	c.cmd.Process.Kill()
	c.stdin.Close()
	c.cmd.Wait()
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startLockChild starts a process that holds the writer locks of ids in the
// store at dir, naming url in its owner hint, and returns once it holds them.
func startLockChild(t testing.TB, dir, url string, ids ...string) *child {
	t.Helper()
	c := startChild(t, "lock", "MYCO_TEST_DIR="+dir, "MYCO_TEST_URL="+url, "MYCO_TEST_IDS="+strings.Join(ids, ","))
	c.waitLine(t, "ready")
	return c
}

// childLock is the lock holder: it locks, says "ready" and waits for its
// stdin to close (or for SIGKILL).
func childLock() int {
	s, err := session.Open(os.Getenv("MYCO_TEST_DIR"), session.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for _, id := range strings.Split(os.Getenv("MYCO_TEST_IDS"), ",") {
		if _, err := s.Lock(id, session.Owner{PID: os.Getpid(), URL: os.Getenv("MYCO_TEST_URL")}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	return 0
}
