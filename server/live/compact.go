package live

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"myco/internal/errkind"
	"myco/server/event"
	"myco/server/llm"
	"myco/session"
)

// compactPrompt asks the model for the summary a successor thread starts
// from; it is kept in the repository as its own file to be read and tuned.
//
//go:embed prompts/compact.md
var compactPrompt string

// continueNote is said to the agent when a compaction happened in the
// middle of its tool loop, so the turn goes on where it stood.
const continueNote = "The conversation was compacted to fit the context window: the summary above and the recent messages are what you have. Continue the task where you left off."

// Compaction reasons.
const (
	ReasonManual   = "manual"
	ReasonMidLoop  = "context limit reached between tool rounds"
	ReasonAnswered = "context limit reached after an answer"
	// ReasonModel: the conversation is already over the threshold of the
	// model the turn runs on (a switch to a smaller context window).
	ReasonModel = "the conversation is over this model's context limit (a model with a smaller window)"
)

// Errors of compaction.
var (
	ErrNothingToCompact = errkind.New(errkind.Invalid, "nothing to compact: the thread is empty")
)

// Compact makes a successor thread now, at the person's request. It holds
// the turn slot, so a message sent meanwhile is refused or queued, and
// /stop cancels it. Success turns automatic compaction back on. focus, when
// not empty, is what the person asked the summary to keep (/compact TEXT).
func (s *Session) Compact(focus string) error {
	s.mu.Lock()
	if err := s.refuseLocked(); err != nil {
		s.mu.Unlock()
		return err
	}
	if s.slot != nil {
		s.mu.Unlock()
		return ErrTurnRunning
	}
	slot := s.claimLocked(slotCompaction)
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(slot.ctx, 10*time.Minute)
	err := s.compact(ctx, ReasonManual, focus)
	cancel()
	if err != nil && slot.ctx.Err() != nil {
		err = ErrStopped // by the person: not a failure of the model
	}
	if err == nil {
		s.mu.Lock()
		s.autoOff = ""
		s.mu.Unlock()
	}
	s.release(slot, turnEnd{err: err})
	return err
}

// autoCompact compacts at a settled boundary when the context has reached
// the model's threshold and automatic compaction is on. A failed or
// ineffective compaction turns it off for this live session, with the
// reason shown in the tab. It reports whether a new thread was made.
func (s *Session) autoCompact(ctx context.Context, reason string) bool {
	s.mu.Lock()
	threshold := s.threshold()
	due := threshold > 0 && s.autoOff == "" && s.contextUsed >= threshold
	s.mu.Unlock()
	if !due {
		return false
	}
	err := s.compact(ctx, reason, "")
	switch {
	case ctx.Err() != nil:
		return false
	case errors.Is(err, ErrBudget):
		// Not the compaction's fault: it runs again once the budget is
		// raised, and the turn's next call says what is spent (budget.go).
		return false
	case err != nil:
		s.turnAutoOff("the last compaction failed: " + err.Error())
		return false
	}
	if est := s.estimateContext(); est >= threshold {
		s.turnAutoOff(fmt.Sprintf("the last compaction left about %d tokens, over the threshold of %d", est, threshold))
	} else {
		s.publishContext() // the new thread's estimate (a manual one's release tells it)
	}
	return true
}

// compactForModel compacts before a turn's first call when the
// conversation is already over the threshold of the model it runs on: the
// person switched to a model with a smaller context window (or its window
// in settings shrank), and the call would fail at the provider. The last
// call's size is the measure, or the thread's estimate in a process that
// has made none.
func (s *Session) compactForModel(ctx context.Context) {
	s.mu.Lock()
	used := s.contextUsed
	s.mu.Unlock()
	if used == 0 {
		used = s.estimateContext()
	}
	s.mu.Lock()
	threshold := s.threshold()
	due := threshold > 0 && used >= threshold
	if due {
		s.contextUsed = used
	}
	s.mu.Unlock()
	if due {
		s.autoCompact(ctx, ReasonModel)
	}
}

func (s *Session) turnAutoOff(reason string) {
	s.mu.Lock()
	s.autoOff = reason
	s.mu.Unlock()
	s.publishContext()
}

// compact writes a successor thread: the model's summary of the latest
// thread plus its most recent messages, never a tool call without its
// outcome. The new thread is saved in one atomic write of the document
// that only appends it: the predecessor is never edited, and a failure at
// any step leaves the session as it was.
func (s *Session) compact(ctx context.Context, reason, focus string) error {
	s.publish(event.CompactionStart{Reason: reason})
	s.enter(StatusCompacting, reason)
	var idx, summarised int
	var thread session.Thread
	s.mu.Lock()
	budget := carryBudget(s.threshold())
	s.mu.Unlock()
	s.w.View(func(d *session.Document) {
		idx = len(d.Threads) - 1
		thread = d.Threads[idx]
		summarised = len(thread.Messages)
		thread.Messages = seen(thread.Messages)
	})
	next, err := s.successor(ctx, idx, thread, budget, focus)
	if err == nil {
		err = s.w.AppendThread(idx, summarised, next)
	}
	if err != nil {
		s.publish(event.CompactionEnd{Thread: idx, Error: err.Error()})
		return err
	}
	s.mu.Lock()
	// Unknown until the next call reports it; meanwhile the gauge shows
	// the new thread's estimate (contextView), never 0.
	s.contextUsed = 0
	s.mu.Unlock()
	s.publish(event.ThreadNew{Thread: idx + 1})
	s.publish(event.CompactionEnd{Thread: idx + 1, OK: true, Summary: next.Summary, Carried: next.Carried})
	return nil
}

func (s *Session) successor(ctx context.Context, idx int, t session.Thread, budget int, focus string) (session.Thread, error) {
	if len(t.Messages) == 0 {
		return session.Thread{}, ErrNothingToCompact
	}
	summary, err := s.summarize(ctx, t, focus)
	if err != nil {
		return session.Thread{}, fmt.Errorf("summary: %w", err)
	}
	carried := recentContext(t.Messages, budget)
	from := idx
	return session.Thread{
		CreatedAt: s.m.opts.Now().UTC(), CompactedFrom: &from, Summary: summary,
		Carried: len(carried), Messages: carried,
	}, nil
}

// summarize asks fast_model or the session's model (summaryModel) for
// the summary of a thread, sent as a transcript in which images are only
// named: compaction never reads image bytes. focus goes into the
// instructions (summaryPrompt).
func (s *Session) summarize(ctx context.Context, t session.Thread, focus string) (string, error) {
	text := transcript(t)
	m, err := s.summaryModel(text)
	if err != nil {
		return "", err
	}
	// Retried like every model call of a turn: one transient failure must
	// not turn automatic compaction off.
	var resp llm.Response
	err = s.withRetries(ctx, func() error {
		var err error
		resp, err = s.stream(ctx, "summary", m.name, m.client, llm.Request{
			Model: m.id, System: summaryPrompt(focus), MaxTokens: summaryMaxTokens,
			Messages: []session.Message{{Role: "user", Content: []session.Block{{Type: session.BlockText, Text: text}}}},
		}, func(string) {})
		return err
	})
	if err != nil {
		return "", err
	}
	s.enter(StatusCompacting, "")
	summary := strings.TrimSpace(textOf(resp.Content))
	if summary == "" {
		return "", errors.New("the model returned an empty summary")
	}
	return summary, nil
}

// summaryPrompt is the summary's instructions: compactPrompt, and what the
// person asked it to keep, in a tag of its own so it reads as their words,
// not as the transcript's.
func summaryPrompt(focus string) string {
	focus = strings.TrimSpace(focus)
	if focus == "" {
		return compactPrompt
	}
	return compactPrompt + "\n\nThe person asked that the summary keep this above all, in full and verbatim where it names things:\n<keep>" + focus + "</keep>\n"
}

// model is the session's model, else the settings' default: the one
// fallback of every model call.
func (s *Session) model() string {
	var model string
	s.w.View(func(d *session.Document) { model = d.ModelOr(s.m.defaultModel()) })
	return model
}

// threshold is the automatic compaction threshold of the session's model
// (0: off); s.mu is held.
func (s *Session) threshold() int {
	if s.m.opts.Limits == nil {
		return 0
	}
	return s.m.opts.Limits(s.model()).CompactAt
}

// estimateContext guesses the size of the latest thread as the next call
// will send it.
func (s *Session) estimateContext() int {
	var n int
	s.w.View(func(d *session.Document) { n = d.Threads[len(d.Threads)-1].Estimate() })
	return n + session.EstimateText(systemPrompt) + session.EstimateText(s.instructionsText())
}

// carryBudget is how many tokens of recent messages a successor carries:
// a quarter of the threshold, at most 20,000.
func carryBudget(threshold int) int {
	if threshold <= 0 {
		return 20000
	}
	return min(threshold/4, 20000)
}

// recentContext picks the most recent messages that fit the budget (at
// least the last one), then makes sure the first is not the outcome of a
// tool call left behind: its call comes along, so no call is ever cut from
// its outcome. A carried part may start with the agent's message; the
// summary is sent before it as the person's.
func recentContext(msgs []session.Message, budget int) []session.Message {
	start, used := len(msgs), 0
	for i := len(msgs) - 1; i >= 0; i-- {
		cost := session.EstimateTokens(msgs[i])
		if start < len(msgs) && used+cost > budget {
			break
		}
		used += cost
		start = i
	}
	if start < len(msgs) && start > 0 && hasToolResults(msgs[start]) {
		start--
	}
	return append([]session.Message(nil), msgs[start:]...)
}

func hasToolResults(m session.Message) bool {
	for _, b := range m.Content {
		if b.Type == session.BlockToolResult {
			return true
		}
	}
	return false
}
