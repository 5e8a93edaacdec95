package session

// Spent is what myco charged a session's budget (server/live/budget.go):
// every model call made for it or for its sub-agents (turns, retries,
// compaction summaries, titles, side questions), at the usage each
// reported, or at its whole reservation when the provider reported none.
// It starts, for a session that had answers before budgets were kept,
// from what those answers' usage records.
type Spent struct {
	Tokens  int64   `json:"tokens"`
	CostUSD float64 `json:"cost_usd"`
}

// Add returns s with t added.
func (s Spent) Add(t Spent) Spent {
	return Spent{Tokens: s.Tokens + t.Tokens, CostUSD: s.CostUSD + t.CostUSD}
}

func sameSpent(a, b *Spent) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
