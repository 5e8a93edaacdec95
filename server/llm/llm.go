// Package llm calls language models: one Client interface with an
// Anthropic Messages implementation and an OpenAI-compatible chat
// completions one (OpenAI, Ollama, llama.cpp, vLLM), both on the official
// SDKs and both streaming.
package llm

import (
	"context"
	"errors"
	"fmt"

	"myco/internal/errkind"
	"myco/session"
)

// Tool is a tool the model may call, described by a JSON schema.
type Tool struct {
	Name        string
	Description string
	InputSchema map[string]any
}

// Request is one model call. Messages are the thread as stored: image
// blocks that name a blob are read through the client's ImageReader, and
// a missing or corrupt blob fails the call before anything is sent.
type Request struct {
	Model     string // the provider's model ID, without "provider/"
	System    string
	Messages  []session.Message
	Tools     []Tool
	MaxTokens int // for the answer; a thinking budget comes on top
	// Think is the reasoning effort (profiles.Think*: off, low, medium,
	// high, xhigh, max); "" and "off" ask for none. The caller decides whether
	// the model has it (profiles.Settings.ModelThinks).
	Think string
	// OnThinking receives the model's reasoning as it streams, when the
	// provider sends it; nil drops it (the Response keeps it anyway).
	OnThinking func(delta string)
	// CacheKey groups the calls that share a prefix (a session's ID), so
	// an OpenAI-compatible server keeps them on one cache shard
	// (prompt_cache_key); "" sends none.
	CacheKey string
	// CacheTTL is how long Anthropic keeps the prompt cache written by
	// this call: CacheTTL1h, or "" for the provider's default (5 minutes).
	CacheTTL string
	// CacheBreakpoints forces OpenAI's explicit prompt cache breakpoints on
	// (true) or off (false); nil leaves it to the client, which sends them
	// to the models of api.openai.com that match the cache only at
	// breakpoints (GPT-5.6 and later). Anthropic always has its own.
	CacheBreakpoints *bool
	// Encoded, when set, keeps the bytes of the messages sent by earlier
	// calls of the same conversation, so that this one encodes only what
	// is new; nil encodes them all. The bytes sent are the same either way.
	Encoded *Encoded
}

// CacheTTL1h asks Anthropic to keep a prompt cache entry for an hour.
const CacheTTL1h = "1h"

// Response is a finished (or cut) model response as content blocks ready
// to be stored, with the provider's stop reason and token usage.
type Response struct {
	Content    []session.Block
	StopReason string // end_turn, tool_use, max_tokens, …
	Usage      session.Usage
	Model      string
}

// Client streams one response. onText receives text deltas as they arrive
// (never buffered). On error the Response holds the text that arrived
// before it, so a caller can keep a partial answer; the tool calls of a
// cut response are dropped, since their input may be incomplete. Every
// error is an *Error; a stop (ctx cancelled) wraps ctx.Err() and is not
// retryable.
type Client interface {
	Stream(ctx context.Context, req Request, onText func(delta string)) (Response, error)
}

// ImageReader gives the verified bytes of a blob; session.Images is one.
type ImageReader interface {
	Read(sha string) ([]byte, session.ImageRef, error)
}

// Error is a failed model call. Retryable marks the transient failures
// (429, 529, 5xx, a stream broken after it started) that a turn retries.
type Error struct {
	Provider  string
	Status    int // HTTP status, 0 when the failure was not an HTTP answer
	Retryable bool
	Err       error
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%s: status %d: %v", e.Provider, e.Status, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Provider, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Kind says a provider failed, whatever the cause it wraps.
func (e *Error) Kind() errkind.Kind { return errkind.Upstream }

// IsRetryable reports whether err is a transient model failure.
func IsRetryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retryable
}

// ErrNoProvider means the model names a provider that is not configured.
var ErrNoProvider = errkind.New(errkind.Conflict, "no provider configured")
