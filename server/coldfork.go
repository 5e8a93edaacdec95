package server

import (
	"fmt"
	"strings"
	"time"

	"myco/profiles"
	"myco/session"
)

// A fork's first request repeats its parent's conversation, which the
// provider's prompt cache holds only for a while after the parent's last
// model call (5 minutes, or an hour with Anthropic's cache_ttl 1h). Past
// that, the fork pays full price for the whole conversation once: the
// fork's page and `myco run --fork-from` say so before it does.

// defaultCacheLife is how long a provider other than Anthropic with a
// one-hour cache keeps a prefix, at least (OpenAI: 5 to 10 minutes).
const defaultCacheLife = 5 * time.Minute

// cacheLife is how long the prompt cache of a model's provider keeps a
// conversation after its last request.
func cacheLife(st profiles.Settings, model string) time.Duration {
	if strings.HasPrefix(model, "anthropic/") && st.CacheTTL == profiles.CacheTTL1h {
		return time.Hour
	}
	return defaultCacheLife
}

// coldForkNote says, for a fork that has not called its model yet and
// carries some of its parent's conversation, that its first request will
// not find the parent's cache; "" when it likely will, or when it does
// not apply (a sub-agent, a parent gone or never answered).
func (s *Server) coldForkNote(fork *session.Document) string {
	p := fork.Parent
	if p == nil || fork.IsSubagent() || p.Message == "" || fork.Model == "" {
		return ""
	}
	for i := p.Thread; i < len(fork.Threads); i++ {
		for _, m := range fork.Written(i) {
			if m.Role == "assistant" {
				return "" // it ran: its own calls made their own cache
			}
		}
	}
	parent, err := s.opts.Sessions.Load(p.Session)
	if err != nil {
		return ""
	}
	last := parent.LastAnswerAt()
	if last.IsZero() {
		return ""
	}
	life := cacheLife(s.settings(), fork.Model)
	ago := s.opts.Now().Sub(last)
	if ago <= life {
		return ""
	}
	return fmt.Sprintf("Its parent's last model call was %s ago, and the prompt cache keeps a conversation for %s after one: this fork's first request pays full price for the conversation it carries, once.",
		roughDuration(ago), roughDuration(life))
}

// roughDuration is d as people say it: "5 minutes", "3 hours", "2 days".
func roughDuration(d time.Duration) string {
	unit := func(n int, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %ss", n, one)
	}
	switch {
	case d < time.Hour:
		return unit(max(int(d.Round(time.Minute)/time.Minute), 1), "minute")
	case d < 48*time.Hour:
		return unit(int(d.Round(time.Hour)/time.Hour), "hour")
	}
	return unit(int(d/(24*time.Hour)), "day")
}
