package live

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"myco/server/event"
	"myco/session"
)

// btwTimeout bounds a side question: it holds no slot, so nothing else
// would end a call that hangs.
const btwTimeout = 5 * time.Minute

// btwNote tells the model what a side question is.
const btwNote = `The person's last message is a side question (/btw): answer it briefly from the conversation so far, in Markdown, without calling any tool. Your answer is shown apart and is not part of the conversation; the task in progress goes on separately.`

// Btw answers a side question from the conversation so far, without
// adding either to it: a separate model call on a copy of the request,
// streamed to the tabs as btw.* events, never saved, never sent to the
// model again, and never in the way of a running turn (it takes no slot and
// changes no status). Its tokens are not added to the session's usage,
// which counts the document; btw.end says what it used. It returns the
// question's ID at once; the answer streams.
func (s *Session) Btw(question string) (string, error) {
	question = strings.TrimSpace(question)
	if question == "" {
		return "", ErrEmptyMessage
	}
	s.mu.Lock()
	err := s.refuseLocked()
	s.mu.Unlock()
	if err != nil {
		return "", err
	}
	req, client, err := s.buildRequest()
	if err != nil {
		return "", err
	}
	model := s.model()
	// The note rides with the question, not in the system prompt: the
	// side call then shares the session's cached prefix (tools, system
	// prompt, the thread so far) and pays for the question alone.
	req.Messages = normalize(append(settled(req.Messages), session.Message{
		Role: "user", Content: []session.Block{
			{Type: session.BlockText, Text: contextText(session.Note{Text: btwNote})},
			{Type: session.BlockText, Text: question},
		},
	}))
	id := uuid.NewString()
	s.publish(event.BtwStart{ID: id, Question: question})
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), btwTimeout)
		defer cancel()
		resp, err := s.stream(ctx, "btw", model, client, req, func(delta string) {
			if delta != "" {
				s.publish(event.BtwDelta{ID: id, Text: delta})
			}
		})
		end := event.BtwEnd{ID: id, Usage: usageOf(resp.Usage)}
		if err != nil {
			end.Error = err.Error()
		}
		if text := textOfBlocks(resp.Content); text != "" && s.m.opts.Render != nil {
			m := session.Message{ID: id, Role: "assistant", Content: []session.Block{{Type: session.BlockText, Text: text}}}
			if end.HTML, err = s.m.opts.Render(s.id, m); err != nil {
				s.m.log.Warn("render side answer failed", "session", s.id, "err", err)
			}
		}
		s.publish(end)
	}()
	return id, nil
}

// settled is a copy of msgs that a provider takes in the middle of a turn:
// without the tool calls that have no result yet (a round still running)
// and results whose call is gone.
func settled(msgs []session.Message) []session.Message {
	used, answered := map[string]bool{}, map[string]bool{}
	for _, m := range msgs {
		for _, b := range m.Content {
			switch b.Type {
			case session.BlockToolUse:
				used[b.ID] = true
			case session.BlockToolResult:
				answered[b.ToolUseID] = true
			}
		}
	}
	out := make([]session.Message, 0, len(msgs))
	for _, m := range msgs {
		content := make([]session.Block, 0, len(m.Content))
		for _, b := range m.Content {
			if (b.Type == session.BlockToolUse && !answered[b.ID]) || (b.Type == session.BlockToolResult && !used[b.ToolUseID]) {
				continue
			}
			content = append(content, b)
		}
		m.Content = content
		out = append(out, m)
	}
	return out
}

// textOfBlocks is the text of an answer's text blocks.
func textOfBlocks(blocks []session.Block) string {
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == session.BlockText {
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}
