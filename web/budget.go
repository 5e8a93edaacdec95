package web

import "strings"

// BudgetView is one budget as /usage shows it (settings budgets.*): what
// it was charged, reservations in flight included, and its limits (0:
// none).
type BudgetView struct {
	Tokens       int64
	CostUSD      float64
	LimitTokens  int64
	LimitCostUSD float64
}

// Text is the budget in words: "$0.42 of $2.00 used, $1.58 left" (and
// the same of tokens when they are bounded), or what was used when
// nothing is bounded.
func (b BudgetView) Text() string {
	var parts []string
	if b.LimitCostUSD > 0 {
		parts = append(parts, formatUSD(b.CostUSD)+" of "+formatUSD(b.LimitCostUSD)+" used, "+formatUSD(max(0, b.LimitCostUSD-b.CostUSD))+" left")
	}
	if b.LimitTokens > 0 {
		parts = append(parts, groupDigits(b.Tokens)+" of "+groupDigits(b.LimitTokens)+" tokens used, "+groupDigits(max(0, b.LimitTokens-b.Tokens))+" left")
	}
	if len(parts) == 0 {
		return "no limit (" + formatUSD(b.CostUSD) + " used)"
	}
	return strings.Join(parts, " · ")
}
