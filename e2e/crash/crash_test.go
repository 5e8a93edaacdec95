package crash

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"myco/e2e/fakellm"
	"myco/e2e/internal/mycotest"
)

const (
	profile = "crash"
	// sessions under load at once; the last one is archived and restored.
	sessions = 4
	// killWindow: each kill lands at a random moment this long after the
	// load starts, once the first turns are well under way.
	killMin, killSpan = 300 * time.Millisecond, 2700 * time.Millisecond
	// guard bounds every wait for an outcome: a failure guard, never a
	// speed assertion.
	guard = 2 * time.Minute
)

// harness is one run: the fake, the home, the sessions, the figures.
type harness struct {
	t     *testing.T
	seed  uint64
	kills int
	rng   *rand.Rand
	fake  *fakellm.Server
	cfg   mycotest.Config
	ticks string
	srv   *mycotest.Server
	key   string // the running server's API key
	ss    []*sess

	mu       sync.Mutex
	failed   map[string]int  // rule → failures found
	reported map[string]bool // failures reported once, at the kill that made them
	tempSeen map[string]bool // temp files reported
	losses   []loss
	orphans  map[int]bool // the shells of killed servers
	streamed int          // kills that found an answer streaming
	toolRuns int          // kills that found a tool running
}

func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("kills myco 20 times")
	}
	h, ctx := startHarness(t)
	for k := 1; k <= h.kills; k++ {
		h.cycle(ctx, k)
		if t.Failed() && len(h.failed) == 0 {
			t.FailNow() // the harness itself broke: no point going on
		}
	}
	if _, err := h.srv.Stop(); err != nil {
		t.Errorf("clean stop after the last kill: %v", err)
	}
	h.waitOrphans()
	h.summary()
}

// startHarness starts myco with the harness's sessions made; both end
// with the test.
func startHarness(t *testing.T) (*harness, context.Context) {
	t.Helper()
	h := newHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	srv, err := h.start(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	t.Cleanup(func() { h.srv.Kill() })
	h.createSessions(ctx)
	return h, ctx
}

func newHarness(t *testing.T) *harness {
	h := &harness{t: t, kills: envInt(t, "MYCO_CRASH_KILLS", 20), failed: map[string]int{}, reported: map[string]bool{}, tempSeen: map[string]bool{}, orphans: map[int]bool{}}
	h.seed = uint64(time.Now().UnixNano())
	if v := os.Getenv("MYCO_CRASH_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("MYCO_CRASH_SEED=%q: %v", v, err)
		}
		h.seed = n
	}
	t.Logf("seed %d (MYCO_CRASH_SEED=%d replays the kill moments and the load's choices), %d kills", h.seed, h.seed, h.kills)
	h.rng = rand.New(rand.NewPCG(h.seed, 0))
	bin := os.Getenv("MYCO_CRASH_BIN")
	if bin == "" {
		var err error
		if bin, err = mycotest.Build(context.Background(), t.TempDir()); err != nil {
			t.Fatal(err)
		}
	} else if abs, err := filepath.Abs(bin); err == nil {
		bin = abs
	}
	fake, err := fakellm.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fake.Close() })
	h.fake = fake
	home, work := t.TempDir(), t.TempDir()
	h.ticks = t.TempDir()
	writeSettings(t, filepath.Join(home, "profiles", profile))
	h.cfg = mycotest.Config{Bin: bin, Home: home, Profile: profile, Dir: work}
	return h
}

// start starts myco with an API key of its own, so that the fake's
// requests say which server sent them: a request of a killed server can
// reach the fake after the restart.
func (h *harness) start(ctx context.Context, generation int) (*mycotest.Server, error) {
	h.key = fmt.Sprintf("crash-key-%d", generation)
	cfg := h.cfg
	cfg.Env = []string{"ANTHROPIC_BASE_URL=" + h.fake.URL, "ANTHROPIC_API_KEY=" + h.key}
	return mycotest.Start(ctx, cfg)
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

func writeSettings(t *testing.T, dir string) {
	t.Helper()
	settings := map[string]any{
		"default_model": "anthropic/fake-model",
		"title_model":   "anthropic/fake-title",
		"approvals":     map[string]string{"bash": "allow", "edit": "allow"},
	}
	data, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// createSessions makes the sessions, titled so that no title request
// runs: every model request the fake sees is a turn's.
func (h *harness) createSessions(ctx context.Context) {
	c := h.srv.Client()
	for i := range sessions {
		s := &sess{idx: i, archiver: i == sessions-1, title: fmt.Sprintf("crash s%d", i)}
		var header struct {
			ID string `json:"id"`
		}
		if err := c.PostJSON(ctx, "/api/sessions", map[string]string{"title": s.title}, http.StatusCreated, &header); err != nil {
			h.t.Fatal(err)
		}
		s.id = header.ID
		h.ss = append(h.ss, s)
	}
}

// cycle runs the load, kills the server at a random moment, restarts it
// on the same home and checks every rule for every session.
func (h *harness) cycle(ctx context.Context, k int) {
	c := h.srv.Client()
	recs := make([]*recorder, len(h.ss))
	for i, s := range h.ss {
		st, _, err := c.OpenStream(ctx, s.id)
		if err != nil {
			h.t.Fatalf("kill %d (seed %d): %v", k, h.seed, err)
		}
		recs[i] = newRecorder(st)
	}
	loadCtx, stopLoad := context.WithCancel(ctx)
	workers := make([]*worker, len(h.ss))
	var wg sync.WaitGroup
	for i, s := range h.ss {
		workers[i] = &worker{s: s, c: c, rec: recs[i], ticks: h.ticks, first: -1,
			rng: rand.New(rand.NewPCG(h.seed, uint64(k*64+i+1)))}
		if i == holdSession {
			workers[i].first = (k - 1) % holdKinds
		}
		wg.Go(func() { workers[i].run(loadCtx) })
	}
	// Choosing the moment of the kill is the one wait here that waits
	// for nothing.
	delay := killMin + time.Duration(h.rng.Int64N(int64(killSpan)))
	select {
	case <-time.After(delay):
	case <-h.srv.Exited():
		h.t.Fatalf("kill %d (seed %d): myco exited by itself under load; its log:\n%s", k, h.seed, h.srv.Log)
	}
	h.noteOrphans(h.srv.PID())
	killAt := time.Now()
	h.srv.Kill()
	stopLoad()
	wg.Wait()
	for i, r := range recs {
		r.wait()
		for _, u := range workers[i].unexpected {
			h.fail(k, h.ss[i], "load", "an answer no kill explains: %s", u)
		}
	}
	h.checkSecrets(k, "after the kill")
	h.fake.Reset() // the recorded bodies grow with the sessions
	srv, err := h.start(ctx, k)
	if err != nil {
		h.t.Fatalf("kill %d (seed %d): restart: %v", k, h.seed, err)
	}
	h.srv = srv
	h.check(ctx, k, killAt, recs)
}

// fail records that rule failed for session s at kill k.
func (h *harness) fail(k int, s *sess, rule, format string, args ...any) {
	h.t.Helper()
	msg := fmt.Sprintf(format, args...)
	key := fmt.Sprintf("%s %d %s", rule, s.idx, msg)
	h.mu.Lock()
	seen := h.reported[key]
	h.reported[key] = true
	if !seen {
		h.failed[rule]++
	}
	h.mu.Unlock()
	if seen {
		return // a damage found at an earlier kill, still there
	}
	h.t.Errorf("kill %d of %d (seed %d): session s%d %s: rule %s: %s", k, h.kills, h.seed, s.idx, s.id, rule, msg)
}

// noteOrphans remembers the children of the server about to be killed:
// its shells outlive it for a moment, and the test waits for them.
func (h *harness) noteOrphans(pid int) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if parentOf(child) == pid {
			h.orphans[child] = true
		}
	}
}

func parentOf(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(data), ')')
	fields := strings.Fields(string(data[i+1:]))
	if i < 0 || len(fields) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}

// waitOrphans waits for the killed servers' shells to finish their
// command and exit (they do once their output has nowhere to go), so
// that none writes into a folder the test is removing.
func (h *harness) waitOrphans() {
	deadline := time.Now().Add(guard)
	for pid := range h.orphans {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond) // polling: a foreign process gives no event
		}
		if alive(pid) {
			h.t.Logf("shell %d of a killed myco still runs after %s", pid, guard)
		}
	}
}

func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(data), ')')
	return i >= 0 && !strings.HasPrefix(strings.TrimSpace(string(data[i+1:])), "Z")
}

func (h *harness) summary() {
	rules := make([]string, 0, len(h.failed))
	for r, n := range h.failed {
		rules = append(rules, fmt.Sprintf("%s×%d", r, n))
	}
	sort.Strings(rules)
	st := summarize(h.losses)
	steers := 0
	for _, s := range h.ss {
		s.mu.Lock()
		steers += s.steers
		s.mu.Unlock()
	}
	line := fmt.Sprintf("crash: %d kills (seed %d), %d found an answer streaming, %d a tool running, %d steers taken by a running turn; text lost per streaming answer: %s; failed rules: %s",
		h.kills, h.seed, h.streamed, h.toolRuns, steers, st, orNone(strings.Join(rules, ", ")))
	h.t.Log(line)
	fmt.Println(line)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
