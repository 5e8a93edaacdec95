package crash

import (
	"fmt"
	"time"
	"unicode/utf8"
)

// loss is what a kill cost one streaming answer.
type loss struct {
	received int           // characters the client had received
	chars    int           // characters of those not in the session
	span     time.Duration // from the first lost character's arrival to the kill
}

// measureLoss compares the text kept with what the client received. It
// fails when the kept text does not stand for a start of the received
// text (coveredBy: a redaction marker stands for the secret it hides, and
// kept text may run past the received text), or lacks text received more
// than lostWindow before the kill.
func measureLoss(a *answer, kept string, killAt time.Time) (loss, error) {
	received := a.text()
	l := loss{received: utf8.RuneCountInString(received)}
	upto, ok := coveredBy(received, kept)
	if !ok {
		l.chars = l.received
		if len(a.deltas) > 0 {
			l.span = killAt.Sub(a.deltas[0].at)
		}
		return l, fmt.Errorf("the text kept (%d characters, %q) is not a prefix of the text received (%d characters)",
			utf8.RuneCountInString(kept), clip(kept), l.received)
	}
	// The session may keep more than the client received: myco writes the
	// text as it streams (a finished answer durably) while the events are
	// still on their way to the tab, so a kill can land between the two.
	l.chars = l.received - utf8.RuneCountInString(received[:upto])
	end := 0
	for _, d := range a.deltas {
		end += len(d.text)
		if end > upto {
			l.span = max(killAt.Sub(d.at), 0)
			break
		}
	}
	due := a.receivedBy(killAt.Add(-lostWindow))
	if upto < len(due) {
		return l, fmt.Errorf("kept %d of %d characters: lost %d characters, %s of text, more than %s",
			utf8.RuneCountInString(received[:upto]), l.received, l.chars, l.span.Round(time.Millisecond), lostWindow)
	}
	return l, nil
}

// lossStats sums up the losses of a run.
type lossStats struct {
	n                  int
	meanChars, maxChar int
	meanSpan, maxSpan  time.Duration
	keptNone           int
}

func summarize(ls []loss) lossStats {
	var st lossStats
	st.n = len(ls)
	if st.n == 0 {
		return st
	}
	var chars int
	var span time.Duration
	for _, l := range ls {
		chars += l.chars
		span += l.span
		st.maxChar = max(st.maxChar, l.chars)
		st.maxSpan = max(st.maxSpan, l.span)
		if l.chars == l.received {
			st.keptNone++
		}
	}
	st.meanChars = chars / st.n
	st.meanSpan = span / time.Duration(st.n)
	return st
}

func (st lossStats) String() string {
	if st.n == 0 {
		return "no answer was streaming at a kill"
	}
	return fmt.Sprintf("%d answers, lost mean %d / max %d characters, mean %s / max %s of text, %d kept nothing",
		st.n, st.meanChars, st.maxChar, st.meanSpan.Round(time.Millisecond), st.maxSpan.Round(time.Millisecond), st.keptNone)
}
