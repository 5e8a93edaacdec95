package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"myco/internal/errkind"
	"myco/profiles"
	"myco/server/llm"
	"myco/session"
)

// Budgets (settings budgets.*) bound what model calls spend, per session
// and per profile per day. Every model call of a session (a turn's calls
// and their retries, compaction summaries, titles, side questions)
// goes through Session.stream, which:
//
//   - reserves first what the call could cost at most: its input as
//     estimated (bytes/4) at the dearest input price the model has (a
//     cache write can cost more than plain input), plus its output limit
//     (thinking included) at the output price;
//   - refuses the call, before anything is sent, when that reservation
//     does not fit one of the accounts it is charged to (a *BudgetError);
//   - settles when the call returns: to the usage the provider reported,
//     or to nothing for a call refused with an HTTP error status (no
//     answer, nothing billed), or else to the whole reservation (a cut
//     stream, a stop: what was billed is unknown, so the most it could
//     be is charged).
//
// A call is charged to several accounts at once: each session of
// Session.budgetAccounts (the session, then the sessions a sub-agent's
// spend also counts against) and the profile's day. A session's spend
// lives in its document (Document.Spent, durable with it); the day's in
// the profile's ledger file (budget.json, docs/FORMAT.md). Reservations
// in flight are held in memory and count against every account they name,
// so calls running at once (sub-agents) cannot overspend together.

// ErrBudget is the kind of every budget refusal (*BudgetError).
var ErrBudget = errkind.New(errkind.Conflict, "budget spent")

// BudgetError is a model call refused because it could exceed a budget.
type BudgetError struct {
	// Scope is "session" (the session's own budget), "parent" (the
	// budget of a session a sub-agent's spend counts against) or "day".
	Scope   string
	Session string // the session whose budget, for session and parent
	Tokens  bool   // the token budget (else the cost budget)
	// Limit, Used and Need are tokens or US dollars: the budget, what it
	// was charged (reservations in flight included), and what the refused
	// call could have cost at most.
	Limit, Used, Need float64
	Key               string // the setting that raises it: budgets.session_cost_usd
	Job               string // what the call was for: turn, summary, title, btw
}

func (e *BudgetError) Error() string {
	whose := "the session's budget"
	switch e.Scope {
	case "parent":
		whose = "the budget of session " + e.Session + " (this sub-agent's parent)"
	case "day":
		whose = "today's budget for this profile"
	}
	if e.Tokens {
		return fmt.Sprintf("%s of %s tokens is spent: %s used, this call could use up to %s; raise %s in Settings",
			whose, groupDigits(e.Limit), groupDigits(e.Used), groupDigits(e.Need), e.Key)
	}
	return fmt.Sprintf("%s of $%.2f is spent: $%.2f used, this call could cost up to $%.2f; raise %s in Settings",
		whose, e.Limit, e.Used, e.Need, e.Key)
}

// Kind makes a refusal a conflict: the request was fine, the budget says no.
func (e *BudgetError) Kind() errkind.Kind { return errkind.Conflict }

// Is makes errors.Is(err, ErrBudget) find every refusal.
func (e *BudgetError) Is(target error) bool { return target == ErrBudget }

// groupDigits writes a count of tokens with thousands separators.
func groupDigits(v float64) string {
	s := fmt.Sprintf("%d", int64(v))
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// reservation is one model call's claim on its accounts, from before the
// call until it settles.
type reservation struct {
	s        *Session
	model    string
	day      string
	sessions []*Session
	need     session.Spent
}

// budgetAccounts are the sessions a call of s is charged to: s itself,
// then the sessions its spend also counts against (budgetParents: a
// sub-agent's parent, its parent's parent…). Those not open in this
// process are left out (their writer is elsewhere).
func (s *Session) budgetAccounts() []*Session {
	out := []*Session{s}
	s.mu.Lock()
	parents := slices.Clone(s.budgetParents)
	s.mu.Unlock()
	for _, id := range parents {
		if p, ok := s.m.Get(id); ok && !slices.Contains(out, p) {
			out = append(out, p)
		} else if !ok {
			s.m.log.Warn("a budget this session's calls count against is not open here", "session", s.id, "parent", id)
		}
	}
	return out
}

// BudgetChain is the sessions s's calls are charged to, s first, then
// the ones ChargeAlsoTo named: what a sub-agent of s passes to its own
// ChargeAlsoTo, so its calls count against s and every session above.
func (s *Session) BudgetChain() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{s.id}, s.budgetParents...)
}

// ChargeAlsoTo makes every later model call of s count against the
// budgets of the sessions ids too, in that order (a sub-agent: its
// parent, then the parent's parent; parent.BudgetChain() gives them):
// the call is refused when it does not fit any of them, and charged to
// all. A session named that is not open in this process is skipped.
func (s *Session) ChargeAlsoTo(ids ...string) {
	s.mu.Lock()
	s.budgetParents = slices.Clone(ids)
	s.mu.Unlock()
}

// stream makes one model call for s, charged to its budgets: reserved
// first (refused with a *BudgetError when it does not fit), settled when
// it returns. job says what the call is for (turn, summary, title, btw);
// model is its "provider/model-id", for its price.
func (s *Session) stream(ctx context.Context, job, model string, client llm.Client, req llm.Request, onDelta func(string)) (llm.Response, error) {
	r, err := s.reserve(job, model, req)
	if err != nil {
		return llm.Response{}, err
	}
	resp, err := client.Stream(ctx, req, onDelta)
	r.settle(resp.Usage, err)
	return resp, err
}

// reserve claims what a call of req to model could cost at most on each
// of its accounts, or refuses it.
func (s *Session) reserve(job, model string, req llm.Request) (*reservation, error) {
	st := s.m.settings()
	r := &reservation{
		s: s, model: model, day: s.m.opts.Now().Local().Format("2006-01-02"),
		sessions: s.budgetAccounts(), need: s.m.mostCost(st, model, req),
	}
	l := s.m.ledger
	l.mu.Lock()
	defer l.mu.Unlock()
	b := st.Budgets
	for i, sess := range r.sessions {
		scope := "session"
		if i > 0 {
			scope = "parent"
		}
		used := sess.spent().Add(l.held[sessionAccount(sess.id)])
		if err := check(scope, sess.id, job, used, r.need, b.SessionTokens, b.SessionCostUSD, "budgets.session_tokens", "budgets.session_cost_usd"); err != nil {
			return nil, err
		}
	}
	used := l.days[r.day].Add(l.held[dayAccount(r.day)])
	if err := check("day", "", job, used, r.need, b.DayTokens, b.DayCostUSD, "budgets.day_tokens", "budgets.day_cost_usd"); err != nil {
		return nil, err
	}
	for _, k := range r.accounts() {
		l.held[k] = l.held[k].Add(r.need)
	}
	return r, nil
}

// check refuses need when it does not fit a budget of tokens or dollars
// (0: none) beside used.
func check(scope, id, job string, used, need session.Spent, tokens int64, cost float64, tokensKey, costKey string) error {
	if tokens > 0 && used.Tokens+need.Tokens > tokens {
		return &BudgetError{Scope: scope, Session: id, Job: job, Tokens: true,
			Limit: float64(tokens), Used: float64(used.Tokens), Need: float64(need.Tokens), Key: tokensKey}
	}
	if cost > 0 && used.CostUSD+need.CostUSD > cost {
		return &BudgetError{Scope: scope, Session: id, Job: job,
			Limit: cost, Used: used.CostUSD, Need: need.CostUSD, Key: costKey}
	}
	return nil
}

func (r *reservation) accounts() []string {
	keys := []string{dayAccount(r.day)}
	for _, sess := range r.sessions {
		keys = append(keys, sessionAccount(sess.id))
	}
	return keys
}

// settle charges the call's accounts what it cost, now that it returned
// with usage u (zero when the provider reported none) and callErr, and
// lets its reservation go. The sessions are charged before the
// reservation goes, so no moment counts the call as free.
func (r *reservation) settle(u session.Usage, callErr error) {
	charge := r.need
	var status *llm.Error
	switch {
	case reportedUsage(u):
		charge = r.s.m.usageSpent(r.model, u)
	case errors.As(callErr, &status) && status.Status != 0:
		// Refused with an HTTP status: no answer, nothing billed.
		charge = session.Spent{}
	}
	for _, sess := range r.sessions {
		sess.addSpent(charge)
	}
	l := r.s.m.ledger
	l.mu.Lock()
	l.days[r.day] = l.days[r.day].Add(charge)
	for _, k := range r.accounts() {
		left := l.held[k]
		left.Tokens -= r.need.Tokens
		left.CostUSD -= r.need.CostUSD
		if left.Tokens <= 0 && left.CostUSD <= 1e-12 {
			delete(l.held, k)
		} else {
			l.held[k] = left
		}
	}
	l.mu.Unlock()
	l.saveSoon()
}

func reportedUsage(u session.Usage) bool {
	return u.InputTokens+u.OutputTokens+u.CacheReadInputTokens+u.CacheCreationInputTokens > 0
}

// spent is what the session's budget was charged (spentOf).
func (s *Session) spent() session.Spent {
	var out session.Spent
	s.w.View(func(d *session.Document) { out = s.m.spentOf(d) })
	return out
}

// spentOf is what d's budget was charged: Document.Spent, or for a
// session never charged, what its answers' usage records (a session from
// before budgets were kept starts from its history).
func (m *Manager) spentOf(d *session.Document) session.Spent {
	if d.Spent != nil {
		return *d.Spent
	}
	var out session.Spent
	for _, mu := range d.UsageByModel() {
		out = out.Add(m.usageSpent(cmpModel(mu.Model, d.ModelOr(m.defaultModel())), mu.Usage))
	}
	return out
}

// cmpModel is the model an answer is priced at: the one it recorded, else
// the session's.
func cmpModel(recorded, session string) string {
	if recorded != "" {
		return recorded
	}
	return session
}

// addSpent charges the session's budget c, durably (a header change of
// the document, through the journal).
func (s *Session) addSpent(c session.Spent) {
	base := s.spent()
	_, err := s.w.Update(func(d *session.Document) error {
		if d.Spent != nil {
			base = *d.Spent
		}
		next := base.Add(c)
		d.Spent = &next
		return nil
	})
	if err != nil {
		s.m.log.Warn("a model call's cost was not added to the session's budget", "session", s.id, "err", err)
	}
}

// usageSpent is what usage u of model costs, in tokens and dollars (0
// dollars when its price is unknown: it counts against the token budgets
// only).
func (m *Manager) usageSpent(model string, u session.Usage) session.Spent {
	cost, _ := m.price(model, u)
	return session.Spent{
		Tokens:  u.InputTokens + u.OutputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
		CostUSD: cost,
	}
}

// price is Options.Price, else the settings' price of plain input and
// output (tests).
func (m *Manager) price(model string, u session.Usage) (float64, bool) {
	if m.opts.Price != nil {
		return m.opts.Price(model, u)
	}
	st := m.settings()
	return st.Cost(model, st.TokensOf(u.InputTokens, u.OutputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens))
}

// mostCost is the most a call of req to model could cost: its input as
// estimated, at the dearest of the model's input prices, and its output
// limit at the output price.
func (m *Manager) mostCost(st profiles.Settings, model string, req llm.Request) session.Spent {
	in := int64(estimateRequest(req))
	out := llm.OutputLimit(req)
	need := session.Spent{Tokens: in + out}
	if p, ok := st.Price(model); ok {
		dearest := max(p.Input, p.CacheRead, p.CacheWrite, p.CacheWrite1h)
		need.CostUSD = (float64(in)*dearest + float64(out)*p.Output) / 1e6
	}
	return need
}

// estimateRequest guesses the input tokens of req: its messages, system
// prompt and tool definitions, at 4 bytes a token.
func estimateRequest(req llm.Request) int {
	n := session.EstimateText(req.System)
	for _, m := range req.Messages {
		n += session.EstimateTokens(m)
	}
	for _, t := range req.Tools {
		schema, _ := json.Marshal(t.InputSchema)
		n += session.EstimateText(t.Name+t.Description) + len(schema)/4
	}
	return n
}
