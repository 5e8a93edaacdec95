package web

import (
	"strconv"
	"strings"

	"myco/session"
)

// UsageView is token accounting as the page shows it: the session total in
// the side panel (static/chat.js keeps it current from turn.end and adds a
// cost estimate) and each turn's footer.
type UsageView struct {
	Input      int64
	Output     int64
	CacheRead  int64
	CacheWrite int64
}

// sessionUsage adds up the usage of every response in doc. A message
// carried into a successor thread by compaction appears in both threads
// under one ID and is counted once.
func sessionUsage(doc *session.Document) UsageView {
	var u UsageView
	seen := map[string]bool{}
	for _, t := range doc.Threads {
		for _, m := range t.Messages {
			if m.Usage == nil || (m.ID != "" && seen[m.ID]) {
				continue
			}
			seen[m.ID] = true
			u.Input += m.Usage.InputTokens
			u.Output += m.Usage.OutputTokens
			u.CacheRead += m.Usage.CacheReadInputTokens
			u.CacheWrite += m.Usage.CacheCreationInputTokens
		}
	}
	return u
}

// Text is the usage in one line: "in 1,234 · out 56 · cache 1,000". Cache
// figures appear only when there are some; static/chat.js writes the same.
func (u UsageView) Text() string {
	parts := []string{"in " + groupDigits(u.Input), "out " + groupDigits(u.Output)}
	if u.CacheRead > 0 || u.CacheWrite > 0 {
		parts = append(parts, "cache "+groupDigits(u.CacheRead))
	}
	if u.CacheWrite > 0 {
		parts = append(parts, "cache write "+groupDigits(u.CacheWrite))
	}
	return strings.Join(parts, " · ")
}

// groupDigits writes n with commas between groups of three digits.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + b.String()
}

func int64Attr(n int64) string { return strconv.FormatInt(n, 10) }
