package profiles

import (
	"fmt"
	"math"
)

// Budgets bound what model calls may spend: per session and per profile
// per day, in tokens and in US dollars. 0 is no limit. Every model call
// reserves what it could cost before it is made and is refused when that
// does not fit (server/live/budget.go).
type Budgets struct {
	// SessionTokens and SessionCostUSD bound one session (with its
	// sub-agents): off by default.
	SessionTokens  int64   `json:"session_tokens"`
	SessionCostUSD float64 `json:"session_cost_usd"`
	// DayTokens and DayCostUSD bound the profile's calls of one day (the
	// machine's local day), every session together.
	DayTokens  int64   `json:"day_tokens"`
	DayCostUSD float64 `json:"day_cost_usd"`
}

// DefaultDayCostUSD is the profile's daily budget unless settings say
// otherwise: generous for a person working all day (a long day with a
// large model costs $10-20), yet it stops a loop left running overnight.
const DefaultDayCostUSD = 50

// DefaultMaxModelCalls is max_model_calls_per_turn unless settings say
// otherwise: a turn that needs more is more likely a loop than work.
const DefaultMaxModelCalls = 50

// maxModelCallsLimit bounds max_model_calls_per_turn: a turn of more
// calls is a runaway whatever the person meant.
const maxModelCallsLimit = 1000

// fileBudgets is budgets as written; a key left out keeps its default.
type fileBudgets struct {
	SessionTokens  *int64   `json:"session_tokens"`
	SessionCostUSD *float64 `json:"session_cost_usd"`
	DayTokens      *int64   `json:"day_tokens"`
	DayCostUSD     *float64 `json:"day_cost_usd"`
}

func (f *fileBudgets) over(b Budgets) Budgets {
	if f == nil {
		return b
	}
	set(&b.SessionTokens, f.SessionTokens)
	set(&b.SessionCostUSD, f.SessionCostUSD)
	set(&b.DayTokens, f.DayTokens)
	set(&b.DayCostUSD, f.DayCostUSD)
	return b
}

func (s Settings) checkBudgets() error {
	if s.MaxModelCalls < 1 || s.MaxModelCalls > maxModelCallsLimit {
		return &fieldError{path: "max_model_calls_per_turn", msg: fmt.Sprintf("must be at least 1 and at most %d, not %d", maxModelCallsLimit, s.MaxModelCalls)}
	}
	tokens := []struct {
		key string
		v   int64
	}{{"session_tokens", s.Budgets.SessionTokens}, {"day_tokens", s.Budgets.DayTokens}}
	for _, t := range tokens {
		if t.v < 0 {
			return &fieldError{path: keyPath("budgets", t.key), msg: "must be a number of tokens, 0 (no limit) or more"}
		}
	}
	costs := []struct {
		key string
		v   float64
	}{{"session_cost_usd", s.Budgets.SessionCostUSD}, {"day_cost_usd", s.Budgets.DayCostUSD}}
	for _, c := range costs {
		if c.v < 0 || math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			return &fieldError{path: keyPath("budgets", c.key), msg: "must be an amount in US dollars, 0 (no limit) or more"}
		}
	}
	return nil
}
