package llm

import (
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"myco/session"
)

// params builds the chat completions request.
func (c *openaiClient) params(req Request) (openai.ChatCompletionNewParams, error) {
	msgs, err := openaiMessages(req.System, req.Messages, newImageLoader(c.images))
	if err != nil {
		return openai.ChatCompletionNewParams{}, err
	}
	return c.paramsWith(req, msgs)
}

// paramsWith builds the request around messages converted already.
func (c *openaiClient) paramsWith(req Request, msgs []openai.ChatCompletionMessageParamUnion) (openai.ChatCompletionNewParams, error) {
	tools, err := openaiTools(req.Tools)
	if err != nil {
		return openai.ChatCompletionNewParams{}, err
	}
	p := openai.ChatCompletionNewParams{
		Model:         req.Model,
		Messages:      msgs,
		Tools:         tools,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if req.CacheKey != "" {
		// One session's calls on one cache shard; servers that do not
		// know the field ignore it.
		p.PromptCacheKey = openai.String(req.CacheKey)
	}
	if effort := openaiEffort(req.Think, c.official); effort != "" {
		p.ReasoningEffort = effort
	}
	// Without a limit the server's default applies, which suits local
	// models whose context the server knows better than we do.
	// Reasoning counts as output: the limit grows by the level's budget.
	limit := int64(req.MaxTokens) + thinkingBudget(req.Think)
	switch {
	case req.MaxTokens <= 0:
	case c.official:
		p.MaxCompletionTokens = openai.Int(limit)
	default:
		p.MaxTokens = openai.Int(limit)
	}
	return p, nil
}

func openaiMessages(system string, msgs []session.Message, images *imageLoader) ([]openai.ChatCompletionMessageParamUnion, error) {
	var out []openai.ChatCompletionMessageParamUnion
	if system != "" {
		out = append(out, openai.SystemMessage(system))
	}
	for _, m := range msgs {
		conv, err := openaiMessage(m, images)
		if err != nil {
			return nil, err
		}
		out = append(out, conv...)
	}
	return out, nil
}

// openaiMessage converts one stored message: none, one, or (tool
// results) several of the API's.
func openaiMessage(m session.Message, images *imageLoader) ([]openai.ChatCompletionMessageParamUnion, error) {
	if m.Role == "assistant" {
		return openaiAssistant(m), nil
	}
	conv, err := openaiUser(m, images)
	if err != nil {
		return nil, fmt.Errorf("message %s: %w", m.ID, err)
	}
	return conv, nil
}

// openaiAssistant converts an assistant message: its text as content, its
// tool_use blocks as tool_calls. Thinking stays out: compatible servers
// do not take reasoning back, and Anthropic's is signed for Anthropic.
func openaiAssistant(m session.Message) []openai.ChatCompletionMessageParamUnion {
	var texts []string
	var calls []openai.ChatCompletionMessageToolCallUnionParam
	for _, b := range m.Content {
		switch b.Type {
		case session.BlockText:
			if b.Text != "" {
				texts = append(texts, b.Text)
			}
		case session.BlockToolUse:
			calls = append(calls, openai.ChatCompletionMessageToolCallUnionParam{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID:       b.ID,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.Name, Arguments: string(toolInput(b.Input))},
			}})
		}
	}
	if len(texts) == 0 && len(calls) == 0 {
		return nil
	}
	a := openai.ChatCompletionAssistantMessageParam{ToolCalls: calls}
	if len(texts) > 0 {
		a.Content.OfString = openai.String(strings.Join(texts, "\n\n"))
	}
	return []openai.ChatCompletionMessageParamUnion{{OfAssistant: &a}}
}

// openaiUser converts a user message. Its tool results become "tool"
// messages, which must come straight after the assistant's tool calls;
// its text and images follow as one user message. Tool messages carry
// text only, so images a tool returned join that user message.
func openaiUser(m session.Message, images *imageLoader) ([]openai.ChatCompletionMessageParamUnion, error) {
	var tools []openai.ChatCompletionMessageParamUnion
	var parts []openai.ChatCompletionContentPartUnionParam
	for _, b := range m.Content {
		switch b.Type {
		case session.BlockText:
			if b.Text != "" {
				parts = append(parts, openai.TextContentPart(b.Text))
			}
		case session.BlockImage:
			part, err := imagePart(b, images)
			if err != nil {
				return nil, err
			}
			parts = append(parts, part)
		case session.BlockToolResult:
			msg, imgs, err := openaiToolResult(b, images)
			if err != nil {
				return nil, err
			}
			tools = append(tools, msg)
			parts = append(parts, imgs...)
		}
	}
	if len(parts) == 0 {
		return tools, nil
	}
	return append(tools, userMessage(parts)), nil
}

// userMessage sends plain text as a string: some local servers handle a
// list of parts only when it holds an image.
func userMessage(parts []openai.ChatCompletionContentPartUnionParam) openai.ChatCompletionMessageParamUnion {
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.OfText == nil {
			return openai.UserMessage(parts)
		}
		texts = append(texts, p.OfText.Text)
	}
	return openai.UserMessage(strings.Join(texts, "\n\n"))
}

func imagePart(b session.Block, images *imageLoader) (openai.ChatCompletionContentPartUnionParam, error) {
	mediaType, data, err := images.load(b)
	if err != nil {
		return openai.ChatCompletionContentPartUnionParam{}, err
	}
	return openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{
		URL: "data:" + mediaType + ";base64," + data,
	}), nil
}

// openaiToolResult returns the tool message of a result and, as parts for
// the next user message, the images it holds. OpenAI has no is_error, so
// an error says so in its text.
func openaiToolResult(b session.Block, images *imageLoader) (openai.ChatCompletionMessageParamUnion, []openai.ChatCompletionContentPartUnionParam, error) {
	blocks, err := resultBlocks(b.Content)
	if err != nil {
		return openai.ChatCompletionMessageParamUnion{}, nil, fmt.Errorf("tool_result %s: %w", b.ToolUseID, err)
	}
	var texts []string
	var imgs []openai.ChatCompletionContentPartUnionParam
	for _, rb := range blocks {
		switch rb.Type {
		case session.BlockText:
			texts = append(texts, rb.Text)
		case session.BlockImage:
			part, err := imagePart(rb, images)
			if err != nil {
				return openai.ChatCompletionMessageParamUnion{}, nil, err
			}
			if len(imgs) == 0 {
				imgs = append(imgs, openai.TextContentPart("Images from tool call "+b.ToolUseID+":"))
			}
			imgs = append(imgs, part)
		}
	}
	text := strings.Join(texts, "\n")
	if b.IsError {
		text = "Error: " + text
	}
	return openai.ToolMessage(text, b.ToolUseID), imgs, nil
}

// openaiTools sends each schema as raw JSON with sorted keys (schemaJSON),
// so the tools are the same bytes on every call and the cached prefix
// holds.
func openaiTools(tools []Tool) ([]openai.ChatCompletionToolUnionParam, error) {
	var out []openai.ChatCompletionToolUnionParam
	for _, t := range tools {
		schema, err := schemaJSON(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		def := shared.FunctionDefinitionParam{Name: t.Name}
		def.SetExtraFields(map[string]any{"parameters": schema})
		if t.Description != "" {
			def.Description = openai.String(t.Description)
		}
		out = append(out, openai.ChatCompletionFunctionTool(def))
	}
	return out, nil
}
