package live

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"myco/server/event"
	"myco/server/llm"
	"myco/session"
)

// maxRounds bounds the tool rounds of one turn: an agent stuck in a loop
// stops rather than running commands forever.
const maxRounds = 100

// runTurn runs the turn that holds slot, for the person's message human
// (just saved, or the one a retry answers again), in the background: the
// request that carried the message is answered at once.
func (s *Session) runTurn(slot *turnSlot, human string) {
	s.mu.Lock()
	s.planCard = nil // a new turn answers the plan's question
	s.mu.Unlock()
	s.publish(event.TurnStart{Turn: slot.turn, Message: human})
	s.enter(StatusThinking, "")
	s.openSteers(slot)
	slot.snapshotted = make(chan struct{})
	ended := make(chan struct{})
	// The folder before the turn (what /undo goes back to) and after it
	// (what /redo brings back): undo.go. The one before is taken beside
	// the turn, not in its way (a large folder's first snapshot reads
	// every file): nothing changes a file before a tool runs, and tools
	// wait for it (waitSnapshot). A turn that ran tools takes the one
	// after as it ends (cheap: unchanged files are trusted by their
	// stat), so a hand edit made just after it is not taken for the
	// turn's; one that ran none changed nothing, and ends without
	// waiting. snapMu keeps successive turns' snapshots in order (the next
	// turn's tools wait for this one's), and /undo waits for them too.
	s.snapping.Add(1)
	go func() {
		defer s.snapping.Done()
		s.snapMu.Lock()
		defer s.snapMu.Unlock()
		s.snapshotTurn(human, false)
		close(slot.snapshotted)
		<-ended
		if !slot.ranTools {
			s.snapshotTurn(human, true)
		}
	}()
	go func() {
		stop, usage, err := s.turnLoop(slot)
		s.closeSteers() // steers it did not take in wait for the next turn
		if slot.ranTools {
			s.snapshotTurn(human, true) // its tools waited for the one before
		}
		close(ended)
		s.release(slot, turnEnd{stop: stop, usage: usage, err: err})
		s.planReady(slot.turn, stop, err) // "Build this plan?" (plan.go)
	}()
}

// waitSnapshot waits until the folder's snapshot before the turn is taken,
// or the turn is stopped.
func waitSnapshot(ctx context.Context, slot *turnSlot) error {
	if slot.snapshotted == nil {
		return nil
	}
	select {
	case <-slot.snapshotted:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// turnLoop calls the model and runs the tools it asks for, round after
// round, until it answers, is stopped, or fails.
func (s *Session) turnLoop(slot *turnSlot) (string, session.Usage, error) {
	ctx := slot.ctx
	var total session.Usage
	var guard turnGuard // guard.go
	s.compactForModel(ctx)
	if ctx.Err() != nil { // stopped during the compaction
		return session.StopInterrupted, total, nil
	}
	// The call limit (guard.go) is what stops a long turn; maxRounds
	// stays the bound of one whose limit is set higher still.
	for range max(maxRounds, maxCalls(s.m.settings())+1) {
		if err := guard.beforeCall(s.m.settings()); err != nil {
			return session.StopError, total, err
		}
		resp, err := s.callModel(ctx, slot.nextAnswerID())
		total.Add(resp.Usage)
		if err != nil {
			return s.endFailed(ctx, resp, err, total)
		}
		s.noteContext(resp.Usage)
		uses := toolUses(resp.Content)
		slot.answer = textOfBlocks(resp.Content)
		if len(uses) == 0 {
			// A settled boundary after the answer: at most one compaction
			// per submission, and the turn ends; nothing runs by itself.
			s.autoCompact(ctx, ReasonAnswered)
			return resp.StopReason, total, nil
		}
		if err := guard.check(uses); err != nil {
			if serr := s.skipTools(uses, "myco stopped the turn"); serr != nil {
				return session.StopError, total, serr
			}
			return session.StopError, total, err
		}
		if err := waitSnapshot(ctx, slot); err != nil {
			return session.StopInterrupted, total, err
		}
		slot.ranTools = true
		if err := s.runTools(ctx, uses); err != nil {
			return session.StopInterrupted, total, err
		}
		// A settled boundary between tool rounds: compact if due, then ask
		// the agent to go on from the new thread.
		compacted := s.autoCompact(ctx, ReasonMidLoop)
		if ctx.Err() != nil { // stopped during the compaction
			return session.StopInterrupted, total, nil
		}
		if compacted {
			if err := s.appendContinue(); err != nil {
				return session.StopError, total, err
			}
		}
		// The person's /steer guidance goes in here, beside the round's
		// results, before the agent's next step.
		if err := s.takeSteers(); err != nil {
			return session.StopError, total, err
		}
	}
	return "max_rounds", total, fmt.Errorf("the turn stopped after %d tool rounds", maxRounds)
}

// endFailed decides how a failed model call ends the turn: a stop by the
// person is an interruption, anything else an error that says what failed.
func (s *Session) endFailed(ctx context.Context, resp llm.Response, err error, total session.Usage) (string, session.Usage, error) {
	if ctx.Err() != nil {
		return session.StopInterrupted, total, nil
	}
	return session.StopError, total, err
}

// nextAnswerID is the ID of the turn's next answer: a retry's first is
// chosen before the turn starts (the answers it replaces name it).
func (slot *turnSlot) nextAnswerID() string {
	id := slot.answerID
	slot.answerID = ""
	if id == "" {
		id = uuid.NewString()
	}
	return id
}

// callModel streams one response, retrying transient failures (at most
// twice, each retry shown), and saves it under msgID. A response cut by a
// stop is saved as it was, marked interrupted; one that failed for good is
// saved marked error, with why (an answer of only its error when it had no
// text).
func (s *Session) callModel(ctx context.Context, msgID string) (llm.Response, error) {
	var resp llm.Response
	err := s.withRetries(ctx, func() error {
		var err error
		resp, err = s.streamOnce(ctx, msgID)
		return err
	})
	if serr := s.saveResponse(msgID, resp, err, ctx.Err() != nil); serr != nil {
		return resp, serr
	}
	if err != nil && ctx.Err() == nil {
		err = recordedError{err} // saved with the answer: release adds nothing
	}
	return resp, err
}

// withRetries runs call, and again after a transient failure (429, 529,
// 5xx, a broken stream) after each of the RetryDelays, showing each retry.
// It is the one retry policy of every model call of a turn, compaction
// summaries included.
func (s *Session) withRetries(ctx context.Context, call func() error) error {
	for attempt := 0; ; attempt++ {
		err := call()
		if err == nil || ctx.Err() != nil {
			return err
		}
		if !llm.IsRetryable(err) || attempt >= len(s.m.opts.RetryDelays) {
			// The failure says how often myco tried again ("myco
			// retried twice; try again in a minute").
			return llm.Retried(err, attempt)
		}
		delay := s.m.opts.RetryDelays[attempt]
		// The person's words, not the SDK's: a provider's message can be
		// long, and the status is one line. The reason alone: its advice
		// ("try again in a minute") is what myco is doing.
		s.enter(StatusRetrying, fmt.Sprintf("retry %d of %d in %s: %s", attempt+1, len(s.m.opts.RetryDelays), delay, llm.Explain(err, s.keyEnv()).Reason))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
	}
}

// streamOnce makes one model call, publishing text deltas as they arrive
// and the answer's complete blocks rendered (the hub keeps both for tabs
// that (re)connect), and writing the deltas to the journal, so a crash
// keeps all but the last moment.
func (s *Session) streamOnce(ctx context.Context, msgID string) (llm.Response, error) {
	req, client, err := s.buildRequest()
	if err != nil {
		return llm.Response{}, err
	}
	model := s.turnModel() // a custom command's turn may name its model (custom.go)
	s.applyThinking(&req, model, msgID)
	// The budgets first: a call that could overspend is never sent
	// (budget.go).
	budget, err := s.reserve("turn", model, req)
	if err != nil {
		return llm.Response{}, err
	}
	s.enter(StatusThinking, "")
	s.publish(event.MessageStart{Message: msgID, Role: "assistant"})
	journaled := s.w.StartPartial(session.Message{ID: msgID, Role: "assistant", At: s.m.opts.Now().UTC(), Model: model, Content: []session.Block{}}) == nil
	// A new renderer per attempt: a retry's answer starts from nothing.
	var blocks StreamRenderer
	if s.m.opts.StreamRenderer != nil {
		blocks = s.m.opts.StreamRenderer()
	}
	writing := false
	resp, err := client.Stream(ctx, req, func(delta string) {
		if delta == "" {
			return
		}
		if !writing {
			// Thinking is while nothing is written yet: the first text
			// says the answer is being written.
			writing = true
			s.enter(StatusWriting, "")
		}
		s.publish(event.TextDelta{Message: msgID, Text: delta})
		if blocks != nil {
			// After the delta that completed them, so a tab always holds
			// the text the blocks replace.
			if html, ok := blocks.Write(delta); ok {
				s.publish(event.MessageBlocks{Message: msgID, HTML: html, Upto: blocks.Upto(), Tail: blocks.TailHTML()})
			}
		}
		if journaled {
			journaled = s.w.Delta(msgID, delta) == nil
		}
	})
	budget.settle(resp.Usage, err)
	// The answer keeps the model as the session names it ("provider/id"),
	// not as the provider echoed it (a dated snapshot, no provider): its
	// cost is figured later from that model's prices.
	resp.Model = model
	if err != nil && ctx.Err() == nil && llm.IsRetryable(err) {
		s.publish(event.MessageDiscard{Message: msgID})
	}
	return resp, err
}

// TextDelta is the payload of text.delta.
type TextDelta = event.TextDelta
