package web

import (
	"errors"
	"net/url"
	"strconv"

	"myco/session"
)

// DefaultRecentLimit is how many messages of a thread a page or a "Load
// earlier" fragment shows at once.
const DefaultRecentLimit = 100

// PageRecentLimit is how many messages of the latest thread a session
// page opens with: a few screens above the composer. Everything the page
// holds is parsed, styled and laid out before the page can be used (a
// session of 1,000 messages opened with 100 of them spent a long task of
// 67 ms there); older ones come with "Load earlier", which a reader who
// scrolls up to it gets without a click (static/earlier.js).
const PageRecentLimit = 30

// ErrNoThread means a fragment asked for a thread the session does not have.
var ErrNoThread = errors.New("no such thread")

// MessagesFragmentView is a run of consecutive messages of one thread and,
// when messages before them remain, the control that loads those.
type MessagesFragmentView struct {
	SessionID string
	Thread    int
	Start     int // index in the thread of the first message of the run
	Messages  []MessageView
}

// HasEarlier reports whether messages before this run remain to be loaded.
func (f MessagesFragmentView) HasEarlier() bool { return f.Start > 0 }

// EarlierURL is the fragment of the messages before this run.
func (f MessagesFragmentView) EarlierURL() string {
	return messagesURL(f.SessionID, f.Thread, f.Start)
}

func messagesURL(id string, thread, before int) string {
	q := url.Values{}
	q.Set("thread", strconv.Itoa(thread))
	q.Set("before", strconv.Itoa(before))
	return SessionURL(id) + "/messages?" + q.Encode()
}

// MessagesFragment returns up to limit messages of thread that come before
// index before (a negative before, or one past the end, means the end; a
// limit of 0 or less means DefaultRecentLimit). A run never starts with the
// results of a call it leaves out: it reaches back to take the call too, so
// a call and its outcome always show together.
//
// Each turn's usage line follows its last answer, its cost at price.
func MessagesFragment(doc *session.Document, thread, before, limit int, price Pricer) (MessagesFragmentView, error) {
	if thread < 0 || thread >= len(doc.Threads) {
		return MessagesFragmentView{}, ErrNoThread
	}
	return newFragment(doc.ID, thread, doc.Threads[thread].Messages, before, limit, threadLines(doc, thread, price)), nil
}

func newFragment(sessionID string, thread int, msgs []session.Message, before, limit int, lines map[string]TurnUsageView) MessagesFragmentView {
	if before < 0 || before > len(msgs) {
		before = len(msgs)
	}
	if limit <= 0 {
		limit = DefaultRecentLimit
	}
	start := max(before-limit, 0)
	for start > 0 && onlyToolResults(msgs[start]) {
		start--
	}
	return MessagesFragmentView{
		SessionID: sessionID,
		Thread:    thread,
		Start:     start,
		Messages:  messageViews(sessionID, msgs[start:before], lines),
	}
}

func onlyToolResults(m session.Message) bool {
	for _, b := range m.Content {
		if b.Type != session.BlockToolResult {
			return false
		}
	}
	return len(m.Content) > 0
}

// messageViews builds the views of a run of messages, showing each tool
// result with its call. A message left with nothing to show once its results
// moved (the usual user message of tool results) is left out.
//
// lines are the thread's turn usage lines (turnLines): each goes on the
// view of the answer it follows.
func messageViews(sessionID string, msgs []session.Message, lines map[string]TurnUsageView) []MessageView {
	results := toolResults(msgs)
	taken := map[string]bool{}
	views := make([]MessageView, 0, len(msgs))
	for _, m := range msgs {
		v, paired := newMessageView(sessionID, m, results)
		for _, id := range paired {
			taken[id] = true
		}
		if line, ok := lines[m.ID]; ok && m.ID != "" {
			v.TurnUsage = &line
		}
		views = append(views, v)
	}
	out := views[:0]
	for _, v := range views {
		had := len(v.Blocks)
		v.Blocks = dropTaken(v.Blocks, taken)
		if had > 0 && len(v.Blocks) == 0 && v.StopMarker() == "" {
			continue
		}
		out = append(out, v)
	}
	return out
}

// toolResults indexes the tool results of a run by the call they answer.
func toolResults(msgs []session.Message) map[string]*ToolResultView {
	results := map[string]*ToolResultView{}
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == session.BlockToolResult && b.ToolUseID != "" {
				results[b.ToolUseID] = newToolResultView(b)
			}
		}
	}
	return results
}

// dropTaken removes the results now shown beside their calls.
func dropTaken(blocks []BlockView, taken map[string]bool) []BlockView {
	kept := blocks[:0:0]
	for _, b := range blocks {
		if b.Kind == KindResult && taken[b.Result.ToolUseID] {
			continue
		}
		kept = append(kept, b)
	}
	return kept
}
