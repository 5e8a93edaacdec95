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

// sessionUsage is the session's token total, as session.Document.Usage
// counts it.
func sessionUsage(doc *session.Document) UsageView {
	u := doc.Usage()
	return UsageView{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadInputTokens, CacheWrite: u.CacheCreationInputTokens}
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
