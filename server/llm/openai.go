package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"myco/session"
)

type openaiClient struct {
	name   string
	sdk    openai.ChatCompletionService
	models openai.ModelService // GET /v1/models, for /model's list
	images ImageReader
	// official is api.openai.com, which takes max_completion_tokens; the
	// local servers (Ollama, llama.cpp, vLLM) know max_tokens.
	official bool
	idle     time.Duration // see ProviderConfig.StreamIdle
	// pdfTexts keeps the text of attached PDFs for servers that cannot
	// read PDFs (files.go).
	pdfTexts *pdfTexts
}

// loader reads one request's blobs: PDFs as file parts on api.openai.com,
// as their extracted text elsewhere.
func (c *openaiClient) loader() *imageLoader {
	l := newImageLoader(c.images)
	l.pdfTexts, l.pdfParts = c.pdfTexts, c.official
	return l
}

var _ Client = (*openaiClient)(nil)

// NewOpenAI returns a chat completions client for an OpenAI-compatible
// server at cfg.BaseURL, which includes /v1 (http://127.0.0.1:11434/v1 for
// Ollama). Without cfg.APIKey no Authorization header is sent.
//
// It builds the chat completions service alone rather than openai.NewClient,
// which would read OPENAI_API_KEY, OPENAI_BASE_URL and more from the process
// environment: settings and the caller's getenv decide everything here.
func NewOpenAI(cfg ProviderConfig, images ImageReader) Client {
	if cfg.Name == "" {
		cfg.Name = ProviderOpenAI
	}
	opts := []option.RequestOption{
		option.WithHTTPClient(httpClient()),
		option.WithBaseURL(cfg.BaseURL),
		// The turn loop retries, so that each retry is shown in the tab.
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	return &openaiClient{
		name:     cfg.Name,
		sdk:      openai.NewChatCompletionService(opts...),
		models:   openai.NewModelService(opts...),
		images:   images,
		official: isOfficialOpenAI(cfg.BaseURL),
		idle:     streamIdle(cfg),
		pdfTexts: newPDFTexts(),
	}
}

func isOfficialOpenAI(baseURL string) bool {
	u, err := url.Parse(baseURL)
	return err == nil && u.Hostname() == "api.openai.com"
}

// Stream sends req and streams the answer, text deltas to onText.
func (c *openaiClient) Stream(ctx context.Context, req Request, onText func(string)) (Response, error) {
	params, opts, err := c.request(req)
	if err != nil {
		return Response{}, &Error{Provider: c.name, Err: err}
	}
	parent := ctx
	ctx, unwatch := watch(ctx, c.idle)
	defer unwatch()
	stream := c.sdk.NewStreaming(ctx, params, opts...)
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	var th reasoning
	started := false
	for stream.Next() {
		chunk := stream.Current()
		if !acc.AddChunk(chunk) {
			return c.partial(&acc, &th, req), &Error{Provider: c.name, Err: errors.New("malformed stream: a chunk does not follow the ones before it")}
		}
		started = true
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			th.add(ch.Delta, req.OnThinking)
			if ch.Delta.Content != "" && onText != nil {
				onText(ch.Delta.Content)
			}
		}
	}
	if err := stream.Err(); err != nil {
		if silent(parent, ctx) {
			return c.partial(&acc, &th, req), silentError(c.name, ctx)
		}
		return c.partial(&acc, &th, req), c.classify(parent, err, started)
	}
	// A stream that stops without a finish_reason was cut, however
	// cleanly it closed.
	if len(acc.Choices) == 0 || acc.Choices[0].FinishReason == "" {
		return c.partial(&acc, &th, req), &Error{Provider: c.name, Retryable: true, Err: errIncomplete}
	}
	return c.response(&acc, &th, req), nil
}

// request is what Stream hands the SDK: the params, and with
// req.Encoded the whole body built from the messages' kept bytes
// (openaiBody), which replaces the params' encoding; the params then
// hold no messages (the SDK still encodes that small head).
func (c *openaiClient) request(req Request) (openai.ChatCompletionNewParams, []option.RequestOption, error) {
	if req.Encoded != nil {
		body, ok, err := c.openaiBody(req, c.loader(), req.Encoded)
		if err != nil {
			return openai.ChatCompletionNewParams{}, nil, err
		}
		if ok {
			p, err := c.paramsWith(req, nil)
			return p, []option.RequestOption{option.WithRequestBody("application/json", body)}, err
		}
	}
	p, err := c.params(req)
	return p, nil, err
}

// reasoning gathers what an OpenAI-compatible server streams of the
// model's reasoning. The official API sends none in chat completions, and
// the SDK has no field for it; compatible servers put it in a delta field
// of its own: reasoning_content (DeepSeek, vLLM, llama.cpp) or reasoning
// (Ollama, OpenRouter), read here from the delta's extra fields.
type reasoning struct {
	text  strings.Builder
	timer thinkingTimer
}

func (r *reasoning) add(d openai.ChatCompletionChunkChoiceDelta, onThinking func(string)) {
	delta := ""
	for _, key := range []string{"reasoning_content", "reasoning"} {
		if f, ok := d.JSON.ExtraFields[key]; ok && json.Unmarshal([]byte(f.Raw()), &delta) == nil && delta != "" {
			break
		}
	}
	if delta == "" {
		if d.Content != "" || len(d.ToolCalls) > 0 {
			r.timer.done()
		}
		return
	}
	r.timer.thinking()
	r.text.WriteString(delta)
	if onThinking != nil {
		onThinking(delta)
	}
}

// block is the reasoning as a thinking block with no signature: shown and
// kept, never sent back (these servers do not take it back).
func (r *reasoning) block() (session.Block, bool) {
	if r.text.Len() == 0 {
		return session.Block{}, false
	}
	return session.Block{Type: session.BlockThinking, Thinking: r.text.String(), DurationMS: r.timer.ms()}, true
}

// classify maps an SDK error. An error object inside the stream (a
// *ssestream.StreamError) is the server giving up mid-answer: a broken
// stream.
func (c *openaiClient) classify(ctx context.Context, err error, started bool) *Error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		// The SDK's message is the status alone; the server's own words
		// ("model 'x' not found") are what the person needs.
		if apiErr.Message != "" {
			err = fmt.Errorf("%w: %s", err, apiErr.Message)
		}
		return classify(ctx, c.name, err, apiErr.StatusCode, started)
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		return classify(ctx, c.name, err, 0, true)
	}
	return classify(ctx, c.name, err, 0, started)
}

// response converts the accumulated completion. Whether the model called
// tools is read from the message, not from finish_reason: Ollama ends tool
// calls with "stop".
func (c *openaiClient) response(acc *openai.ChatCompletionAccumulator, th *reasoning, req Request) Response {
	r := c.partial(acc, th, req)
	choice := acc.Choices[0]
	for i, call := range choice.Message.ToolCalls {
		r.Content = append(r.Content, session.Block{
			Type:  session.BlockToolUse,
			ID:    toolCallID(acc.ID, i, call.ID),
			Name:  call.Function.Name,
			Input: toolArguments(call.Function.Arguments),
		})
	}
	r.StopReason = stopReason(choice.FinishReason)
	if len(choice.Message.ToolCalls) > 0 {
		r.StopReason = "tool_use"
	}
	return r
}

// partial keeps the text and usage of a completion that may be cut short;
// its tool calls are dropped, as partialAnthropic explains.
func (c *openaiClient) partial(acc *openai.ChatCompletionAccumulator, th *reasoning, req Request) Response {
	u := acc.Usage
	cached := u.PromptTokensDetails.CachedTokens
	r := Response{Model: acc.Model, Usage: session.Usage{
		// OpenAI counts cached tokens inside prompt_tokens; Anthropic, whose
		// shape the document keeps, counts them apart.
		InputTokens:          u.PromptTokens - cached,
		OutputTokens:         u.CompletionTokens,
		CacheReadInputTokens: cached,
	}}
	if r.Model == "" {
		r.Model = req.Model
	}
	if b, ok := th.block(); ok {
		r.Content = append(r.Content, b)
	}
	if len(acc.Choices) > 0 {
		r.Content = appendText(r.Content, acc.Choices[0].Message.Content)
	}
	return r
}

// stopReason maps finish_reason to the Anthropic words the document keeps.
func stopReason(finish string) string {
	switch finish {
	case "stop":
		return "end_turn"
	case "tool_calls", "function_call":
		return "tool_use"
	case "length":
		return "max_tokens"
	case "content_filter":
		return "refusal"
	}
	return finish
}

// toolCallID returns the call's ID, or one made up from the completion when
// a local server sends none: a tool result must name its call.
func toolCallID(completionID string, i int, id string) string {
	if id != "" {
		return id
	}
	return fmt.Sprintf("call_%s_%d", completionID, i)
}

// toolArguments returns the call's arguments as the input object. Small
// local models sometimes write arguments that are not a JSON object; they
// are kept as a string under "invalid_arguments", so the tool refuses them
// with an error the model can read and correct.
func toolArguments(args string) jsontext.Value {
	if args == "" {
		return jsontext.Value("{}")
	}
	var obj map[string]any
	if json.Unmarshal([]byte(args), &obj) == nil && obj != nil {
		return jsontext.Value(args)
	}
	wrapped, _ := json.Marshal(map[string]string{"invalid_arguments": args})
	return jsontext.Value(wrapped)
}
