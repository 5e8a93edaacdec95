package llm

import (
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"myco/session"
)

// anthropicParams builds the Messages request. Caching: the top-level
// cache_control marks the last block of the request, so each call reuses
// the prefix the previous call of the thread wrote; a second breakpoint on
// the system prompt keeps the tools and system prompt cached across
// threads that share them.
func anthropicParams(req Request, images *imageLoader) (anthropic.MessageNewParams, error) {
	msgs, err := anthropicMessages(req.Messages, images)
	if err != nil {
		return anthropic.MessageNewParams{}, err
	}
	p := anthropic.MessageNewParams{
		Model:        anthropic.Model(req.Model),
		MaxTokens:    int64(maxTokens(req)),
		Messages:     msgs,
		Tools:        anthropicTools(req.Tools),
		CacheControl: anthropic.NewCacheControlEphemeralParam(),
	}
	if budget := thinkingBudget(req.Think); budget > 0 {
		// The budget is part of max_tokens, which must exceed it: the
		// answer keeps its own limit on top.
		p.Thinking = anthropic.ThinkingConfigParamOfEnabled(budget)
		p.MaxTokens += budget
	}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.System, CacheControl: anthropic.NewCacheControlEphemeralParam()}}
	}
	return p, nil
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
		blocks, err := anthropicBlocks(m.Content, images)
		if err != nil {
			return nil, fmt.Errorf("message %s: %w", m.ID, err)
		}
		// The API refuses a message without content (a reply stopped
		// before its first word); consecutive user turns it merges.
		if len(blocks) == 0 {
			continue
		}
		if m.Role == "assistant" {
			out = append(out, anthropic.NewAssistantMessage(blocks...))
		} else {
			out = append(out, anthropic.NewUserMessage(blocks...))
		}
	}
	return out, nil
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

// toolInput is the stored input as it was received; the API requires an
// object, and a call without arguments is {}.
func toolInput(input []byte) json.RawMessage {
	if len(input) == 0 {
		return json.RawMessage("{}")
	}
	return json.RawMessage(input)
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

func anthropicTools(tools []Tool) []anthropic.ToolUnionParam {
	var out []anthropic.ToolUnionParam // nil, not [], when there are none
	for _, t := range tools {
		tp := anthropic.ToolParam{Name: t.Name, InputSchema: inputSchema(t.InputSchema)}
		if t.Description != "" {
			tp.Description = anthropic.String(t.Description)
		}
		out = append(out, anthropic.ToolUnionParam{OfTool: &tp})
	}
	return out
}

// inputSchema passes a tool's JSON schema through: "properties" has a field
// of its own, every other key but "type" (always "object") rides along as
// an extra field.
func inputSchema(schema map[string]any) anthropic.ToolInputSchemaParam {
	p := anthropic.ToolInputSchemaParam{ExtraFields: map[string]any{}}
	for k, v := range schema {
		switch k {
		case "type":
		case "properties":
			p.Properties = v
		default:
			p.ExtraFields[k] = v
		}
	}
	return p
}
