package llm

import (
	"bytes"
	"fmt"

	"github.com/openai/openai-go/v3"

	"myco/session"
)

// openaiBody is the request's JSON, as params would encode it, with the
// messages taken from enc where they were sent before (anthropicBody
// says how). The system prompt is the array's first message here, kept
// like the others. ok is false when the request sends no message at all:
// params omits the key then, and the caller takes the plain path.
func (c *openaiClient) openaiBody(req Request, images *imageLoader, enc *Encoded) (body []byte, ok bool, err error) {
	// The system prompt as message 0, so that its bytes are kept too.
	msgs := make([]session.Message, 0, len(req.Messages)+1)
	msgs = append(msgs, session.Message{Role: "system", Content: []session.Block{{Type: session.BlockText, Text: req.System}}})
	msgs = append(msgs, req.Messages...)
	marks := c.breakpoints(req)
	encode := func(i int) ([]byte, bool, error) {
		reads := images.reads
		var conv []openai.ChatCompletionMessageParamUnion
		if i == 0 {
			if req.System != "" {
				conv = append(conv, systemMessage(req.System, marks))
			}
		} else {
			var err error
			if conv, err = openaiMessage(msgs[i], images, marks); err != nil {
				return nil, false, err
			}
		}
		raws := make([][]byte, len(conv))
		for j, m := range conv {
			raw, err := m.MarshalJSON()
			if err != nil {
				return nil, false, fmt.Errorf("encode message %s: %w", msgs[i].ID, err)
			}
			raws[j] = raw
		}
		return bytes.Join(raws, []byte{','}), images.reads == reads, nil
	}
	// Every message carries a breakpoint or none does: the variant is the
	// request's, so kept bytes of the other kind are never reused.
	variant := ""
	if marks {
		variant = "marks"
	}
	array, err := enc.encodeMessages("openai", msgs, func(int) string { return variant }, encode)
	if err != nil {
		return nil, false, err
	}
	if string(array) == "[]" {
		return nil, false, nil
	}
	p, err := c.paramsWith(req, []openai.ChatCompletionMessageParamUnion{})
	if err != nil {
		return nil, false, err
	}
	head, err := p.MarshalJSON()
	if err != nil {
		return nil, false, fmt.Errorf("encode request: %w", err)
	}
	body, err = setMessages(head, array)
	return body, err == nil, err
}
