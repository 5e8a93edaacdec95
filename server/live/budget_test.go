package live

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"myco/e2e/fakellm"
	"myco/profiles"
	"myco/server/event"
	"myco/server/llm"
	"myco/session"
)

// fakePrice is what anthropic/fake-model costs in these tests: $3 and
// $15 per million tokens of input and output, as a Sonnet.
var fakePrice = profiles.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75, CacheWrite1h: 6}

// newBudgetEnv is a file env whose model is the fake model server, priced
// at fakePrice, with settings changed by mutate.
func newBudgetEnv(t *testing.T, mutate func(*profiles.Settings)) (*fileEnv, *fakellm.Server) {
	t.Helper()
	fake := fakellm.Start(t)
	st := profiles.DefaultSettings()
	st.DefaultModel = "anthropic/fake-model"
	st.Providers = map[string]profiles.Provider{"anthropic": {BaseURL: fake.URL, APIKeyEnv: "FAKE_KEY"}}
	price := fakePrice
	st.Models["anthropic/fake-model"] = profiles.Model{ContextWindow: 200000, Price: &price}
	if mutate != nil {
		mutate(&st)
	}
	getenv := func(k string) string {
		if k == "FAKE_KEY" {
			return "sk-test"
		}
		return ""
	}
	e := newFileEnv(t, func(o *Options) {
		o.DefaultModel = st.DefaultModel
		o.RetryDelays = []time.Duration{time.Millisecond}
		o.Settings = profiles.NewLiveSettings(st)
	})
	e.opts.Models = llm.NewRegistry(st, getenv, e.images)
	return e, fake
}

// session makes a titled session (no title call to count) and opens it.
func (e *fileEnv) titledSession(t *testing.T) *Session {
	t.Helper()
	doc, err := e.store.Create(session.NewSession{Title: "budget", Cwd: e.work})
	if err != nil {
		t.Fatal(err)
	}
	return e.open(t, doc.ID)
}

// turn sends text and waits for the turn's end, returning its error
// ("" for none).
func (e *fileEnv) turn(t *testing.T, s *Session, text string) string {
	t.Helper()
	if _, _, err := s.Submit(text, nil, false); err != nil {
		t.Fatal(err)
	}
	failure := ""
	for {
		select {
		case ev := <-e.events.ch:
			switch ev.name {
			case "turn.error":
				failure = ev.data.(event.TurnError).Error
			case "turn.end":
				return failure
			}
		case <-time.After(60 * time.Second):
			t.Fatal("the turn did not end")
		}
	}
}

// toolRequests are the requests of the agent's turns (titles and
// summaries have no tools).
func toolRequests(fake *fakellm.Server) []fakellm.Recorded {
	var out []fakellm.Recorded
	for _, r := range fake.Requests() {
		if _, ok := r.JSON["tools"]; ok {
			out = append(out, r)
		}
	}
	return out
}

// lastText is the text of the last message of a request.
func lastText(r fakellm.Recorded) string {
	msgs, _ := r.JSON["messages"].([]any)
	if len(msgs) == 0 {
		return ""
	}
	data, _ := json.Marshal(msgs[len(msgs)-1])
	return string(data)
}

func readFile(path string) string {
	return `tool:read_file {"path":"` + path + `"}`
}

// A turn makes at most max_model_calls_per_turn calls: the next one is
// not made, the page shows why, and the model is told with the person's
// next message.
func TestModelCallLimitStopsTheTurn(t *testing.T) {
	e, fake := newBudgetEnv(t, func(st *profiles.Settings) { st.MaxModelCalls = 3 })
	s := e.titledSession(t)
	failure := e.turn(t, s, "[[steps: "+readFile("a")+" ;; "+readFile("b")+" ;; "+readFile("c")+" ;; "+readFile("d")+"]]")
	if n := len(toolRequests(fake)); n != 3 {
		t.Fatalf("%d model calls, want 3 (the limit)", n)
	}
	if !strings.Contains(failure, "after 3 model calls") || !strings.Contains(failure, "max_model_calls_per_turn") {
		t.Fatalf("turn error %q, want the limit and the setting named", failure)
	}
	// The page shows it after a reload: an answer that is only its error.
	doc := s.Document()
	msgs := doc.Threads[len(doc.Threads)-1].Messages
	if last := msgs[len(msgs)-1]; last.Error == nil || !strings.Contains(last.Error.Message, "after 3 model calls") {
		t.Fatalf("last message %+v, want the limit's failure saved", last)
	}
	// The next message carries the note; the history before it is sent
	// as before.
	fake.Reset()
	if failure := e.turn(t, s, "go on"); failure != "" {
		t.Fatalf("next turn failed: %s", failure)
	}
	// (The fake reads the merged message, tool results and words, as the
	// old script's, and goes on with its steps: the first request counts.)
	reqs := toolRequests(fake)
	if len(reqs) == 0 || !strings.Contains(lastText(reqs[0]), "stopped by myco after 3 model calls") {
		t.Fatalf("the next request does not tell the model: %s", lastText(reqs[0]))
	}
}

// The same tool call three times in a row stops the turn before the third
// runs; two and then another call do not.
func TestSameToolCallThreeTimesStopsTheTurn(t *testing.T) {
	tests := []struct {
		name      string
		steps     []string
		wantCalls int
		stopped   bool
	}{
		{name: "three identical", steps: []string{readFile("a"), readFile("a"), readFile("a"), readFile("b")}, wantCalls: 3, stopped: true},
		{name: "two identical, then another", steps: []string{readFile("a"), readFile("a"), readFile("b")}, wantCalls: 4},
		{name: "the same name, another input", steps: []string{readFile("a"), readFile("a"), readFile("a ")}, wantCalls: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, fake := newBudgetEnv(t, nil)
			s := e.titledSession(t)
			failure := e.turn(t, s, "[[steps: "+strings.Join(tt.steps, " ;; ")+"]]")
			if n := len(toolRequests(fake)); n != tt.wantCalls {
				t.Errorf("%d model calls, want %d", n, tt.wantCalls)
			}
			if got := strings.Contains(failure, "same input 3 times in a row"); got != tt.stopped {
				t.Fatalf("turn error %q, stopped by the loop guard: %v, want %v", failure, got, tt.stopped)
			}
			if !tt.stopped {
				return
			}
			// The third call has an outcome that says it did not run.
			doc := s.Document()
			msgs := doc.Threads[len(doc.Threads)-1].Messages
			var results []session.Block
			for _, m := range msgs {
				for _, b := range m.Content {
					if b.Type == session.BlockToolResult {
						results = append(results, b)
					}
				}
			}
			if len(results) != 3 || !strings.Contains(string(results[2].Content), "Not run: myco stopped the turn") {
				t.Fatalf("tool results %d, last %s; want the third not run", len(results), results[len(results)-1].Content)
			}
			if g := doc.Goal; g != nil {
				t.Fatalf("goal %+v", g)
			}
		})
	}
}

// A budget that the call's reservation does not fit refuses it before
// anything is sent, with a reason that names the figures and the setting.
func TestBudgetRefusesACallBeforeItIsMade(t *testing.T) {
	tests := []struct {
		name   string
		budget profiles.Budgets
		want   []string
	}{
		{name: "session cost", budget: profiles.Budgets{SessionCostUSD: 0.05},
			want: []string{"the session's budget of $0.05 is spent: $0.00 used, this call could cost up to $0.1", "raise budgets.session_cost_usd in Settings"}},
		{name: "session tokens", budget: profiles.Budgets{SessionTokens: 5000},
			want: []string{"the session's budget of 5,000 tokens is spent: 0 used, this call could use up to", "budgets.session_tokens"}},
		{name: "day cost", budget: profiles.Budgets{DayCostUSD: 0.05},
			want: []string{"today's budget for this profile of $0.05 is spent", "budgets.day_cost_usd"}},
		{name: "day tokens", budget: profiles.Budgets{DayTokens: 100},
			want: []string{"today's budget for this profile of 100 tokens", "budgets.day_tokens"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, fake := newBudgetEnv(t, func(st *profiles.Settings) { st.Budgets = tt.budget })
			s := e.titledSession(t)
			failure := e.turn(t, s, "hello")
			if n := len(fake.Requests()); n != 0 {
				t.Fatalf("the fake model got %d requests, want none", n)
			}
			for _, w := range tt.want {
				if !strings.Contains(failure, w) {
					t.Errorf("turn error %q, want it to say %q", failure, w)
				}
			}
			// Nothing was charged, and nothing stays reserved.
			if b := s.Budget(); b.Session.Tokens != 0 || b.Day.Tokens != 0 || b.Session.ReservedTokens != 0 {
				t.Errorf("budget after a refusal %+v, want nothing spent", b)
			}
		})
	}
}

// A call charges what the provider reported; one whose usage it did not
// report keeps its whole reservation charged. Both reach the session's
// document and the day's ledger.
func TestChargesSettleToReportedUsage(t *testing.T) {
	e, _ := newBudgetEnv(t, nil)
	s := e.titledSession(t)
	if failure := e.turn(t, s, "a [[usage:in=1000,out=200]]"); failure != "" {
		t.Fatal(failure)
	}
	want := session.Spent{Tokens: 1200, CostUSD: (1000*3 + 200*15) / 1e6}
	if got := *s.Document().Spent; got.Tokens != want.Tokens || !near(got.CostUSD, want.CostUSD) {
		t.Fatalf("spent %+v, want %+v", got, want)
	}
	// Reported as nothing: the reservation stays charged (its output
	// limit alone is 8,192 tokens at $15 a million).
	if failure := e.turn(t, s, "b [[usage:in=0]]"); failure != "" {
		t.Fatal(failure)
	}
	got := *s.Document().Spent
	unreported := session.Spent{Tokens: got.Tokens - want.Tokens, CostUSD: got.CostUSD - want.CostUSD}
	if unreported.Tokens <= maxOutputTokens || unreported.CostUSD < maxOutputTokens*15/1e6 {
		t.Fatalf("a call without usage charged %+v, want its whole reservation", unreported)
	}
	b := s.Budget()
	if b.Day.Tokens != got.Tokens || !near(b.Day.CostUSD, got.CostUSD) || b.Day.LimitCostUSD != profiles.DefaultDayCostUSD {
		t.Fatalf("day %+v, want the session's %+v under the default limit", b.Day, got)
	}
}

// The day's ledger survives a restart: a new process over the profile
// counts what the last one spent today, and refuses what no longer fits.
func TestDayLedgerSurvivesARestart(t *testing.T) {
	const spent = 1_000_000
	e, fake := newBudgetEnv(t, func(st *profiles.Settings) {
		st.Budgets.DayTokens = spent + 5_000 // room for a call (about 10,000 tokens) only before the first
	})
	s := e.titledSession(t)
	if failure := e.turn(t, s, "big [[usage:in=1000000]]"); failure != "" {
		t.Fatal(failure)
	}
	id := s.ID()
	s.m.Close()
	if _, err := os.Stat(filepath.Join(e.profile, ledgerFile)); err != nil {
		t.Fatalf("no ledger: %v", err)
	}
	fake.Reset()
	again := e.open(t, id) // a new Manager: a new process
	if day := again.Budget().Day; day.Tokens != spent {
		t.Fatalf("day after a restart %+v, want %d tokens", day, spent)
	}
	failure := e.turn(t, again, "more")
	if !strings.Contains(failure, "today's budget for this profile of 1,005,000 tokens is spent: 1,000,000 used") {
		t.Fatalf("turn error %q, want today's budget spent", failure)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("%d requests after the refusal", n)
	}
}

// A sub-agent's calls are charged to its parent's budget too, and refused
// when the parent's budget is spent.
func TestChargeAlsoToAParent(t *testing.T) {
	e, fake := newBudgetEnv(t, func(st *profiles.Settings) { st.Budgets.SessionTokens = 20_000 })
	m := NewManager(e.opts)
	t.Cleanup(m.Close)
	open := func() *Session {
		doc, err := e.store.Create(session.NewSession{Title: "budget", Cwd: e.work})
		if err != nil {
			t.Fatal(err)
		}
		s, err := m.Open(doc.ID)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	parent, child := open(), open()
	child.ChargeAlsoTo(parent.BudgetChain()...)
	if failure := e.turn(t, child, "work [[usage:in=1500,out=500]]"); failure != "" {
		t.Fatal(failure)
	}
	if p, c := parent.Budget().Session.Tokens, child.Budget().Session.Tokens; p != 2_000 || c != 2_000 {
		t.Fatalf("parent %d, child %d tokens; want 2,000 charged to both", p, c)
	}
	// The parent spends most of its budget itself: the child's next call
	// no longer fits it.
	if failure := e.turn(t, parent, "own [[usage:in=9000]]"); failure != "" {
		t.Fatal(failure)
	}
	fake.Reset()
	failure := e.turn(t, child, "more")
	if !strings.Contains(failure, "the budget of session "+parent.ID()+" (this sub-agent's parent) of 20,000 tokens is spent: 11,000 used") {
		t.Fatalf("child's turn error %q, want the parent's budget named", failure)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("%d requests after the refusal", n)
	}
}

// A goal that hits a budget pauses, saying which.
func TestGoalPausesOnABudget(t *testing.T) {
	e, fake := newBudgetEnv(t, func(st *profiles.Settings) { st.Budgets.SessionCostUSD = 0.01 })
	s := e.titledSession(t)
	if _, err := s.SetGoal("keep going [[goal: working]]", 10); err != nil {
		t.Fatal(err)
	}
	e.events.next(t, "turn.end")
	g := s.Goal()
	if g.State != session.GoalPaused || !strings.Contains(g.Note, "the session's budget of $0.01 is spent") {
		t.Fatalf("goal %+v, want it paused by the budget", g)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("%d requests", n)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// Calls made at once (sub-agents, a title beside a turn) cannot overspend
// together: each reservation counts against the others until it settles.
func TestReservationsInFlightCount(t *testing.T) {
	e, _ := newBudgetEnv(t, func(st *profiles.Settings) { st.Budgets.DayTokens = 3_500 })
	s := e.titledSession(t)
	req := llm.Request{MaxTokens: 1_000} // reserves 1,000 tokens
	results := make(chan *reservation, 10)
	var refused atomic.Int32
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := s.reserve("turn", "anthropic/fake-model", req)
			if err != nil {
				refused.Add(1)
				return
			}
			results <- r
		}()
	}
	wg.Wait()
	close(results)
	if n := refused.Load(); n != 7 {
		t.Fatalf("%d of 10 calls refused, want 7: 3 reservations of 1,000 fit 3,500", n)
	}
	if b := s.Budget(); b.Day.Tokens != 3_000 || b.Session.ReservedTokens != 3_000 {
		t.Fatalf("budget while they run %+v, want 3,000 tokens reserved", b)
	}
	for r := range results {
		r.settle(session.Usage{InputTokens: 80, OutputTokens: 20}, nil)
	}
	b := s.Budget()
	if b.Day.Tokens != 300 || b.Session.Tokens != 300 || b.Session.ReservedTokens != 0 {
		t.Fatalf("budget once settled %+v, want the 300 tokens used and nothing reserved", b)
	}
	// A refusal by status is charged nothing; a call cut without usage
	// keeps its reservation.
	r, err := s.reserve("turn", "anthropic/fake-model", req)
	if err != nil {
		t.Fatal(err)
	}
	r.settle(session.Usage{}, &llm.Error{Provider: "anthropic", Status: 529, Retryable: true})
	if got := s.Budget().Day.Tokens; got != 300 {
		t.Fatalf("day after a refusal by status: %d tokens, want 300", got)
	}
	if r, err = s.reserve("turn", "anthropic/fake-model", req); err != nil {
		t.Fatal(err)
	}
	r.settle(session.Usage{}, &llm.Error{Provider: "anthropic", Retryable: true, Err: io.ErrUnexpectedEOF})
	if got := s.Budget().Day.Tokens; got != 1_300 {
		t.Fatalf("day after a cut stream without usage: %d tokens, want 1,300", got)
	}
}

// A sub-agent's calls count against its parent's budget: a child whose
// first call does not fit what the parent has left is refused before it
// is sent, and the parent's task call says why.
func TestBudgetStopsASubagent(t *testing.T) {
	e, fake := newSubagentEnv(t, profiles.Subagents{MaxDepth: 2, MaxRunning: 4})
	st := e.opts.Settings.Current()
	st.Budgets.SessionTokens = 25_000
	e.opts.Settings = profiles.NewLiveSettings(st)
	parent := e.newSession(t)
	// The parent's first call uses 20,000 tokens; the child's could use
	// over 8,192 (its output limit), more than the 5,000 left.
	r, err := parent.Run(context.Background(), taskCall(t, "look around", "⟦say:all clear⟧", false)+" [[usage:in=20000]]")
	if err != nil {
		t.Fatal(err)
	}
	failure := ""
	if r.Err != nil {
		failure = r.Err.Error()
	}
	var child string
	for id, r := range results(parent) {
		child = r.Session
		out := resultText(t, r)
		if !strings.Contains(out, "failed: the budget of session "+parent.ID()+" (this sub-agent's parent) of 25,000 tokens is spent: 20,0") {
			t.Fatalf("task %s outcome %q, want the parent's budget named", id, out)
		}
	}
	if child == "" {
		t.Fatalf("no sub-agent was started; turn error %q, results %v", failure, results(parent))
	}
	// Only the parent's first call reached the model: neither the child's
	// nor the parent's next one (which does not fit either).
	if n := len(fake.Requests()); n != 1 {
		t.Fatalf("%d model requests, want 1", n)
	}
	if !strings.Contains(failure, "the session's budget of 25,000 tokens is spent") {
		t.Fatalf("the parent's turn error %q, want its own budget spent", failure)
	}
}
