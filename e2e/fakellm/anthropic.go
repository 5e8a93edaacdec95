package fakellm

import (
	"fmt"
	"net/http"
)

const providerAnthropic = "anthropic"

// handleAnthropic answers POST /v1/messages.
func (s *Server) handleAnthropic(w http.ResponseWriter, r *http.Request, body []byte) {
	c, err := parseAnthropic(body)
	if err == nil && !c.stream {
		err = errStreamRequired
	}
	var prompt *anthropicPrompt
	if err == nil {
		prompt, err = parseAnthropicPrompt(body)
	}
	if err != nil {
		writeAnthropicError(w, http.StatusBadRequest, err.Error())
		return
	}
	rep, err := s.plan(c)
	if err != nil {
		writeAnthropicError(w, http.StatusBadRequest, err.Error())
		return
	}
	if f := rep.fault; f != nil && f.kind == "http" {
		writeAnthropicError(w, f.status, faultMessage(f))
		return
	}
	// The request reached the model: it reads and writes the cache even
	// when the stream then fails, as a real one would.
	rep.usage = rep.usage.withInput(s.cache.settleAnthropic(prompt))
	s.noteUsage(r, rep.usage)
	e := &anthropicStream{sse: newSSEWriter(w), r: rep}
	finishStream(w, play(r.Context(), e, rep))
}

// writeAnthropicError writes the Messages API's error body.
func writeAnthropicError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{
		"type":       "error",
		"error":      map[string]any{"type": anthropicErrorType(status), "message": msg},
		"request_id": "req_fake",
	})
}

func anthropicErrorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 504:
		return "timeout_error"
	case 529:
		return "overloaded_error"
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}

// anthropicStream writes the Messages streaming events: message_start,
// content blocks in index order, message_delta with the cumulative usage,
// message_stop.
type anthropicStream struct {
	sse    *sseWriter
	r      reply
	index  int  // index of the block being written
	open   bool // a block is open at index
	inText bool // the open block is a text block
}

func (a *anthropicStream) begin() error {
	u := a.r.usage
	err := a.sse.send("message_start", map[string]any{
		"type": "message_start",
		"message": map[string]any{
			"id": a.r.id, "type": "message", "role": "assistant", "model": a.r.model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]any{
				"input_tokens": u.in, "output_tokens": 1,
				"cache_read_input_tokens": u.cacheRead, "cache_creation_input_tokens": u.cacheWrite,
				"cache_creation": map[string]any{
					"ephemeral_5m_input_tokens": u.cacheWrite - u.cacheWrite1h,
					"ephemeral_1h_input_tokens": u.cacheWrite1h,
				},
			},
		},
	})
	if err != nil {
		return err
	}
	return a.sse.send("ping", map[string]any{"type": "ping"})
}

func (a *anthropicStream) text(delta string) error {
	if !a.open || !a.inText {
		if err := a.startBlock(map[string]any{"type": "text", "text": ""}); err != nil {
			return err
		}
		a.inText = true
	}
	return a.delta(map[string]any{"type": "text_delta", "text": delta})
}

func (a *anthropicStream) toolStart(_ int, id, name string) error {
	a.inText = false
	return a.startBlock(map[string]any{"type": "tool_use", "id": id, "name": name, "input": map[string]any{}})
}

func (a *anthropicStream) toolDelta(_ int, partialJSON string) error {
	return a.delta(map[string]any{"type": "input_json_delta", "partial_json": partialJSON})
}

func (a *anthropicStream) finish(stop string, u usage) error {
	if err := a.stopBlock(); err != nil {
		return err
	}
	err := a.sse.send("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{
			"input_tokens": u.in, "output_tokens": u.out,
			"cache_read_input_tokens": u.cacheRead, "cache_creation_input_tokens": u.cacheWrite,
		},
	})
	if err != nil {
		return err
	}
	return a.sse.send("message_stop", map[string]any{"type": "message_stop"})
}

func (a *anthropicStream) malformed() error {
	return a.sse.raw(fmt.Sprintf("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":%d,\"delta\":{\"type\":\"text_delta\",\"text\":\n\n", a.index))
}

func (a *anthropicStream) streamError() error {
	return a.sse.send("error", map[string]any{
		"type":  "error",
		"error": map[string]any{"type": "overloaded_error", "message": "Overloaded (fakellm: injected stream error)"},
	})
}

func (a *anthropicStream) startBlock(block map[string]any) error {
	if err := a.stopBlock(); err != nil {
		return err
	}
	a.open = true
	return a.sse.send("content_block_start", map[string]any{"type": "content_block_start", "index": a.index, "content_block": block})
}

func (a *anthropicStream) stopBlock() error {
	if !a.open {
		return nil
	}
	a.open = false
	err := a.sse.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": a.index})
	a.index++
	return err
}

func (a *anthropicStream) delta(delta map[string]any) error {
	return a.sse.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": a.index, "delta": delta})
}
