package llm

// OutputLimit is the most a call of req may answer, in tokens: its
// MaxTokens and, when it asks for reasoning, the thinking budget that
// comes on top (reasoning is billed as output). A budget reserves it
// before the call (server/live/budget.go).
func OutputLimit(req Request) int64 {
	return int64(req.MaxTokens) + thinkingBudget(req.Think)
}
