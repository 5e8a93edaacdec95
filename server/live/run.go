package live

import (
	"context"

	"myco/session"
)

// TurnResult is how a turn ended, for a caller that waits for it rather
// than watching the tabs' events: a sub-agent's parent, a schedule's run.
type TurnResult struct {
	Turn string
	// Stop is the turn's last stop reason (session.StopInterrupted for a
	// stopped turn, session.StopError for a failed one).
	Stop string
	// Answer is the text of the turn's last answer ("" when it gave none).
	Answer string
	// Usage is the turn's own, every model call of it.
	Usage session.Usage
	// Err says why the turn failed; nil for an answer or a stop.
	Err error
}

// Failed says whether the turn ended without its answer: it failed, or
// was stopped.
func (r TurnResult) Failed() bool {
	return r.Err != nil || r.Stop == session.StopInterrupted || r.Stop == session.StopError
}

// Run sends text as the session's next message and waits for its turn to
// end. It is refused with ErrTurnRunning while a turn runs (nothing is
// queued). ctx ending stops the turn, and Run returns what it had.
func (s *Session) Run(ctx context.Context, text string) (TurnResult, error) {
	slot, _, err := s.submit(text, nil, false)
	if err != nil {
		return TurnResult{}, err
	}
	select {
	case <-slot.done:
	case <-ctx.Done():
		slot.cancel()
		<-slot.done
	}
	end := slot.end
	return TurnResult{Turn: slot.turn, Stop: end.stop, Answer: slot.answer, Usage: end.usage, Err: end.err}, nil
}
