package live

import (
	"strings"

	"myco/server/event"
	"myco/server/llm"
	"myco/session"
)

// saveResponse stores a model response as an assistant message. A
// response cut by a stop keeps its text marked interrupted; one that
// failed keeps its text marked error. A failure before any content leaves
// nothing to keep. Tool calls of a cut response are dropped: their input
// may be incomplete, and a call without its outcome would break the thread.
func (s *Session) saveResponse(msgID string, resp llm.Response, callErr error, stopped bool) error {
	content := resp.Content
	stop := resp.StopReason
	switch {
	case stopped:
		content, stop = textOnly(content), session.StopInterrupted
	case callErr != nil:
		content, stop = textOnly(content), session.StopError
	}
	if msgID == "" || len(content) == 0 {
		if msgID != "" {
			s.publish(event.MessageDiscard{Message: msgID})
		}
		return nil
	}
	usage := resp.Usage
	m := session.Message{
		ID: msgID, Role: "assistant", At: s.m.opts.Now().UTC(), Model: resp.Model,
		StopReason: stop, Usage: &usage, Content: content,
	}
	return s.appendMessage(m)
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
