package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"myco/session"
)

// The request streamMessages sends is the one the SDK's NewStreaming
// sends: same path, headers and body bytes, so the prompt cache and the
// provider see no change.
func TestAnthropicStreamRequestAsTheSDKSendsIt(t *testing.T) {
	t.Parallel()
	type seen struct {
		path   string
		header http.Header
		body   []byte
	}
	var mu sync.Mutex
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, seen{r.URL.Path, r.Header.Clone(), body})
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	}))
	defer srv.Close()
	c := NewAnthropic(ProviderConfig{Name: "anthropic", BaseURL: srv.URL, APIKey: "k"}, nil).(*anthropicClient)
	for _, req := range []Request{
		{Model: "m", System: "be brief", Messages: []session.Message{{ID: "u1", Role: "user", Content: []session.Block{{Type: session.BlockText, Text: "hi"}}}},
			Tools: []Tool{{Name: "bash", Description: "Run.", InputSchema: map[string]any{"type": "object"}}}},
	} {
		params, opts, err := c.request(req)
		if err != nil {
			t.Fatal(err)
		}
		sdk := c.sdk.Messages.NewStreaming(context.Background(), params, opts...)
		for sdk.Next() {
		}
		ours := c.streamMessages(context.Background(), params, opts...)
		for ours.Next() {
		}
		if sdk.Err() != nil || ours.Err() != nil {
			t.Fatalf("streams failed: SDK %v, ours %v", sdk.Err(), ours.Err())
		}
	}
	if len(got) != 2 {
		t.Fatalf("%d requests, want 2", len(got))
	}
	sdk, ours := got[0], got[1]
	if sdk.path != ours.path || string(sdk.body) != string(ours.body) {
		t.Errorf("request differs:\nSDK  %s %s\nours %s %s", sdk.path, sdk.body, ours.path, ours.body)
	}
	if !reflect.DeepEqual(sdk.header, ours.header) {
		t.Errorf("headers differ:\nSDK  %v\nours %v", sdk.header, ours.header)
	}
}

// Each event decodes as the SDK decodes it: the deltas' fast path fills
// the fields the turn reads with what the SDK would put there, and every
// other event is the SDK's own decoding.
func TestStreamEventDecodesAsTheSDK(t *testing.T) {
	t.Parallel()
	for _, data := range []string{
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`,
		`{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"caf\u00e9 \"q\"\n\ud83d\ude00"}}`,
		`{"delta":{"text":"order","type":"text_delta"},"index":1,"type":"content_block_delta"}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"thinking_delta","thinking":"Let me see."}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"command\":"}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"signature_delta","signature":"c2ln"}}`,
		`{"type":"content_block_delta","index":"x","delta":{"type":"text_delta","text":"odd index"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"one","text":"two"}}`,
		`{"Type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"cased"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"more","extra":[1,{"a":null}]},"future":true}`,
		`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"usage":{"input_tokens":5,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}`,
		`{"type":"message_stop"}`,
	} {
		var want anthropic.MessageStreamEventUnion
		wantErr := json.Unmarshal([]byte(data), &want)
		var got streamEvent
		gotErr := json.Unmarshal([]byte(data), &got)
		if (wantErr == nil) != (gotErr == nil) {
			t.Errorf("%s: error %v, SDK's %v", data, gotErr, wantErr)
			continue
		}
		if fast(want) {
			ev := got.MessageStreamEventUnion
			if ev.Type != want.Type || ev.Index != want.Index || ev.Delta.Type != want.Delta.Type || ev.Delta.Text != want.Delta.Text || ev.Delta.Thinking != want.Delta.Thinking {
				t.Errorf("%s:\n got %q %d %q %q %q\nwant %q %d %q %q %q", data,
					ev.Type, ev.Index, ev.Delta.Type, ev.Delta.Text, ev.Delta.Thinking,
					want.Type, want.Index, want.Delta.Type, want.Delta.Text, want.Delta.Thinking)
			}
			continue
		}
		if !reflect.DeepEqual(got.MessageStreamEventUnion, want) {
			t.Errorf("%s: decoded otherwise than the SDK:\n got %+v\nwant %+v", data, got.MessageStreamEventUnion, want)
		}
	}
}

// fast reports whether ev is a delta that Stream gathers itself.
func fast(ev anthropic.MessageStreamEventUnion) bool {
	return ev.Type == "content_block_delta" && (ev.Delta.Type == "text_delta" || ev.Delta.Type == "thinking_delta")
}

// A text delta costs the few bytes of its fields, not the SDK's maps.
func TestTextDeltaDecodesCheaply(t *testing.T) {
	// Not parallel: testing.Benchmark counts the whole process.
	data := []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" streaming"}}`)
	// One event decoded in place again and again, as the SDK's Stream
	// decodes into its current event.
	ours := testing.Benchmark(func(b *testing.B) {
		ev := new(streamEvent)
		for b.Loop() {
			*ev = streamEvent{}
			if err := json.Unmarshal(data, ev); err != nil {
				b.Fatal(err)
			}
		}
	})
	sdk := testing.Benchmark(func(b *testing.B) {
		ev := new(anthropic.MessageStreamEventUnion)
		for b.Loop() {
			*ev = anthropic.MessageStreamEventUnion{}
			if err := json.Unmarshal(data, ev); err != nil {
				b.Fatal(err)
			}
		}
	})
	t.Logf("a text delta: %d B, %d allocations (the SDK's decoding: %d B, %d)", ours.AllocedBytesPerOp(), ours.AllocsPerOp(), sdk.AllocedBytesPerOp(), sdk.AllocsPerOp())
	if raceEnabled {
		return // its instrumentation allocates on its own
	}
	if ours.AllocedBytesPerOp() > 512 {
		t.Errorf("a text delta allocates %d bytes, want at most 512", ours.AllocedBytesPerOp())
	}
}

// A streamed answer costs a few hundred bytes a delta through Stream, all
// of it: the deltas go through the cheap decoding, not the SDK's 2.5 KB.
func TestStreamedDeltasCostLittle(t *testing.T) {
	// Not parallel: testing.Benchmark counts the whole process.
	const deltas = 2000
	var body strings.Builder
	body.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n")
	body.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	for i := range deltas {
		fmt.Fprintf(&body, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" word%d\"}}\n\n", i)
	}
	body.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
	body.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2000}}\n\n")
	body.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	answer := []byte(body.String())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(answer)
	}))
	defer srv.Close()
	c := NewAnthropic(ProviderConfig{Name: "anthropic", BaseURL: srv.URL, APIKey: "k"}, nil).(*anthropicClient)
	req := Request{Model: "m", Messages: []session.Message{{ID: "u1", Role: "user", Content: []session.Block{{Type: session.BlockText, Text: "hi"}}}}}
	var failed error
	r := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			n := 0
			if _, err := c.Stream(context.Background(), req, func(string) { n++ }); err != nil || n != deltas {
				failed = fmt.Errorf("stream: %v, %d deltas of %d", err, n, deltas)
				b.FailNow()
			}
		}
	})
	if failed != nil {
		t.Fatal(failed)
	}
	per := r.AllocedBytesPerOp() / deltas
	t.Logf("%d bytes a delta through Stream (%d a stream of %d)", per, r.AllocedBytesPerOp(), deltas)
	if !raceEnabled && per > 1024 {
		t.Errorf("a streamed delta costs %d bytes, want at most 1 KB (the SDK's decoding alone is 2.5 KB)", per)
	}
}
