package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/go-json-experiment/json/jsontext"

	"myco/session"
)

// AnthropicBaseURL is where the Messages API lives unless settings say
// otherwise.
const AnthropicBaseURL = "https://api.anthropic.com"

// defaultMaxTokens bounds an answer when the request does not: every model
// myco knows can write this much.
const defaultMaxTokens = 8192

type anthropicClient struct {
	name   string
	sdk    anthropic.Client
	images ImageReader
	idle   time.Duration // see ProviderConfig.StreamIdle
}

var _ Client = (*anthropicClient)(nil)

// NewAnthropic returns a client of the Anthropic Messages API at
// cfg.BaseURL (without /v1), sending cfg.APIKey when it is set. It reads
// nothing from the process environment: settings and the caller's getenv
// decide everything, so tests cannot pick up a real key or base URL.
func NewAnthropic(cfg ProviderConfig, images ImageReader) Client {
	if cfg.Name == "" {
		cfg.Name = ProviderAnthropic
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = AnthropicBaseURL
	}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithHTTPClient(httpClient()),
		// The SDK wants the root; a base URL copied from an OpenAI-style
		// setting often ends in /v1, which would double it.
		option.WithBaseURL(strings.TrimSuffix(strings.TrimSuffix(cfg.BaseURL, "/"), "/v1")),
		// The turn loop retries, so that each retry is shown in the tab.
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	return &anthropicClient{name: cfg.Name, sdk: anthropic.NewClient(opts...), images: images, idle: streamIdle(cfg)}
}

// Stream sends req and streams the answer, text deltas to onText.
func (c *anthropicClient) Stream(ctx context.Context, req Request, onText func(string)) (Response, error) {
	params, opts, err := c.request(req)
	if err != nil {
		return Response{}, &Error{Provider: c.name, Err: err}
	}
	parent := ctx
	ctx, unwatch := watch(ctx, c.idle)
	defer unwatch()
	stream := c.streamMessages(ctx, params, opts...)
	defer stream.Close()
	var acc anthropic.Message
	// Text and thinking deltas are gathered here rather than by
	// Accumulate, which copies the whole text so far on every delta: a
	// long answer then costs quadratic time, and the stream's tail waits
	// for it.
	g := gathered{texts: map[int64]*strings.Builder{}, thoughts: map[int64]*strings.Builder{}, timers: map[int64]*thinkingTimer{}}
	started, complete := false, false
	for stream.Next() {
		ev := stream.Current().MessageStreamEventUnion
		started = true
		if ev.Type == "content_block_delta" && (ev.Delta.Type == "text_delta" || ev.Delta.Type == "thinking_delta") {
			if err := g.add(&acc, ev, onText, req.OnThinking); err != nil {
				return partialAnthropic(&acc, &g, req), &Error{Provider: c.name, Err: err}
			}
			continue
		}
		if ev.Type == "content_block_stop" {
			if t := g.timers[ev.Index]; t != nil {
				t.done()
			}
		}
		if err := acc.Accumulate(ev); err != nil {
			return partialAnthropic(&acc, &g, req), &Error{Provider: c.name, Err: fmt.Errorf("malformed stream: %w", err)}
		}
		complete = complete || ev.Type == "message_stop"
	}
	if err := stream.Err(); err != nil {
		if silent(parent, ctx) {
			return partialAnthropic(&acc, &g, req), silentError(c.name, ctx)
		}
		return partialAnthropic(&acc, &g, req), c.classify(parent, err, started)
	}
	if !complete {
		return partialAnthropic(&acc, &g, req), &Error{Provider: c.name, Retryable: true, Err: errIncomplete}
	}
	g.flush(&acc)
	return anthropicResponse(&acc, req, &g)
}

// request is what Stream hands the SDK: the params, and with
// req.Encoded the whole body built from the messages' kept bytes
// (anthropicBody), which replaces the params' encoding. The params then
// hold no messages: the SDK still encodes them, but that is the small
// head of the request.
func (c *anthropicClient) request(req Request) (anthropic.MessageNewParams, []option.RequestOption, error) {
	images := newImageLoader(c.images)
	if req.Encoded == nil {
		p, err := anthropicParams(req, images)
		return p, nil, err
	}
	body, err := anthropicBody(req, images, req.Encoded)
	if err != nil {
		return anthropic.MessageNewParams{}, nil, err
	}
	head := req
	head.Messages = nil
	p, err := anthropicParams(head, images)
	return p, []option.RequestOption{option.WithRequestBody("application/json", body)}, err
}

// gathered holds the text and thinking deltas of a streaming message, by
// block index, and how long each thinking block took.
type gathered struct {
	texts, thoughts map[int64]*strings.Builder
	timers          map[int64]*thinkingTimer
}

// add takes a text or thinking delta, which must belong to a block of
// its kind, and passes it on.
func (g *gathered) add(acc *anthropic.Message, ev anthropic.MessageStreamEventUnion, onText, onThinking func(string)) error {
	kind, into, delta, pass := "text", g.texts, ev.Delta.Text, onText
	if ev.Delta.Type == "thinking_delta" {
		kind, into, delta, pass = "thinking", g.thoughts, ev.Delta.Thinking, onThinking
	}
	if ev.Index < 0 || ev.Index >= int64(len(acc.Content)) || acc.Content[ev.Index].Type != kind {
		return fmt.Errorf("malformed stream: %s delta for block %d, which is not a %s block", kind, ev.Index, kind)
	}
	if kind == "thinking" {
		t := g.timers[ev.Index]
		if t == nil {
			t = &thinkingTimer{}
			g.timers[ev.Index] = t
		}
		t.thinking()
	}
	b := into[ev.Index]
	if b == nil {
		b = &strings.Builder{}
		into[ev.Index] = b
	}
	b.WriteString(delta)
	if pass != nil {
		pass(delta)
	}
	return nil
}

// flush puts what was gathered from deltas into its blocks.
func (g *gathered) flush(acc *anthropic.Message) {
	for i, b := range g.texts {
		acc.Content[i].Text += b.String()
		b.Reset()
	}
	for i, b := range g.thoughts {
		acc.Content[i].Thinking += b.String()
		b.Reset()
	}
}

// thinking converts a thinking or redacted_thinking block.
func (g *gathered) thinking(i int, b anthropic.ContentBlockUnion) session.Block {
	if b.Type == session.BlockRedactedThinking {
		return session.Block{Type: session.BlockRedactedThinking, Data: b.Data}
	}
	out := session.Block{Type: session.BlockThinking, Thinking: b.Thinking, Signature: b.Signature}
	if t := g.timers[int64(i)]; t != nil {
		out.DurationMS = t.ms()
	}
	return out
}

// classify maps an SDK error. An `error` event inside a 200 stream carries
// its HTTP meaning only in its type, so that type picks the status.
func (c *anthropicClient) classify(ctx context.Context, err error, started bool) *Error {
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) {
		return classify(ctx, c.name, err, 0, started)
	}
	status := apiErr.StatusCode
	if status < 400 {
		status = anthropicErrorStatus(string(apiErr.Type()))
	}
	if status == 0 && ctx.Err() == nil {
		// An error event whose type has no transient meaning: the server
		// refused the request, and would again.
		return &Error{Provider: c.name, Err: err}
	}
	return classify(ctx, c.name, err, status, started)
}

// anthropicErrorStatus is the HTTP status the API gives an error type.
func anthropicErrorStatus(errorType string) int {
	switch errorType {
	case "overloaded_error":
		return 529
	case "rate_limit_error":
		return 429
	case "api_error":
		return 500
	case "timeout_error":
		return 504
	}
	return 0
}

// anthropicResponse converts a complete message.
func anthropicResponse(acc *anthropic.Message, req Request, g *gathered) (Response, error) {
	r := anthropicMeta(acc, req)
	r.StopReason = string(acc.StopReason)
	for i, b := range acc.Content {
		switch b.Type {
		case session.BlockThinking, session.BlockRedactedThinking:
			r.Content = append(r.Content, g.thinking(i, b))
		case "text":
			r.Content = appendText(r.Content, b.Text)
		case "tool_use":
			block, err := anthropicToolUse(b)
			if err != nil {
				return r, &Error{Provider: ProviderAnthropic, Err: err}
			}
			r.Content = append(r.Content, block)
		}
	}
	return r, nil
}

func anthropicToolUse(b anthropic.ContentBlockUnion) (session.Block, error) {
	input := b.Input
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	if !json.Valid(input) {
		return session.Block{}, fmt.Errorf("malformed stream: tool_use %s input is not JSON", b.ID)
	}
	return session.Block{Type: session.BlockToolUse, ID: b.ID, Name: b.Name, Input: jsontext.Value(input)}, nil
}

// partialAnthropic keeps the text and thinking of a message cut short.
// Its tool calls are dropped: their input may be incomplete, and an
// unanswered tool_use stored in the thread would fail every later call.
// A thinking block cut before its signature is kept for the page only
// (the API takes back signed thinking alone).
func partialAnthropic(acc *anthropic.Message, g *gathered, req Request) Response {
	g.flush(acc)
	r := anthropicMeta(acc, req)
	for i, b := range acc.Content {
		switch b.Type {
		case "text":
			r.Content = appendText(r.Content, b.Text)
		case session.BlockThinking, session.BlockRedactedThinking:
			r.Content = append(r.Content, g.thinking(i, b))
		}
	}
	return r
}

func anthropicMeta(acc *anthropic.Message, req Request) Response {
	r := Response{Model: string(acc.Model), Usage: session.Usage{
		InputTokens:              acc.Usage.InputTokens,
		OutputTokens:             acc.Usage.OutputTokens,
		CacheReadInputTokens:     acc.Usage.CacheReadInputTokens,
		CacheCreationInputTokens: acc.Usage.CacheCreationInputTokens,
	}}
	// The split by lifetime comes with message_start; a 1-hour write costs
	// more than a 5-minute one. Never more than the whole.
	c, total := acc.Usage.CacheCreation, acc.Usage.CacheCreationInputTokens
	r.Usage.CacheCreation1hInputTokens = min(c.Ephemeral1hInputTokens, total)
	r.Usage.CacheCreation5mInputTokens = min(c.Ephemeral5mInputTokens, total-r.Usage.CacheCreation1hInputTokens)
	if r.Model == "" {
		r.Model = req.Model
	}
	return r
}

// appendText appends a text block unless it is empty: the API refuses
// empty text blocks when the message is sent back.
func appendText(blocks []session.Block, text string) []session.Block {
	if text == "" {
		return blocks
	}
	return append(blocks, session.Block{Type: session.BlockText, Text: text})
}
