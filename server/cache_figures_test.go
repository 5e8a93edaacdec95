package server_test

import (
	"fmt"
	"testing"

	"myco/session"
)

// cacheFigures sums what a run of model calls read from the prompt cache,
// as each answer's stored usage reports it.
type cacheFigures struct {
	calls                     int
	input, read, write, total int64
}

func (f *cacheFigures) add(u session.Usage) {
	f.calls++
	f.input += u.InputTokens
	f.read += u.CacheReadInputTokens
	f.write += u.CacheCreationInputTokens
	f.total += u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
}

// hit is the share of input tokens read from the cache, in percent.
func (f cacheFigures) hit() float64 {
	if f.total == 0 {
		return 0
	}
	return 100 * float64(f.read) / float64(f.total)
}

// answersAfter are the answers of a session's latest thread after the
// first skip ones.
func answersAfter(t *testing.T, ss *session.Store, id string, skip int) (out []session.Usage) {
	t.Helper()
	doc, err := ss.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range doc.Threads[len(doc.Threads)-1].Messages {
		if m.Role != "assistant" || m.Usage == nil {
			continue
		}
		if n++; n > skip {
			out = append(out, *m.Usage)
		}
	}
	return out
}

// The figures docs/PERFORMANCE.md publishes, from the fake model's
// simulated cache: a 20-turn session with a tool round in every turn, its
// first call after a restart, and a fork's first call. After the first
// call, more than 95% of the input must come from the cache.
func TestCacheFigures(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs long sessions for their cache figures")
	}
	for _, provider := range []string{"anthropic", "openai"} {
		t.Run(provider, func(t *testing.T) {
			c := startCacheSession(t, provider, "figures")
			for i := range 20 {
				c.turn(fmt.Sprintf(`step %d [[steps: tool:bash {"command":"seq %d"} ;; text:40]]`, i+1, 5*(i+1)))
			}
			usages := answersAfter(t, c.cs.sessions, c.id, 0)
			first := usages[0]
			var run cacheFigures
			for _, u := range usages[1:] {
				run.add(u)
			}

			c.restart()
			c.turn("after the restart [[text:40]]")
			var resumed cacheFigures
			resumed.add(answersAfter(t, c.cs.sessions, c.id, len(usages))[0])

			fork := c.fork("in the fork [[text:40]]")
			var forked cacheFigures
			forked.add(answersAfter(t, c.cs.sessions, fork, len(usages)+1)[0])

			w := agentCalls(t, c.fake)[0]
			t.Logf("%s: fixed overhead: tools %d bytes, system prompt %d bytes (OpenAI: the first message)", provider, len(w.tools), len(w.system))
			t.Logf("%s: first call %d input tokens (%d written to the cache)", provider,
				first.InputTokens+first.CacheReadInputTokens+first.CacheCreationInputTokens, first.CacheCreationInputTokens)
			for _, row := range []struct {
				name string
				f    cacheFigures
			}{{"20 turns, calls after the first", run}, {"first call after a restart", resumed}, {"a fork's first call", forked}} {
				t.Logf("%s: %s: %d calls, %d input tokens, %d read (%.1f%%), %d written, %d uncached",
					provider, row.name, row.f.calls, row.f.total, row.f.read, row.f.hit(), row.f.write, row.f.input)
				if row.f.hit() < 95 {
					t.Errorf("%s: %.1f%% of input read from the cache, want over 95%%", row.name, row.f.hit())
				}
			}
		})
	}
}
