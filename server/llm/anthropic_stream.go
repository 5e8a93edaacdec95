package llm

import (
	"context"
	"net/http"
	"slices"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"
	"github.com/go-json-experiment/json"
)

// streamMessages is the SDK's Messages.NewStreaming with one change: its
// events decode as streamEvent. The request goes through the same
// client, options and path, with stream set as NewStreaming sets it, so
// its bytes are the same (TestAnthropicStreamRequestAsTheSDKSendsIt);
// the SDK's own SSE decoder and Stream read the answer, errors included.
// Left out are what myco does not use: the user-profile and workspace
// headers, and the OpenTelemetry span attributes.
func (c *anthropicClient) streamMessages(ctx context.Context, params anthropic.MessageNewParams, opts ...option.RequestOption) *ssestream.Stream[streamEvent] {
	var raw *http.Response
	opts = append(slices.Clip(opts), option.WithJSONSet("stream", true)) // never into the caller's array
	err := c.sdk.Post(ctx, "v1/messages", params, &raw, opts...)
	return ssestream.NewStream[streamEvent](ssestream.NewDecoder(raw), err)
}

// streamEvent is one event of a streamed answer. The text and thinking
// deltas, nearly every event of an answer, are read into the four fields
// the turn uses; every other event is the SDK's union as the SDK decodes
// it. The SDK's decoder builds a map for each JSON object and keeps each
// field's raw JSON: about 2.7 KB for a delta of a few bytes, which was
// most of a turn's allocations (BenchmarkBurstTailEndToEnd) and what ran
// the collector under the soft limit while 20 turns streamed at once.
type streamEvent struct {
	anthropic.MessageStreamEventUnion
}

// textDeltaEvent is a content_block_delta event with the fields of its
// text_delta and thinking_delta variants.
type textDeltaEvent struct {
	Type  string `json:"type"`
	Index int64  `json:"index"`
	Delta struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Thinking string `json:"thinking"`
	} `json:"delta"`
}

func (e *streamEvent) UnmarshalJSON(data []byte) error {
	var d textDeltaEvent
	if json.Unmarshal(data, &d) == nil && d.Type == "content_block_delta" &&
		(d.Delta.Type == "text_delta" || d.Delta.Type == "thinking_delta") {
		e.MessageStreamEventUnion = anthropic.MessageStreamEventUnion{Type: d.Type, Index: d.Index}
		e.Delta.Type, e.Delta.Text, e.Delta.Thinking = d.Delta.Type, d.Delta.Text, d.Delta.Thinking
		return nil
	}
	return e.MessageStreamEventUnion.UnmarshalJSON(data)
}
