package live

import "myco/session"

// BudgetLeft is what is left of a session's budgets and of today's, for
// /usage. A limit of 0 is none (its Left is then meaningless).
type BudgetLeft struct {
	Session BudgetFigures `json:"session"`
	Day     BudgetFigures `json:"day"`
}

// BudgetFigures are one account's budgets and spend. Limits of 0 are
// none; Left* is what the limit leaves (never below 0).
type BudgetFigures struct {
	Tokens         int64   `json:"tokens"`
	CostUSD        float64 `json:"cost_usd"`
	LimitTokens    int64   `json:"limit_tokens"`
	LimitCostUSD   float64 `json:"limit_cost_usd"`
	LeftTokens     int64   `json:"left_tokens"`
	LeftCostUSD    float64 `json:"left_cost_usd"`
	ReservedTokens int64   `json:"reserved_tokens,omitzero"`
}

func figures(used, held session.Spent, tokens int64, cost float64) BudgetFigures {
	all := used.Add(held)
	return BudgetFigures{
		Tokens: all.Tokens, CostUSD: all.CostUSD, LimitTokens: tokens, LimitCostUSD: cost,
		LeftTokens: max(0, tokens-all.Tokens), LeftCostUSD: max(0, cost-all.CostUSD),
		ReservedTokens: held.Tokens,
	}
}

// Budget is what is left of the session's budget and of today's.
func (s *Session) Budget() BudgetLeft {
	return s.m.budgetLeft(s.id, s.spent())
}

// budgetLeft is what is left of today's budget, and of session id's
// which was charged used (reservations in flight come on top).
func (m *Manager) budgetLeft(id string, used session.Spent) BudgetLeft {
	b := m.settings().Budgets
	day := m.opts.Now().Local().Format("2006-01-02")
	l := m.ledger
	l.mu.Lock()
	held, dayUsed, dayHeld := l.held[sessionAccount(id)], l.days[day], l.held[dayAccount(day)]
	l.mu.Unlock()
	return BudgetLeft{
		Session: figures(used, held, b.SessionTokens, b.SessionCostUSD),
		Day:     figures(dayUsed, dayHeld, b.DayTokens, b.DayCostUSD),
	}
}

// Budget is what is left of session doc's budget (the document as it
// stands: the live one when it is open here) and of today's.
func (m *Manager) Budget(doc *session.Document) BudgetLeft {
	if s, ok := m.Get(doc.ID); ok {
		return s.Budget()
	}
	return m.budgetLeft(doc.ID, m.spentOf(doc))
}
