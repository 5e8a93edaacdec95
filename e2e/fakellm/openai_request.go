package fakellm

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// The OpenAI chat completions request, as far as the fake reads it.
type openaiRequest struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []openaiMessage   `json:"messages"`
	Tools    []json.RawMessage `json:"tools"`
	// ReasoningEffort asks a reasoning model to think (low, medium, high).
	ReasoningEffort string `json:"reasoning_effort"`
}

type openaiMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []openaiCall    `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
}

type openaiCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type openaiPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
	File *struct {
		FileData string `json:"file_data"`
		Filename string `json:"filename"`
	} `json:"file"`
}

// parseOpenAI reads a chat completions request and checks the tool-call
// pairing the real API enforces with a 400.
func parseOpenAI(body []byte) (*conversation, error) {
	var req openaiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("request body is not valid JSON: %w", err)
	}
	if req.Model == "" {
		return nil, fmt.Errorf("you must provide a model parameter")
	}
	if len(req.Messages) == 0 {
		return nil, fmt.Errorf("messages: at least one message is required")
	}
	c := &conversation{provider: providerOpenAI, model: req.Model, stream: req.Stream, includeUsage: req.StreamOptions.IncludeUsage, tools: len(req.Tools), thinks: req.ReasoningEffort != ""}
	var pending []string // tool calls not answered yet
	for i, m := range req.Messages {
		var err error
		if pending, err = c.addOpenAI(m, pending); err != nil {
			return nil, fmt.Errorf("messages[%d]: %w", i, err)
		}
	}
	return c, nil
}

func (c *conversation) addOpenAI(m openaiMessage, pending []string) ([]string, error) {
	if m.Role == "tool" {
		return c.addToolMessage(m, pending)
	}
	if len(pending) > 0 {
		return nil, fmt.Errorf("an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'; the following tool_call_ids did not have response messages: %s", strings.Join(pending, ", "))
	}
	texts, images, err := openaiContent(m.Content)
	if err != nil {
		return nil, err
	}
	switch m.Role {
	case "system", "developer":
		c.system = strings.TrimSpace(c.system + "\n" + strings.Join(texts, "\n"))
	case "user":
		c.addUser(message{role: "user", texts: texts, images: images})
	case "assistant":
		c.messages = append(c.messages, message{role: "assistant", texts: texts, tools: len(m.ToolCalls)})
		for _, call := range m.ToolCalls {
			if call.ID == "" || call.Function.Name == "" {
				return nil, fmt.Errorf("tool_calls: each call needs an id and a function name")
			}
			pending = append(pending, call.ID)
		}
	default:
		return nil, fmt.Errorf("role: unexpected role %q", m.Role)
	}
	return pending, nil
}

// addToolMessage folds a tool message into a user message of tool results,
// the shape Anthropic uses, so one script reads both providers alike.
func (c *conversation) addToolMessage(m openaiMessage, pending []string) ([]string, error) {
	rest := without(pending, []string{m.ToolCallID})
	if len(rest) == len(pending) {
		return nil, fmt.Errorf("messages with role 'tool' must be a response to a preceding message with 'tool_calls' (tool_call_id %q)", m.ToolCallID)
	}
	texts, _, err := openaiContent(m.Content)
	if err != nil {
		return nil, err
	}
	c.addUser(message{role: "user", results: []string{strings.Join(texts, "\n")}})
	return rest, nil
}

// addUser appends m, merging it into a preceding user message as both
// APIs merge consecutive user turns.
func (c *conversation) addUser(m message) {
	if n := len(c.messages); n > 0 && c.messages[n-1].role == "user" {
		last := &c.messages[n-1]
		last.texts = append(last.texts, m.texts...)
		last.images += m.images
		last.results = append(last.results, m.results...)
		return
	}
	c.messages = append(c.messages, m)
}

// openaiContent reads content that is null, a string or a list of parts.
func openaiContent(raw json.RawMessage) (texts []string, images int, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, 0, nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		if s == "" {
			return nil, 0, err
		}
		return []string{s}, 0, err
	}
	var parts []openaiPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, 0, fmt.Errorf("content: want a string or a list of parts: %w", err)
	}
	for _, p := range parts {
		switch p.Type {
		case "text":
			texts = append(texts, p.Text)
		case "image_url":
			if err := checkImageURL(p); err != nil {
				return nil, 0, err
			}
			images++
		case "file":
			seen, err := checkFilePart(p)
			if err != nil {
				return nil, 0, err
			}
			texts = append(texts, seen) // said in the echo
		}
	}
	return texts, images, nil
}

// checkImageURL accepts http(s) URLs and base64 data URLs of an image.
func checkImageURL(p openaiPart) error {
	if p.ImageURL == nil {
		return fmt.Errorf("image_url: field required")
	}
	url := p.ImageURL.URL
	if strings.HasPrefix(url, "http://") || strings.HasPrefix(url, "https://") {
		return nil
	}
	meta, data, ok := strings.Cut(strings.TrimPrefix(url, "data:"), ",")
	if !ok || !strings.HasPrefix(url, "data:image/") || !strings.HasSuffix(meta, ";base64") {
		return fmt.Errorf("image_url: want an http(s) URL or a data:image/…;base64, URL")
	}
	if _, err := base64.StdEncoding.DecodeString(data); err != nil || data == "" {
		return fmt.Errorf("image_url: data URL is not valid base64")
	}
	return nil
}

// checkFilePart checks a file part as api.openai.com takes a PDF (a data
// URL in file_data) and says what it holds: "[file NAME: PDF, N bytes]".
func checkFilePart(p openaiPart) (string, error) {
	if p.File == nil || p.File.FileData == "" {
		return "", fmt.Errorf("file: file_data required")
	}
	data, ok := strings.CutPrefix(p.File.FileData, "data:application/pdf;base64,")
	raw, err := base64.StdEncoding.DecodeString(data)
	if !ok || err != nil || !bytes.HasPrefix(raw, []byte("%PDF-")) {
		return "", fmt.Errorf("file: file_data: want a data:application/pdf;base64, URL of a PDF")
	}
	return fmt.Sprintf("[file %s: PDF, %d bytes]", p.File.Filename, len(raw)), nil
}
