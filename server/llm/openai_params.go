package llm

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"myco/session"
)

// params builds the chat completions request.
func (c *openaiClient) params(req Request) (openai.ChatCompletionNewParams, error) {
	msgs, err := openaiMessages(req.System, req.Messages, c.loader(), c.breakpoints(req))
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

// breakpoints reports whether req's messages carry explicit prompt cache
// breakpoints: as the settings force it, or else for the models of
// api.openai.com that read the cache at breakpoints (explicitCacheModel).
// The others keep OpenAI's implicit caching, and compatible servers get
// no field they may reject.
func (c *openaiClient) breakpoints(req Request) bool {
	if req.CacheBreakpoints != nil {
		return *req.CacheBreakpoints
	}
	return c.official && explicitCacheModel(req.Model)
}

// gptVersion reads the version of a GPT model ID: "gpt-5.6-mini" is 5 and 6.
var gptVersion = regexp.MustCompile(`^gpt-(\d+)(?:\.(\d+))?(?:$|-)`)

// explicitCacheModel reports whether an OpenAI model matches its prompt
// cache exactly at breakpoints rather than at the longest shared prefix:
// GPT-5.6 and later, which (as the API reference of
// prompt_cache_options says) otherwise cache only at the one breakpoint
// OpenAI picks, the end of the request, so a turn that adds a tool result
// finds nothing of the turn before it.
func explicitCacheModel(model string) bool {
	m := gptVersion.FindStringSubmatch(model)
	if m == nil {
		return false
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2]) // "" for gpt-6: 0
	return major > 5 || major == 5 && minor >= 6
}

// breakpoint marks the end of a reusable prefix. No TTL: the request's
// default (30 minutes) applies.
func breakpoint() openai.ChatCompletionContentPartTextPromptCacheBreakpointParam {
	return openai.NewChatCompletionContentPartTextPromptCacheBreakpointParam()
}

// markedText is text as one part carrying a breakpoint.
func markedText(text string) []openai.ChatCompletionContentPartTextParam {
	return []openai.ChatCompletionContentPartTextParam{{Text: text, PromptCacheBreakpoint: breakpoint()}}
}

// systemMessage is the system prompt, with a breakpoint when marks is set:
// the tools and the prompt are the prefix every call of the session
// shares.
func systemMessage(system string, marks bool) openai.ChatCompletionMessageParamUnion {
	if !marks {
		return openai.SystemMessage(system)
	}
	return openai.ChatCompletionMessageParamUnion{OfSystem: &openai.ChatCompletionSystemMessageParam{
		Content: openai.ChatCompletionSystemMessageParamContentUnion{OfArrayOfContentParts: markedText(system)},
	}}
}

// openaiMessages converts the system prompt and the messages. With marks,
// every user message and every tool result ends with a breakpoint: each
// stored message is sent with the same bytes on every later call (a
// breakpoint placed only on the last one would move, and change them),
// and OpenAI writes only the latest few of a request and matches against
// the latest 80.
func openaiMessages(system string, msgs []session.Message, images *imageLoader, marks bool) ([]openai.ChatCompletionMessageParamUnion, error) {
	var out []openai.ChatCompletionMessageParamUnion
	if system != "" {
		out = append(out, systemMessage(system, marks))
	}
	for _, m := range msgs {
		conv, err := openaiMessage(m, images, marks)
		if err != nil {
			return nil, err
		}
		out = append(out, conv...)
	}
	return out, nil
}

// openaiMessage converts one stored message: none, one, or (tool
// results) several of the API's.
func openaiMessage(m session.Message, images *imageLoader, marks bool) ([]openai.ChatCompletionMessageParamUnion, error) {
	if m.Role == "assistant" {
		return openaiAssistant(m), nil
	}
	conv, err := openaiUser(m, images, marks)
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
// text only, so images a tool returned join that user message. With
// marks, each tool message and the user message end with a breakpoint.
func openaiUser(m session.Message, images *imageLoader, marks bool) ([]openai.ChatCompletionMessageParamUnion, error) {
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
		case session.BlockFile:
			part, err := openaiFile(b, images, images.pdfParts)
			if err != nil {
				return nil, err
			}
			parts = append(parts, part)
		case session.BlockToolResult:
			msg, imgs, err := openaiToolResult(b, images, marks)
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
	if marks {
		markLastPart(parts)
		return append(tools, openai.UserMessage(parts)), nil
	}
	return append(tools, userMessage(parts)), nil
}

// markLastPart sets a breakpoint on the last part, text or image.
func markLastPart(parts []openai.ChatCompletionContentPartUnionParam) {
	switch last := parts[len(parts)-1]; {
	case last.OfText != nil:
		last.OfText.PromptCacheBreakpoint = breakpoint()
	case last.OfImageURL != nil:
		last.OfImageURL.PromptCacheBreakpoint = openai.NewChatCompletionContentPartImagePromptCacheBreakpointParam()
	case last.OfFile != nil:
		last.OfFile.PromptCacheBreakpoint = openai.NewChatCompletionContentPartFilePromptCacheBreakpointParam()
	}
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
func openaiToolResult(b session.Block, images *imageLoader, marks bool) (openai.ChatCompletionMessageParamUnion, []openai.ChatCompletionContentPartUnionParam, error) {
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
	if marks {
		return openai.ChatCompletionMessageParamUnion{OfTool: &openai.ChatCompletionToolMessageParam{
			ToolCallID: b.ToolUseID,
			Content:    openai.ChatCompletionToolMessageParamContentUnion{OfArrayOfContentParts: markedText(text)},
		}}, imgs, nil
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
