package live

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"myco/server/llm"
	"myco/session"
)

// maxRounds bounds the tool rounds of one turn: an agent stuck in a loop
// stops rather than running commands forever.
const maxRounds = 100

// runTurn runs the turn that holds slot, for the message just saved, in the
// background: the request that carried the message is answered at once.
func (s *Session) runTurn(slot turnSlot, human session.Message) {
	s.publish("turn.start", map[string]string{"turn": slot.turn, "message": human.ID})
	go func() {
		defer close(slot.done)
		stop, usage, err := s.turnLoop(slot.ctx)
		s.finishTurn(slot.turn, stop, usage, err)
		slot.cancel()
	}()
}

// turnLoop calls the model and runs the tools it asks for, round after
// round, until it answers, is stopped, or fails.
func (s *Session) turnLoop(ctx context.Context) (string, session.Usage, error) {
	var total session.Usage
	for range maxRounds {
		resp, err := s.callModel(ctx)
		addUsage(&total, resp.Usage)
		if err != nil {
			return s.endFailed(ctx, resp, err, total)
		}
		s.noteContext(resp.Usage)
		uses := toolUses(resp.Content)
		if len(uses) == 0 {
			// A settled boundary after the answer: at most one compaction
			// per submission, and the turn ends; nothing runs by itself.
			s.autoCompact(ctx, ReasonAnswered)
			return resp.StopReason, total, nil
		}
		if err := s.runTools(ctx, uses); err != nil {
			return session.StopInterrupted, total, err
		}
		// A settled boundary between tool rounds: compact if due, then ask
		// the agent to go on from the new thread.
		if s.autoCompact(ctx, ReasonMidLoop) {
			if err := s.appendContinue(); err != nil {
				return session.StopError, total, err
			}
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

// finishTurn frees the turn slot, tells the tabs how the turn ended and
// hands the slot straight to the next queued message, if any, so nothing
// can start in between. A session that is closing starts nothing.
func (s *Session) finishTurn(turn, stop string, usage session.Usage, err error) {
	s.mu.Lock()
	s.turn, s.cancel, s.partial = "", nil, nil
	s.status, s.detail = StatusIdle, ""
	// The session's total is derived from the document, so the tab's live
	// figure and the page's agree (carried messages counted once).
	sessionUsage := s.doc.Usage()
	for id, a := range s.approvals {
		delete(s.approvals, id)
		close(a.decided)
	}
	var next *Queued
	var slot turnSlot
	if !s.closing {
		if next = s.popQueued(); next != nil {
			slot = s.claimLocked()
		}
	}
	needTitle := s.doc.Title == "" && stop != session.StopError && !s.closing
	s.mu.Unlock()
	if err != nil && stop != session.StopInterrupted {
		s.publish("turn.error", map[string]string{"turn": turn, "error": err.Error()})
	}
	s.publish("turn.end", map[string]any{"turn": turn, "stop_reason": stop, "usage": usageOf(usage), "session_usage": usageOf(sessionUsage)})
	s.publish("status", map[string]string{"status": StatusIdle})
	if needTitle {
		go s.makeTitle()
	}
	if next != nil {
		s.startQueued(slot, next)
	}
}

// startQueued saves a message that waited and runs its turn in the slot
// already claimed for it.
func (s *Session) startQueued(slot turnSlot, next *Queued) {
	m, err := s.appendHuman(next.Text, next.Images, next.ID)
	if err != nil {
		s.releaseSlot(slot)
		s.publish("turn.error", map[string]string{"error": "queued message not sent: " + err.Error()})
		return
	}
	s.publish("queued", map[string]any{"queued": s.Snapshot().Queued})
	s.runTurn(slot, m)
}

// popQueued is the next queued message, which leaves the queue when its
// message is saved; s.mu is held, and the caller claims the turn slot for
// it, so nothing else takes it meanwhile.
func (s *Session) popQueued() *Queued {
	if len(s.doc.Queued) == 0 {
		return nil
	}
	q := s.doc.Queued[0]
	return &q
}

// callModel streams one response, retrying transient failures (at most
// twice, each retry shown), and saves it. A response cut by a stop is
// saved as it was, marked interrupted; one that failed for good is saved
// marked error when it had any text.
func (s *Session) callModel(ctx context.Context) (llm.Response, error) {
	for attempt := 0; ; attempt++ {
		resp, msgID, err := s.streamOnce(ctx)
		if err == nil || ctx.Err() != nil || !llm.IsRetryable(err) || attempt >= len(s.m.opts.RetryDelays) {
			if serr := s.saveResponse(msgID, resp, err, ctx.Err() != nil); serr != nil {
				return resp, serr
			}
			return resp, err
		}
		delay := s.m.opts.RetryDelays[attempt]
		s.setStatus(StatusRetrying, fmt.Sprintf("retry %d of %d in %s after: %v", attempt+1, len(s.m.opts.RetryDelays), delay, err))
		select {
		case <-ctx.Done():
			return llm.Response{}, ctx.Err()
		case <-time.After(delay):
		}
	}
}

// streamOnce makes one model call, publishing text deltas as they arrive
// and keeping them as the partial message for tabs that (re)connect.
func (s *Session) streamOnce(ctx context.Context) (llm.Response, string, error) {
	req, client, err := s.buildRequest()
	if err != nil {
		return llm.Response{}, "", err
	}
	msgID := uuid.NewString()
	s.mu.Lock()
	s.partial = &partial{Message: msgID}
	p := s.partial
	s.mu.Unlock()
	s.setStatus(StatusThinking, "")
	s.publish("message.start", map[string]string{"message": msgID, "role": "assistant"})
	resp, err := client.Stream(ctx, req, func(delta string) {
		if delta == "" {
			return
		}
		s.mu.Lock()
		p.text.WriteString(delta)
		s.mu.Unlock()
		s.publish("text.delta", TextDelta{Message: msgID, Text: delta})
	})
	if resp.Model == "" {
		resp.Model = req.Model
	}
	s.mu.Lock()
	s.partial = nil
	s.mu.Unlock()
	if err != nil && ctx.Err() == nil && llm.IsRetryable(err) {
		s.publish("message.discard", map[string]string{"message": msgID})
	}
	return resp, msgID, err
}

// TextDelta is the payload of text.delta; the event hub merges consecutive
// ones of a message when a tab falls behind.
type TextDelta struct {
	Message string `json:"message"`
	Text    string `json:"text"`
}
