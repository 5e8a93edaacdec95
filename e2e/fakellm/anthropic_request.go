package fakellm

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The Anthropic Messages request, as far as the fake reads it.
type anthropicRequest struct {
	Model     string             `json:"model"`
	MaxTokens int                `json:"max_tokens"`
	Stream    bool               `json:"stream"`
	System    json.RawMessage    `json:"system"`
	Messages  []anthropicMessage `json:"messages"`
	Tools     []json.RawMessage  `json:"tools"`
	Thinking  *anthropicThinking `json:"thinking"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	Title     string          `json:"title"`
	Source    *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

// imageTypes are the media types the Messages API accepts.
var imageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// parseAnthropic reads a Messages request and checks the rules the real API
// enforces with a 400, so a client bug shows up against the fake too.
func parseAnthropic(body []byte) (*conversation, error) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("request body is not valid JSON: %w", err)
	}
	switch {
	case req.Model == "":
		return nil, fmt.Errorf("model: field required")
	case req.MaxTokens < 1:
		return nil, fmt.Errorf("max_tokens: must be at least 1")
	case len(req.Messages) == 0:
		return nil, fmt.Errorf("messages: at least one message is required")
	}
	system, err := anthropicText(req.System)
	if err != nil {
		return nil, fmt.Errorf("system: %w", err)
	}
	thinks, err := checkAnthropicThinking(req)
	if err != nil {
		return nil, err
	}
	c := &conversation{provider: providerAnthropic, model: req.Model, system: system, stream: req.Stream, tools: len(req.Tools), thinks: thinks}
	var prevToolIDs []string
	for i, raw := range req.Messages {
		m, toolIDs, err := anthropicMsg(raw, prevToolIDs)
		if err != nil {
			return nil, fmt.Errorf("messages.%d: %w", i, err)
		}
		if m.role == "user" {
			c.addUser(m)
		} else {
			c.messages = append(c.messages, m)
		}
		prevToolIDs = toolIDs
	}
	return c, nil
}

// anthropicMsg converts one message. prevToolIDs are the tool calls of the
// previous message, which this one must answer, all of them and only them.
func anthropicMsg(raw anthropicMessage, prevToolIDs []string) (message, []string, error) {
	if raw.Role != "user" && raw.Role != "assistant" {
		return message{}, nil, fmt.Errorf("role: unexpected role %q", raw.Role)
	}
	blocks, err := anthropicBlocks(raw.Content)
	if err != nil {
		return message{}, nil, err
	}
	m := message{role: raw.Role}
	var toolIDs, answered []string
	for j, b := range blocks {
		if err := m.addAnthropic(b, prevToolIDs); err != nil {
			return message{}, nil, fmt.Errorf("content.%d: %w", j, err)
		}
		switch b.Type {
		case "tool_use":
			toolIDs = append(toolIDs, b.ID)
		case "tool_result":
			answered = append(answered, b.ToolUseID)
		}
	}
	if missing := without(prevToolIDs, answered); len(missing) > 0 {
		return message{}, nil, fmt.Errorf("tool_use ids were found without tool_result blocks immediately after: %s", strings.Join(missing, ", "))
	}
	return m, toolIDs, nil
}

func (m *message) addAnthropic(b anthropicBlock, prevToolIDs []string) error {
	switch b.Type {
	case "text":
		if b.Text == "" {
			return fmt.Errorf("text content blocks must be non-empty")
		}
		m.texts = append(m.texts, b.Text)
	case "image":
		if err := checkAnthropicImage(b); err != nil {
			return err
		}
		m.images++
	case "document":
		seen, err := checkAnthropicDocument(b)
		if err != nil {
			return err
		}
		// Said in the echo, so a test sees which documents arrived.
		m.texts = append(m.texts, seen)
	case "tool_use":
		if m.role != "assistant" || b.ID == "" || b.Name == "" {
			return fmt.Errorf("tool_use needs an id and a name, in an assistant message")
		}
		m.tools++
	case "thinking", "redacted_thinking":
		return checkThinkingBlock(b, m.role)
	case "tool_result":
		if m.role != "user" || !slices.Contains(prevToolIDs, b.ToolUseID) {
			return fmt.Errorf("unexpected tool_use_id found in tool_result blocks: %s. Each tool_result block must have a corresponding tool_use block in the previous message", b.ToolUseID)
		}
		text, err := anthropicText(b.Content)
		if err != nil {
			return fmt.Errorf("tool_result content: %w", err)
		}
		m.results = append(m.results, text)
	}
	return nil
}

func checkAnthropicImage(b anthropicBlock) error {
	if b.Source == nil {
		return fmt.Errorf("image: source: field required")
	}
	if b.Source.Type != "base64" {
		return nil
	}
	if !slices.Contains(imageTypes, b.Source.MediaType) {
		return fmt.Errorf("image: source.media_type: %q is not one of %v", b.Source.MediaType, imageTypes)
	}
	if _, err := base64.StdEncoding.DecodeString(b.Source.Data); err != nil || b.Source.Data == "" {
		return fmt.Errorf("image: source.data: not valid base64")
	}
	return nil
}

// checkAnthropicDocument checks a document block as the API does for a
// base64 PDF, and says what it holds: "[document NAME: PDF, N bytes]".
func checkAnthropicDocument(b anthropicBlock) (string, error) {
	if b.Source == nil {
		return "", fmt.Errorf("document: source: field required")
	}
	if b.Source.Type != "base64" || b.Source.MediaType != "application/pdf" {
		return "", fmt.Errorf("document: source: want base64 application/pdf, got %s %s", b.Source.Type, b.Source.MediaType)
	}
	raw, err := base64.StdEncoding.DecodeString(b.Source.Data)
	if err != nil || !bytes.HasPrefix(raw, []byte("%PDF-")) {
		return "", fmt.Errorf("document: source.data: not a base64 PDF")
	}
	return fmt.Sprintf("[document %s: PDF, %d bytes]", b.Title, len(raw)), nil
}

// anthropicBlocks reads content that is a string or a list of blocks.
func anthropicBlocks(raw json.RawMessage) ([]anthropicBlock, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []anthropicBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, fmt.Errorf("content: want a string or a list of blocks: %w", err)
	}
	return blocks, nil
}

// anthropicText flattens content to text: text blocks as they are, an
// image as "[image]".
func anthropicText(raw json.RawMessage) (string, error) {
	blocks, err := anthropicBlocks(raw)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "image":
			parts = append(parts, "[image]")
		}
	}
	return strings.Join(parts, "\n"), nil
}

// without returns the elements of all that are not in some.
func without(all, some []string) []string {
	var rest []string
	for _, s := range all {
		if !slices.Contains(some, s) {
			rest = append(rest, s)
		}
	}
	return rest
}
