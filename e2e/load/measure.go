package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"myco/e2e/internal/mycotest"
)

// Targets from docs/PERFORMANCE.md.
const (
	targetHomePage   = 100 * time.Millisecond
	targetFirstDelta = 5 * time.Millisecond
	targetRSS        = 50 << 20 // issue 21: the whole run, every myco process of it
)

// measure runs every phase against one myco and fills r; it stops at the
// first error that leaves nothing sensible to measure.
func measure(ctx context.Context, cfg config, home string, r *report, log io.Writer) error {
	fake, err := listenTimedFake()
	if err != nil {
		return err
	}
	defer fake.Close()
	work := filepath.Join(home, "work") // the agent's cwd
	if err := os.MkdirAll(work, 0o700); err != nil {
		return err
	}
	if err := evictBinary(cfg.myco); err != nil {
		r.fail("evict %s from the page cache: %v", cfg.myco, err)
	}
	if err := baselineStartup(ctx, cfg, home, work, r); err != nil {
		return err
	}
	progress(log, "writing %d sessions", cfg.sessions)
	fx, err := writeProfile(home, loadProfile, cfg.sessions, fake.URL, cfg.query)
	if err != nil {
		return fmt.Errorf("write profile: %w", err)
	}
	r.fixture = fx
	progress(log, "starting %s", cfg.myco)
	m, err := startMyco(ctx, cfg.myco, home, loadProfile, work)
	if err != nil {
		return err
	}
	defer func() {
		select {
		case <-m.Exited():
		default: // an error cut the run short
			m.Kill()
		}
	}()
	stopWatch := r.resident.watch(m.PID())
	r.add("startup", fmt.Sprintf("startup, %d sessions (exec to URL line)", cfg.sessions), ms(m.Startup), "first start: every document read")
	r.sample("after first startup", m)
	// A profile myco has served before: the start reads its listing
	// cache, not every document. The rest of the run is this process.
	stopWatch()
	if _, err := m.Stop(); err != nil {
		return fmt.Errorf("stop after the first start: %w", err)
	}
	if m, err = startMyco(ctx, cfg.myco, home, loadProfile, work); err != nil {
		return err
	}
	defer r.resident.watch(m.PID())()
	r.add("startup", fmt.Sprintf("restart, %d sessions (exec to URL line)", cfg.sessions), ms(m.Startup), "listing cache read")
	r.sample("after restart", m)
	c := newClient(m)
	if err := measureReads(ctx, cfg, c, r, log); err != nil {
		return err
	}
	r.sample("after reads", m)
	progress(log, "%d sequential turns", cfg.turns)
	open, err := measureTurns(ctx, cfg, c, fake, r, log)
	if err != nil {
		return err
	}
	r.sample("after sequential turns", m)
	progress(log, "%d concurrent turns", cfg.concurrent)
	if err := measureConcurrent(ctx, cfg, c, r); err != nil {
		open.Close()
		return err
	}
	r.sample("after concurrent turns", m)
	// What stays open once the client lets go: the live sessions' locks,
	// the streams still subscribed, the model client's idle connections.
	c.HTTP.CloseIdleConnections()
	r.idleCPU(m, 3*time.Second)
	r.sample("3 s idle later, client's idle connections closed", m)
	warns, errs := m.Log.Counts()
	r.add("process", "myco log lines at WARN / ERROR", fmt.Sprintf("%d / %d", warns, errs), "")
	// One stream stays open through the shutdown, as a browser tab would.
	took, err := m.Stop()
	open.Close()
	r.add("shutdown", "SIGTERM to exit, one event stream open", ms(took), "")
	if err != nil {
		r.fail("shutdown: %v", err)
	} else {
		r.add("shutdown", "exit status, server.json", "0, removed", "")
	}
	return nil
}

// baselineStartup starts myco on an empty profile: the part of startup
// that does not depend on the sessions.
func baselineStartup(ctx context.Context, cfg config, home, work string, r *report) error {
	m, err := startMyco(ctx, cfg.myco, home, emptyProfile, work)
	if err != nil {
		return fmt.Errorf("empty profile: %w", err)
	}
	r.add("startup", "startup, empty profile (exec to URL line)", ms(m.Startup), "")
	if st, err := readProc(m.PID()); err == nil {
		r.add("memory", "RSS, empty profile after startup", mb(st.rss), "")
	}
	if _, err := m.Stop(); err != nil {
		return fmt.Errorf("empty profile: %w", err)
	}
	return nil
}

// measureReads times the home page, the search partial and the JSON list.
func measureReads(ctx context.Context, cfg config, c *client, r *report, log io.Writer) error {
	progress(log, "timing GET /")
	start := time.Now()
	page, err := c.Get(ctx, "/")
	if err != nil {
		return err
	}
	first := time.Since(start)
	rows := strings.Count(string(page), `data-testid="session-row"`)
	r.target("home", "GET / first request", ms(first), fmt.Sprintf("%d rows, %s", rows, kb(len(page))), targetHomePage, first)
	if want := min(100, cfg.sessions); rows != want {
		r.fail("GET / shows %d session rows, want %d", rows, want)
	}
	seq, err := c.timeGets(ctx, "/", cfg.requests)
	if err != nil {
		return err
	}
	r.target("home", fmt.Sprintf("GET / p50 / p95 / p99 (%d sequential)", cfg.requests),
		ms3(seq.pct(50), seq.pct(95), seq.pct(99)), "max "+ms(seq.max()), targetHomePage, seq.pct(95))
	tp, err := c.timeConcurrentGets(ctx, "/", cfg.requests, cfg.clients)
	if err != nil {
		return err
	}
	r.add("home", fmt.Sprintf("GET / with %d concurrent clients", cfg.clients),
		fmt.Sprintf("%.0f req/s", tp.perSecond()), "p50 "+ms(tp.lat.pct(50))+", p99 "+ms(tp.lat.pct(99)))
	progress(log, "timing search and the JSON list")
	q := "/partials/sessions?q=" + url.QueryEscape(cfg.query)
	search, err := c.timeGets(ctx, q, cfg.requests)
	if err != nil {
		return err
	}
	r.add("search", fmt.Sprintf("GET %s p50 / p99", q), ms2(search.pct(50), search.pct(99)),
		fmt.Sprintf("%d of %d titles match", r.fixture.matches, cfg.sessions))
	return measureList(ctx, cfg, c, r)
}

// measureList times the full JSON listing and checks that it lists every
// session, none of them damaged.
func measureList(ctx context.Context, cfg config, c *client, r *report) error {
	var sums []struct {
		ID      string `json:"id"`
		Damaged string `json:"damaged"`
	}
	start := time.Now()
	if err := c.GetJSON(ctx, "/api/sessions", &sums); err != nil {
		return err
	}
	first := time.Since(start)
	damaged := 0
	for _, s := range sums {
		if s.Damaged != "" {
			damaged++
		}
	}
	if len(sums) != cfg.sessions || damaged > 0 {
		r.fail("GET /api/sessions lists %d sessions (%d damaged), want %d undamaged", len(sums), damaged, cfg.sessions)
	}
	n := max(cfg.requests/4, 1)
	list, err := c.timeGets(ctx, "/api/sessions", n)
	if err != nil {
		return err
	}
	r.add("list", fmt.Sprintf("GET /api/sessions p50 (%d requests)", n), ms(list.pct(50)),
		fmt.Sprintf("%d sessions; first %s, p99 %s", len(sums), ms(first), ms(list.pct(99))))
	return nil
}

// measureTurns runs sequential turns in one new session and returns its
// stream, still open.
func measureTurns(ctx context.Context, cfg config, c *client, fake *timedFake, r *report, log io.Writer) (*mycotest.Stream, error) {
	id, err := c.newSession(ctx)
	if err != nil {
		return nil, err
	}
	s, _, err := c.OpenStream(ctx, id)
	if err != nil {
		return nil, err
	}
	var accepted, first, end, toFake, inFake, fromFake, overhead latencies
	deltas := 0
	for i := range cfg.turns {
		n := fake.chatCount()
		t, err := c.turn(ctx, s, id, cfg.message())
		if err == nil {
			err = c.checkTurn(ctx, id, t, cfg.words)
		}
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("turn %d: %w", i+1, err)
		}
		ft, ok := fake.chat(n)
		if !ok || ft.firstDelta.IsZero() {
			s.Close()
			return nil, fmt.Errorf("turn %d: the fake saw no chat request or sent no delta", i+1)
		}
		accepted, first, end = append(accepted, t.accepted), append(first, t.firstDelta), append(end, t.end)
		toFake = append(toFake, ft.arrived.Sub(t.sent))
		inFake = append(inFake, ft.firstDelta.Sub(ft.arrived))
		fromFake = append(fromFake, t.firstAt.Sub(ft.firstDelta))
		overhead = append(overhead, toFake[i]+fromFake[i])
		deltas += t.deltas
		if cfg.verbose {
			progress(log, "turn %2d: 202 %s, at fake %s, fake %s, delivered %s, first delta %s, end %s, %d deltas",
				i+1, ms(t.accepted), ms(toFake[i]), ms(inFake[i]), ms(fromFake[i]), ms(t.firstDelta), ms(t.end), t.deltas)
		}
	}
	last := len(first) - 1
	r.add("chat", "POST message to 202 (durable) p50 / p95", ms2(accepted.pct(50), accepted.pct(95)), "")
	r.add("chat", "POST to first text.delta p50 / p95", ms2(first.pct(50), first.pct(95)),
		fmt.Sprintf("%d turns in one session; turn 1 %s, turn %d %s; max %s", cfg.turns, ms(first[0]), last+1, ms(first[last]), ms(first.max())))
	r.add("chat", "… POST to model request at the fake p50 / p95", ms2(toFake.pct(50), toFake.pct(95)), "save + build request + connect")
	r.add("chat", "… fake's own time to its first delta p50", ms(inFake.pct(50)), "not myco's")
	r.add("chat", "… fake's first delta to text.delta event p50 / p95", ms2(fromFake.pct(50), fromFake.pct(95)), "SDK parse + hub + SSE")
	r.target("chat", "first text.delta: myco's own overhead p50 / p95", ms2(overhead.pct(50), overhead.pct(95)),
		"the two myco parts above, per turn", targetFirstDelta, overhead.pct(50))
	r.add("chat", "POST to turn.end p50 / p95", ms2(end.pct(50), end.pct(95)),
		fmt.Sprintf("%d words, %s between deltas", cfg.words, cfg.delay))
	r.add("chat", "text.delta events per turn (mean)", fmt.Sprintf("%.1f", float64(deltas)/float64(cfg.turns)),
		fmt.Sprintf("fake sends %d; piled-up deltas merge", cfg.words))
	return s, nil
}

func measureConcurrent(ctx context.Context, cfg config, c *client, r *report) error {
	res, err := c.concurrentTurns(ctx, cfg.concurrent, cfg.words, cfg.message())
	if err != nil {
		return err
	}
	var accepted, first, end latencies
	for _, t := range res.turns {
		if t.end > 0 {
			accepted, first, end = append(accepted, t.accepted), append(first, t.firstDelta), append(end, t.end)
		}
	}
	r.add("concurrent", fmt.Sprintf("%d sessions streaming a turn at once: wall time", cfg.concurrent), ms(res.wall),
		fmt.Sprintf("202 p50 %s / max %s; first delta p50 %s / max %s; turn.end max %s",
			ms(accepted.pct(50)), ms(accepted.max()), ms(first.pct(50)), ms(first.max()), ms(end.max())))
	r.add("concurrent", "streams with their whole text", fmt.Sprintf("%d / %d", res.intact, cfg.concurrent), "joined deltas = stored answer")
	for _, err := range res.failure {
		r.fail("concurrent turn: %v", err)
	}
	return nil
}

// message is the chat message: the fake answers it with cfg.words words,
// cfg.delay apart.
func (cfg config) message() string {
	return fmt.Sprintf("[[text:%d]] [[delay:%s]]", cfg.words, cfg.delay)
}
