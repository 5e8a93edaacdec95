package live

import (
	"errors"
	"strings"

	"github.com/google/uuid"

	"myco/server/event"
	"myco/server/llm"
	"myco/session"
)

// saveResponse stores a model response as an assistant message. A
// response cut by a stop keeps its text marked interrupted. One that
// failed keeps its text marked error, with why it failed in words for the
// person; a failure before any content is kept too, as an answer that is
// only its error, so a reload still shows it. Tool calls of a cut response
// are dropped: their input may be incomplete, and a call without its
// outcome would break the thread.
func (s *Session) saveResponse(msgID string, resp llm.Response, callErr error, stopped bool) error {
	content := resp.Content
	stop := resp.StopReason
	var failure *session.MessageError
	switch {
	case stopped:
		content, stop = textOnly(content), session.StopInterrupted
	case callErr != nil:
		content, stop, failure = textOnly(content), session.StopError, s.failure(callErr)
	}
	if msgID == "" || (len(content) == 0 && failure == nil) {
		if msgID != "" {
			s.publish(event.MessageDiscard{Message: msgID})
		}
		return nil
	}
	m := session.Message{
		ID: msgID, Role: "assistant", At: s.m.opts.Now().UTC(), Model: resp.Model,
		StopReason: stop, Error: failure, Content: content,
	}
	if resp.Usage.InputTokens+resp.Usage.OutputTokens > 0 || len(content) > 0 {
		usage := resp.Usage
		m.Usage = &usage
	}
	if content == nil {
		m.Content = []session.Block{}
	}
	return s.appendMessage(m)
}

// recordedError is a turn's failure already saved with its answer, so
// release does not save it again.
type recordedError struct{ error }

func (e recordedError) Unwrap() error { return e.error }

// recordFailure saves a turn's failure that no answer carries yet (a turn
// that hit its round limit, a message that could not be saved) as an
// answer that is only its error, so the page shows it after a reload too.
func (s *Session) recordFailure(err error) {
	var done recordedError
	if errors.As(err, &done) {
		return
	}
	m := session.Message{
		ID: uuid.NewString(), Role: "assistant", StopReason: session.StopError,
		Error: s.failure(err), Content: []session.Block{},
	}
	if serr := s.appendMessage(m); serr != nil {
		s.m.log.Warn("saving a turn's failure failed", "session", s.id, "failure", err, "err", serr)
	}
}

// failure says why a model call or a turn failed, for the person: a
// refused key names the variable it is read from, when the models know it.
func (s *Session) failure(err error) *session.MessageError {
	f := llm.Explain(err, s.keyEnv())
	return &session.MessageError{Kind: f.Kind, Message: f.Message, Status: f.Status, Provider: f.Provider, Details: f.Details}
}

// keyEnv gives the variable each provider's key is read from, or nil
// when the models do not say (a test's stand-in).
func (s *Session) keyEnv() func(string) string {
	if k, ok := s.m.opts.Models.(interface{ KeyEnv(string) string }); ok {
		return k.KeyEnv
	}
	return nil
}

// textOnly keeps the non-empty text blocks of a cut response.
func textOnly(blocks []session.Block) []session.Block {
	var out []session.Block
	for _, b := range blocks {
		if b.Type == session.BlockText && strings.TrimSpace(b.Text) != "" {
			out = append(out, b)
		}
	}
	return out
}

func toolUses(blocks []session.Block) []session.Block {
	var out []session.Block
	for _, b := range blocks {
		if b.Type == session.BlockToolUse {
			out = append(out, b)
		}
	}
	return out
}
