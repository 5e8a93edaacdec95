package llm

import (
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/tidwall/sjson"

	"myco/session"
)

// anthropicBody is the request's JSON, as anthropicParams would encode
// it, with the messages taken from enc where they were sent before: the
// head (model, system, tools, thinking) is encoded by the SDK with an
// empty messages array, which is then replaced by the array built from
// each message's own bytes.
//
// The breakpoints move from call to call (markEnds), so a message's
// bytes depend on whether it carries one: the variant. Only the tail
// decides that, so only the tail is converted before the cache is read.
func anthropicBody(req Request, images *imageLoader, enc *Encoded) ([]byte, error) {
	head := req
	head.Messages = nil
	p, err := anthropicParams(head, images)
	if err != nil {
		return nil, err
	}
	p.Messages = []anthropic.MessageParam{}
	body, err := p.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	mark := cacheControl(req.CacheTTL)
	tail, err := markTail(req.Messages, images, mark)
	if err != nil {
		return nil, err
	}
	variant := func(i int) string {
		if tail[i].marked {
			return "mark " + req.CacheTTL
		}
		return ""
	}
	encode := func(i int) ([]byte, bool, error) {
		t, ok := tail[i]
		if !ok {
			reads := images.reads
			var err error
			if t.param, t.sends, err = anthropicMessage(req.Messages[i], images); err != nil {
				return nil, false, err
			}
			t.images = images.reads != reads
		}
		if !t.sends {
			return []byte{}, !t.images, nil
		}
		raw, err := t.param.MarshalJSON()
		if err != nil {
			return nil, false, fmt.Errorf("encode message %s: %w", req.Messages[i].ID, err)
		}
		return raw, !t.images, nil
	}
	msgs, err := enc.encodeMessages("anthropic", req.Messages, variant, encode)
	if err != nil {
		return nil, err
	}
	return setMessages(body, msgs)
}

// converted is a message converted to the SDK's type ahead of encoding.
type converted struct {
	param  anthropic.MessageParam
	sends  bool // it has content to send
	marked bool // it carries a breakpoint
	images bool // it read an image: its bytes are not kept
}

// markTail converts the messages from the end back to the second user
// message that takes a breakpoint, and marks those two, as markEnds does
// on the whole array.
func markTail(msgs []session.Message, images *imageLoader, mark anthropic.CacheControlEphemeralParam) (map[int]converted, error) {
	tail := map[int]converted{}
	marked := 0
	for i := len(msgs) - 1; i >= 0 && marked < 2; i-- {
		reads := images.reads
		p, ok, err := anthropicMessage(msgs[i], images)
		if err != nil {
			return nil, err
		}
		c := converted{param: p, sends: ok, images: images.reads != reads}
		if ok && p.OfUser != nil {
			c.marked = markLast(p.OfUser.Content, mark)
		}
		if c.marked {
			marked++
		}
		tail[i] = c
	}
	return tail, nil
}

// setMessages puts the encoded messages array in place of the body's
// empty one: sjson finds the top-level key (never one inside a tool's
// schema) and keeps the keys' order.
func setMessages(body, msgs []byte) ([]byte, error) {
	out, err := sjson.SetRawBytes(body, "messages", msgs)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	return out, nil
}
