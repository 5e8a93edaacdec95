package llm

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"myco/session"
)

// anthropicParams builds the Messages request. Caching: tools and system
// prompt come first in the cached prefix, so they are sent byte for byte
// the same on every call (tool schemas with sorted keys), and breakpoints
// mark three ends (the API allows four): the system prompt, which the
// threads of a session share; the end of the previous call's messages,
// where that call wrote its entry, so the lookup hits it exactly however
// long the last tool round was; and the end of this call, which the next
// one reads. Markers are not part of the cached bytes, so moving them
// costs nothing.
func anthropicParams(req Request, images *imageLoader) (anthropic.MessageNewParams, error) {
	msgs, err := anthropicMessages(req.Messages, images)
	if err != nil {
		return anthropic.MessageNewParams{}, err
	}
	tools, err := anthropicTools(req.Tools)
	if err != nil {
		return anthropic.MessageNewParams{}, err
	}
	mark := cacheControl(req.CacheTTL)
	p := anthropic.MessageNewParams{
		Model:     anthropic.Model(req.Model),
		MaxTokens: int64(maxTokens(req)),
		Messages:  msgs,
		Tools:     tools,
	}
	if budget := thinkingBudget(req.Think); budget > 0 {
		// The budget is part of max_tokens, which must exceed it: the
		// answer keeps its own limit on top.
		p.Thinking = anthropic.ThinkingConfigParamOfEnabled(budget)
		p.MaxTokens += budget
	}
	switch {
	case req.System != "":
		p.System = []anthropic.TextBlockParam{{Text: req.System, CacheControl: mark}}
	case len(tools) > 0:
		*tools[len(tools)-1].GetCacheControl() = mark
	}
	markEnds(msgs, mark)
	return p, nil
}

// cacheControl is the breakpoint marker for ttl (CacheTTL1h, or "" for
// the API's five minutes).
func cacheControl(ttl string) anthropic.CacheControlEphemeralParam {
	c := anthropic.NewCacheControlEphemeralParam()
	if ttl == CacheTTL1h {
		c.TTL = anthropic.CacheControlEphemeralTTLTTL1h
	}
	return c
}

// markEnds sets breakpoints on the last block of the last message and of
// the user message before it (the previous call's end: a call always ends
// with a user message).
func markEnds(msgs []anthropic.MessageParam, mark anthropic.CacheControlEphemeralParam) {
	marked := 0
	for i := len(msgs) - 1; i >= 0 && marked < 2; i-- {
		if msgs[i].OfUser == nil {
			continue
		}
		if markLast(msgs[i].OfUser.Content, mark) {
			marked++
		}
	}
}

// markLast sets the marker on the last block of content that takes one.
func markLast(content []anthropic.ContentBlockParamUnion, mark anthropic.CacheControlEphemeralParam) bool {
	for j := len(content) - 1; j >= 0; j-- {
		if c := content[j].GetCacheControl(); c != nil {
			*c = mark
			return true
		}
	}
	return false
}

func maxTokens(req Request) int {
	if req.MaxTokens > 0 {
		return req.MaxTokens
	}
	return defaultMaxTokens
}

func anthropicMessages(msgs []session.Message, images *imageLoader) ([]anthropic.MessageParam, error) {
	out := make([]anthropic.MessageParam, 0, len(msgs))
	for _, m := range msgs {
		p, ok, err := anthropicMessage(m, images)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// anthropicMessage converts one message; ok is false when it sends
// nothing: the API refuses a message without content (a reply stopped
// before its first word); consecutive user turns it merges.
func anthropicMessage(m session.Message, images *imageLoader) (p anthropic.MessageParam, ok bool, err error) {
	blocks, err := anthropicBlocks(m.Content, images)
	if err != nil {
		return p, false, fmt.Errorf("message %s: %w", m.ID, err)
	}
	if len(blocks) == 0 {
		return p, false, nil
	}
	if m.Role == "assistant" {
		return anthropic.NewAssistantMessage(blocks...), true, nil
	}
	return anthropic.NewUserMessage(blocks...), true, nil
}

func anthropicBlocks(content []session.Block, images *imageLoader) ([]anthropic.ContentBlockParamUnion, error) {
	var out []anthropic.ContentBlockParamUnion
	for _, b := range content {
		switch b.Type {
		case session.BlockText:
			if b.Text != "" {
				out = append(out, anthropic.NewTextBlock(b.Text))
			}
		case session.BlockImage:
			mediaType, data, err := images.load(b)
			if err != nil {
				return nil, err
			}
			out = append(out, anthropic.NewImageBlockBase64(mediaType, data))
		case session.BlockFile:
			doc, err := anthropicFile(b, images)
			if err != nil {
				return nil, err
			}
			out = append(out, doc)
		case session.BlockThinking:
			// Sent back unchanged with its signature, as the API requires
			// in a tool loop; one without (cut short, or another
			// provider's reasoning) cannot be verified and stays out.
			if b.Signature != "" {
				out = append(out, anthropic.NewThinkingBlock(b.Signature, b.Thinking))
			}
		case session.BlockRedactedThinking:
			if b.Data != "" {
				out = append(out, anthropic.NewRedactedThinkingBlock(b.Data))
			}
		case session.BlockToolUse:
			out = append(out, anthropic.NewToolUseBlock(b.ID, toolInput(b.Input), b.Name))
		case session.BlockToolResult:
			result, err := anthropicToolResult(b, images)
			if err != nil {
				return nil, err
			}
			out = append(out, result)
		}
		// Other block types (a newer myco's) are not the API's business.
	}
	return out, nil
}

// toolInput is the stored input, compacted: the API requires an object
// (a call without arguments is {}), and a document written to disk and
// read back holds it indented, which would change the bytes of every
// later request after a restart (OpenAI's arguments are a string).
func toolInput(input []byte) json.RawMessage {
	if len(input) == 0 {
		return json.RawMessage("{}")
	}
	var b bytes.Buffer
	if err := json.Compact(&b, input); err != nil {
		return json.RawMessage(input) // not JSON: the API says so
	}
	return b.Bytes()
}

func anthropicToolResult(b session.Block, images *imageLoader) (anthropic.ContentBlockParamUnion, error) {
	blocks, err := resultBlocks(b.Content)
	if err != nil {
		return anthropic.ContentBlockParamUnion{}, fmt.Errorf("tool_result %s: %w", b.ToolUseID, err)
	}
	tr := anthropic.ToolResultBlockParam{ToolUseID: b.ToolUseID}
	if b.IsError {
		tr.IsError = anthropic.Bool(true)
	}
	for _, rb := range blocks {
		switch rb.Type {
		case session.BlockText:
			if rb.Text != "" {
				tr.Content = append(tr.Content, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: rb.Text}})
			}
		case session.BlockImage:
			mediaType, data, err := images.load(rb)
			if err != nil {
				return anthropic.ContentBlockParamUnion{}, err
			}
			img := anthropic.NewImageBlockBase64(mediaType, data).OfImage
			tr.Content = append(tr.Content, anthropic.ToolResultBlockParamContentUnion{OfImage: img})
		}
	}
	return anthropic.ContentBlockParamUnion{OfToolResult: &tr}, nil
}

func anthropicTools(tools []Tool) ([]anthropic.ToolUnionParam, error) {
	var out []anthropic.ToolUnionParam // nil, not [], when there are none
	for _, t := range tools {
		schema, err := schemaJSON(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		tp := anthropic.ToolParam{Name: t.Name, InputSchema: param.Override[anthropic.ToolInputSchemaParam](schema)}
		if t.Description != "" {
			tp.Description = anthropic.String(t.Description)
		}
		out = append(out, anthropic.ToolUnionParam{OfTool: &tp})
	}
	return out, nil
}

// schemaJSON is a tool's JSON schema as the bytes sent, the same on every
// call: encoding/json writes map keys sorted, where the SDK's extra fields
// are a map written in Go's random order (which changed the tools block,
// the head of the cached prefix, from call to call).
func schemaJSON(schema map[string]any) (json.RawMessage, error) {
	if schema == nil {
		schema = map[string]any{"type": "object"}
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	return b, nil
}
