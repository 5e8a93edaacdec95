package fakellm

import (
	"fmt"
	"net/http"
)

const providerOpenAI = "openai"

// created is the fixed timestamp of every chunk, so streams are
// reproducible byte for byte.
const created = 1700000000

// handleOpenAI answers POST /v1/chat/completions.
func (s *Server) handleOpenAI(w http.ResponseWriter, r *http.Request, body []byte) {
	c, err := parseOpenAI(body)
	if err == nil && !c.stream {
		err = errStreamRequired
	}
	var prompt *openaiPrompt
	if err == nil {
		prompt, err = parseOpenAIPrompt(body)
	}
	if err != nil {
		writeOpenAIError(w, http.StatusBadRequest, err.Error())
		return
	}
	rep, err := s.plan(c)
	if err != nil {
		writeOpenAIError(w, http.StatusBadRequest, err.Error())
		return
	}
	if f := rep.fault; f != nil && f.kind == "http" {
		writeOpenAIError(w, f.status, faultMessage(f))
		return
	}
	rep.usage = rep.usage.withInput(s.cache.settleOpenAI(prompt))
	s.noteUsage(r, rep.usage)
	e := &openaiStream{sse: newSSEWriter(w), r: rep, includeUsage: c.includeUsage}
	finishStream(w, play(r.Context(), e, rep))
}

// writeOpenAIError writes the OpenAI API's error body.
func writeOpenAIError(w http.ResponseWriter, status int, msg string) {
	kind, code := "invalid_request_error", any(nil)
	switch {
	case status == 401:
		code = "invalid_api_key"
	case status == 429:
		kind, code = "requests", "rate_limit_exceeded"
	case status >= 500:
		kind = "server_error"
	}
	writeJSON(w, status, map[string]any{
		"error": map[string]any{"message": msg, "type": kind, "param": nil, "code": code},
	})
}

// openaiFinish maps Anthropic stop reasons to OpenAI finish reasons.
func openaiFinish(stop string) string {
	switch stop {
	case "end_turn", "stop_sequence":
		return "stop"
	case "tool_use":
		return "tool_calls"
	case "max_tokens":
		return "length"
	case "refusal":
		return "content_filter"
	}
	return stop
}

// openaiStream writes chat.completion.chunk events: the role, content
// deltas, tool_calls deltas (id and name first, then the arguments in
// pieces), the finish_reason, the usage chunk when asked, [DONE].
type openaiStream struct {
	sse          *sseWriter
	r            reply
	includeUsage bool
}

func (o *openaiStream) chunk(choices []any, extra map[string]any) error {
	c := map[string]any{
		"id": o.r.id, "object": "chat.completion.chunk", "created": created,
		"model": o.r.model, "system_fingerprint": "fakellm", "choices": choices,
	}
	for k, v := range extra {
		c[k] = v
	}
	return o.sse.send("", c)
}

func (o *openaiStream) delta(delta map[string]any, finish any) error {
	return o.chunk([]any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}, nil)
}

func (o *openaiStream) begin() error {
	return o.delta(map[string]any{"role": "assistant", "content": ""}, nil)
}

func (o *openaiStream) text(delta string) error {
	return o.delta(map[string]any{"content": delta}, nil)
}

func (o *openaiStream) toolStart(i int, id, name string) error {
	call := map[string]any{"index": i, "id": id, "type": "function", "function": map[string]any{"name": name, "arguments": ""}}
	return o.delta(map[string]any{"tool_calls": []any{call}}, nil)
}

func (o *openaiStream) toolDelta(i int, partialJSON string) error {
	call := map[string]any{"index": i, "function": map[string]any{"arguments": partialJSON}}
	return o.delta(map[string]any{"tool_calls": []any{call}}, nil)
}

func (o *openaiStream) finish(stop string, u usage) error {
	if err := o.delta(map[string]any{}, openaiFinish(stop)); err != nil {
		return err
	}
	if o.includeUsage {
		// OpenAI counts cached tokens inside prompt_tokens.
		prompt := u.in + u.cacheRead
		err := o.chunk([]any{}, map[string]any{"usage": map[string]any{
			"prompt_tokens": prompt, "completion_tokens": u.out, "total_tokens": prompt + u.out,
			"prompt_tokens_details": map[string]any{"cached_tokens": u.cacheRead},
		}})
		if err != nil {
			return err
		}
	}
	return o.sse.raw("data: [DONE]\n\n")
}

func (o *openaiStream) malformed() error {
	return o.sse.raw(fmt.Sprintf("data: {\"id\":%q,\"choices\":[{\"index\":0,\"delta\":\n\n", o.r.id))
}

func (o *openaiStream) streamError() error {
	return o.sse.send("", map[string]any{
		"error": map[string]any{"message": "overloaded (fakellm: injected stream error)", "type": "server_error", "param": nil, "code": "overloaded"},
	})
}
