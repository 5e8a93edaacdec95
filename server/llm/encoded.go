package llm

import (
	"reflect"
	"sync"

	"myco/session"
)

// Encoded keeps, between the calls of one conversation, the JSON each of
// its messages was sent as, so that a call encodes only the messages that
// are new (or changed) and copies the rest. Without it every call
// re-encodes the whole history through the SDK's reflective encoder,
// which made the request side of a turn grow with the thread (docs/
// PERFORMANCE.md, "Issue 21: memory and turn overhead"). The bytes sent
// are the SDK's own for each message, so the request is byte for byte
// what the SDK alone would send (TestEncodedMatchesSDK), and the prompt
// cache still matches.
//
// A live session holds one for its life; the zero value is ready. It is
// safe for concurrent use, though a session makes one call at a time.
type Encoded struct {
	mu sync.Mutex
	// format is the encoding the entries are in (the provider's kind):
	// a session whose model moves to another provider starts afresh.
	format  string
	entries []encodedMessage
}

// encodedMessage is one message of the request as it was last sent:
// what its bytes depend on (its role, its blocks, and the variant: the
// cache marker it carried) and the bytes, without the comma between
// messages. raw is empty for a message that sends nothing.
type encodedMessage struct {
	role    string
	content []session.Block
	variant string
	raw     []byte
}

// encodeMessages returns the JSON array of msgs, reusing the bytes of the
// entries that still match. encode gives one message's bytes and whether
// they may be kept: a message that reads an image is encoded on every
// call, so a blob that went missing still fails the call as it did.
// variant(i) says what else message i's bytes depend on.
func (e *Encoded) encodeMessages(format string, msgs []session.Message, variant func(i int) string,
	encode func(i int) (raw []byte, keep bool, err error)) ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.format != format {
		e.format, e.entries = format, nil
	}
	size := 2
	raws := make([][]byte, len(msgs))
	for i, m := range msgs {
		v := variant(i)
		if i < len(e.entries) && e.entries[i].matches(m, v) {
			raws[i] = e.entries[i].raw
		} else {
			raw, keep, err := encode(i)
			if err != nil {
				return nil, err
			}
			raws[i] = raw
			entry := encodedMessage{role: m.Role, content: m.Content, variant: v, raw: raw}
			if !keep {
				entry = encodedMessage{} // matches nothing: encoded again next time
			}
			e.set(i, entry)
		}
		size += len(raws[i]) + 1
	}
	// Entries past the end belong to messages no longer sent (an undone
	// turn, a side question's own message).
	e.entries = e.entries[:min(len(e.entries), len(msgs))]
	out := make([]byte, 0, size)
	out = append(out, '[')
	first := true
	for _, raw := range raws {
		if len(raw) == 0 {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		out, first = append(out, raw...), false
	}
	return append(out, ']'), nil
}

func (e *Encoded) set(i int, entry encodedMessage) {
	for len(e.entries) <= i {
		e.entries = append(e.entries, encodedMessage{})
	}
	e.entries[i] = entry
}

// matches reports whether m, carrying variant, would be encoded as the
// entry was. The blocks are compared field by field (reflect.DeepEqual,
// so a field added to session.Block is compared too); the strings of a
// message held in the document are the same memory from call to call,
// so the comparison costs a pointer check per field, not a byte walk.
func (x *encodedMessage) matches(m session.Message, variant string) bool {
	return x.raw != nil && x.role == m.Role && x.variant == variant && reflect.DeepEqual(x.content, m.Content)
}
