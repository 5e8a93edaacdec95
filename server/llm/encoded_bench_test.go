package llm

import (
	"fmt"
	"strings"
	"testing"

	"myco/session"
)

// BenchmarkRequestBody builds the body of a call at the end of a
// 1,000-message thread (~700 KB): "sdk" encodes the whole request
// through the SDK, as every call did before Encoded; "encoded" is a
// session's call with its Encoded warm, one turn (a question and its
// answer) on from the call before.
func BenchmarkRequestBody(b *testing.B) {
	const n = 1000
	msgs := make([]session.Message, n)
	word := strings.Repeat("lorem ipsum <dolor> sit amet ", 24) // ~700 bytes
	for i := range msgs {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs[i] = session.Message{ID: fmt.Sprint(i), Role: role, Content: []session.Block{{Type: session.BlockText, Text: word}}}
	}
	req := Request{Model: "m", System: "You are a test.", Messages: msgs, MaxTokens: 1024}
	b.Run("sdk", func(b *testing.B) {
		for b.Loop() {
			p, err := anthropicParams(req, newImageLoader(nil))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := p.MarshalJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoded", func(b *testing.B) {
		enc := &Encoded{}
		shorter := req
		shorter.Messages = msgs[:n-2]
		i := 0
		for b.Loop() {
			r := req
			if i%2 == 0 {
				r = shorter
			}
			i++
			if _, err := anthropicBody(r, newImageLoader(nil), enc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
