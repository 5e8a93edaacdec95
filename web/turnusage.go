package web

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"myco/session"
)

// TurnUsageView is a turn's usage line: the tokens and cost of every
// answer of the turn, shown after its last one. The page renders it from
// the document and turn.end carries the same rendering, so a reload shows
// the line the live page showed.
type TurnUsageView struct {
	// Start is the ID of the message that began the turn: the line's key,
	// by which the tab replaces a line it already shows.
	Start string
	// After is the ID of the turn's last answer, which the line follows.
	After string
	Usage UsageView
	// Undone: /undo took the turn back; the line is hidden with it.
	Undone bool
}

// threadLines are the usage lines of thread i's turns, by the ID of the
// answer each follows. A turn begins at a message the person typed (not
// a steer, which joins the running turn), at a goal's turn, or at the
// first answer of a retry; it holds every message up to the next one. A
// turn with no usage has no line. One that a compaction cut in two (its
// first part in this thread, the rest in the successor) has its one line
// in the thread where it ends, counting both parts (turnsOf).
func threadLines(doc *session.Document, i int, price Pricer) map[string]TurnUsageView {
	lines := map[string]TurnUsageView{}
	ts := turnsOf(doc, i)
	if continuedAfter(doc, i) && len(ts) > 0 {
		ts = ts[:len(ts)-1]
	}
	for _, t := range ts {
		if v, ok := turnLine(t, doc.Model, price); ok {
			lines[v.After] = v
		}
	}
	return lines
}

// turnsOf is thread i's turns, the messages it carried from the thread
// before left out (they are counted there). When the thread was made by a
// compaction in the middle of a turn (its own messages begin with the
// agent going on, not a turn's start), its first turn is that whole turn:
// the part before the compaction, from the thread it was made from, then
// the rest.
func turnsOf(doc *session.Document, i int) [][]session.Message {
	t := &doc.Threads[i]
	own := t.Own()
	ts := turns(own)
	if len(ts) == 0 || !continuesTurn(t, own) {
		return ts
	}
	if p := predecessor(*t, i); p >= 0 && p < i {
		if before := turnsOf(doc, p); len(before) > 0 {
			ts[0] = append(slices.Clip(before[len(before)-1]), ts[0]...)
		}
	}
	return ts
}

// continuesTurn says whether a thread made by compaction begins in the
// middle of a turn: its first own message does not begin one.
func continuesTurn(t *session.Thread, own []session.Message) bool {
	return t.CompactedFrom != nil && len(own) > 0 && !beginsTurn(own[0], retriesIn(own))
}

// continuedAfter says whether a later thread carries on thread i's last
// turn, which then has its line there.
func continuedAfter(doc *session.Document, i int) bool {
	for j := i + 1; j < len(doc.Threads); j++ {
		t := &doc.Threads[j]
		if predecessor(*t, j) == i && continuesTurn(t, t.Own()) {
			return true
		}
	}
	return false
}

// turns splits msgs at the messages that begin a turn.
func turns(msgs []session.Message) [][]session.Message {
	retries := retriesIn(msgs)
	var out [][]session.Message
	start := 0
	for i, m := range msgs {
		if i > start && beginsTurn(m, retries) {
			out = append(out, msgs[start:i])
			start = i
		}
	}
	if start < len(msgs) {
		out = append(out, msgs[start:])
	}
	return out
}

// retriesIn are the answers of msgs that replaced a failed one.
func retriesIn(msgs []session.Message) map[string]bool {
	retries := map[string]bool{}
	for _, m := range msgs {
		if m.ReplacedBy != "" {
			retries[m.ReplacedBy] = true
		}
	}
	return retries
}

func beginsTurn(m session.Message, retries map[string]bool) bool {
	if m.Role == "user" {
		return (m.Human && !m.Steer) || m.Goal != nil
	}
	return retries[m.ID]
}

// turnLine is the line of one turn's messages, after the last answer
// that reported usage (not a failure's card saved after it, which has
// none: turn.end is rendered before that is saved); false when none did.
func turnLine(msgs []session.Message, sessionModel string, price Pricer) (TurnUsageView, bool) {
	v := TurnUsageView{Start: msgs[0].ID}
	for _, m := range msgs {
		if m.Role == "assistant" && m.Usage != nil {
			v.After, v.Undone = m.ID, m.Undone
		}
	}
	// Priced once per model, as the session's total is.
	v.Usage = usageByModel(session.SumByModel(msgs), sessionModel, price)
	return v, v.After != ""
}

// LastTurnUsage is the line of the session's last turn: what turn.end
// carries and /usage calls the last turn. false when that turn reported
// no usage. A thread that compaction just made holds no turn of its own
// (only the summary and the messages it carried): the last turn is then
// the one that ended in the thread it was made from.
func LastTurnUsage(doc *session.Document, price Pricer) (TurnUsageView, bool) {
	for i, hops := len(doc.Threads)-1, 0; i >= 0 && hops < len(doc.Threads); hops++ {
		if all := turnsOf(doc, i); len(all) > 0 {
			return turnLine(all[len(all)-1], doc.Model, price)
		}
		i = predecessor(doc.Threads[i], i)
	}
	return TurnUsageView{}, false
}

// predecessor is the index of the thread thread i was compacted from: the
// one it names, else the one before it.
func predecessor(t session.Thread, i int) int {
	if t.CompactedFrom != nil && *t.CompactedFrom < i {
		return *t.CompactedFrom
	}
	return i - 1
}

// RenderTurnUsage is turn.end's HTML: the last turn's usage line, or ""
// when it reported no usage.
func RenderTurnUsage(doc *session.Document, price Pricer) (string, error) {
	v, ok := LastTurnUsage(doc, price)
	if !ok {
		return "", nil
	}
	var b strings.Builder
	if err := TurnUsage(v).Render(context.Background(), &b); err != nil {
		return "", fmt.Errorf("render turn usage: %w", err)
	}
	return b.String(), nil
}

// UsageCardView is what /usage shows: the last turn's figures and the
// session's, from the document.
type UsageCardView struct {
	Turn    *UsageView // nil before the first answer
	Session UsageView
	Model   string // the session's model, "" for the default
	// SessionBudget and DayBudget are the session's budget and the
	// profile's today (budget.go); nil: not known here.
	SessionBudget, DayBudget *BudgetView
}

// NewUsageCardView is the /usage card of doc.
func NewUsageCardView(doc *session.Document, price Pricer) UsageCardView {
	v := UsageCardView{Session: sessionUsage(doc, price), Model: doc.Model}
	if t, ok := LastTurnUsage(doc, price); ok {
		v.Turn = &t.Usage
	}
	return v
}
