package llm_test

import (
	"bytes"
	"errors"
	"testing"

	"myco/e2e/fakellm"
	"myco/server/llm"
	"myco/session"
)

// switchableImages is an image store that can be made to fail, as a blob
// deleted from the disk would.
type switchableImages struct {
	llm.ImageReader
	broken bool
}

func (s *switchableImages) Read(sha string) ([]byte, session.ImageRef, error) {
	if s.broken {
		return nil, session.ImageRef{}, errors.New("blob gone")
	}
	return s.ImageReader.Read(sha)
}

// The fast path sends, byte for byte, what the SDK alone sends, over a
// scripted session: every step is one call without Encoded (the SDK's
// own encoding of the whole request) and one with the session's Encoded,
// which by then holds the earlier steps' messages. The script moves the
// breakpoints, changes a message in place, takes messages back (undo),
// changes the system prompt, the TTL and the thinking level, and holds
// images, thinking, tool rounds, empty messages and text the encoders
// escape.
func TestEncodedMatchesSDK(t *testing.T) {
	store, ref, _ := imageStore(t)
	image := session.Block{Type: session.BlockImage, SHA256: ref.SHA256, MediaType: ref.MediaType}
	answer := func(id, text string) session.Message {
		return session.Message{ID: id, Role: "assistant", Content: []session.Block{{Type: session.BlockText, Text: text}}}
	}
	user := func(id, text string, more ...session.Block) session.Message {
		m := human(text, more...)
		m.ID = id
		return m
	}
	thought := session.Message{ID: "a2", Role: "assistant", Content: []session.Block{
		{Type: session.BlockThinking, Thinking: "Let me think <a> & b.", Signature: fakellm.Signature("Let me think <a> & b.")},
		{Type: session.BlockText, Text: "Using a tool."},
		{Type: session.BlockToolUse, ID: "t1", Name: "bash", Input: []byte("{\n  \"command\": \"ls <dir>\"\n}")},
	}}
	results := session.Message{ID: "r1", Role: "user", Content: []session.Block{
		{Type: session.BlockToolResult, ToolUseID: "t1", Content: []byte(`"a\u2028b <c> & d"`)},
	}}
	imageResult := session.Message{ID: "r2", Role: "user", Content: []session.Block{
		{Type: session.BlockToolResult, ToolUseID: "t2", IsError: true, Content: []byte(`[{"type":"text","text":"shot"},{"type":"image","sha256":"` + ref.SHA256 + `"}]`)},
	}}
	imageUse := session.Message{ID: "a4", Role: "assistant", Content: []session.Block{
		{Type: session.BlockToolUse, ID: "t2", Name: "bash", Input: []byte(`{}`)},
	}}
	empty := session.Message{ID: "a0", Role: "assistant", Content: []session.Block{{Type: session.BlockText, Text: ""}}}

	base := []session.Message{user("u1", "Hello <b>&</b> \"quotes\" é ü 😀"), answer("a1", "Hi.\n\n```go\nx := 1 < 2\n```")}
	type step struct {
		name string
		edit func(r *llm.Request)
	}
	steps := []step{
		{"first call", func(r *llm.Request) { r.Messages = append(r.Messages, user("u2", "Go on.")) }},
		{"a tool round", func(r *llm.Request) { r.Messages = append(r.Messages, thought, results) }},
		{"an image from the person", func(r *llm.Request) {
			r.Messages = append(r.Messages, answer("a3", "Done."), user("u3", "Look:", image))
		}},
		{"an image from a tool", func(r *llm.Request) { r.Messages = append(r.Messages, imageUse, imageResult) }},
		{"a message that sends nothing", func(r *llm.Request) {
			r.Messages = append(r.Messages, empty, answer("a5", "Seen."), user("u4", "Next."))
		}},
		{"undo of the last turn", func(r *llm.Request) { r.Messages = r.Messages[:len(r.Messages)-2] }},
		{"a message changed in place", func(r *llm.Request) {
			r.Messages = append([]session.Message(nil), r.Messages...)
			r.Messages[2] = user("u2", "Go on, with a note.")
			r.Messages = append(r.Messages, user("u5", "Again."))
		}},
		{"one-hour cache", func(r *llm.Request) { r.CacheTTL = llm.CacheTTL1h }},
		{"plan mode's system prompt", func(r *llm.Request) { r.System += "\nPlan mode: change nothing." }},
		{"thinking on", func(r *llm.Request) {
			r.Think = "high"
			r.Messages = append(r.Messages, answer("a6", "OK."), user("u6", "More."))
		}},
		{"no system prompt", func(r *llm.Request) { r.System = "" }},
		{"a prompt cache key", func(r *llm.Request) { r.CacheKey = "session-1" }},
	}
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := fakellm.Start(t)
			images := &switchableImages{ImageReader: store}
			c := p.client(srv, images)
			req := request(base...)
			req.Tools = append(req.Tools, schemaTool)
			enc := &llm.Encoded{}
			for _, s := range steps {
				s.edit(&req)
				plain := req
				mustStream(t, c, plain)
				fast := req
				fast.Encoded = enc
				mustStream(t, c, fast)
				reqs := srv.Requests()
				want, got := reqs[len(reqs)-2].Body, reqs[len(reqs)-1].Body
				if !bytes.Equal(got, want) {
					t.Fatalf("%s: the fast path's body differs from the SDK's:\nSDK:  %s\nfast: %s", s.name, want, got)
				}
			}
			// Messages with an image are read again on every call: a blob
			// gone from the disk still fails the call, nothing sent.
			images.broken = true
			before := len(srv.Requests())
			fast := req
			fast.Encoded = enc
			if _, _, err := stream(t, c, fast); err == nil {
				t.Errorf("a call whose image cannot be read succeeded")
			}
			if n := len(srv.Requests()); n != before {
				t.Errorf("the failed call sent %d requests", n-before)
			}
		})
	}
}
