package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"myco/session"
)

// claudeCode reads Claude Code's transcripts:
// ~/.claude/projects/<project>/<session-id>.jsonl, one record a line
// (PEER-FORMATS §1a). Sub-agents' transcripts (subagents/, agent-*.jsonl)
// belong to their parent session and are not imported on their own.
type claudeCode struct{}

// ccLine is the part of a transcript record the import reads.
type ccLine struct {
	Type              string     `json:"type"`
	UUID              string     `json:"uuid"`
	ParentUUID        string     `json:"parentUuid"`
	LogicalParentUUID string     `json:"logicalParentUuid"`
	SessionID         string     `json:"sessionId"`
	Timestamp         string     `json:"timestamp"`
	Cwd               string     `json:"cwd"`
	IsSidechain       bool       `json:"isSidechain"`
	IsMeta            bool       `json:"isMeta"`
	IsCompactSummary  bool       `json:"isCompactSummary"`
	Subtype           string     `json:"subtype"`
	Summary           string     `json:"summary"`
	CustomTitle       string     `json:"customTitle"`
	AITitle           string     `json:"aiTitle"`
	Title             string     `json:"title"`
	Message           *ccMessage `json:"message"`
}

type ccMessage struct {
	ID         string         `json:"id"`
	Role       string         `json:"role"`
	Model      string         `json:"model"`
	Content    jsontext.Value `json:"content"`
	StopReason string         `json:"stop_reason"`
	Usage      *ccUsage       `json:"usage"`
}

type ccUsage struct {
	Input       int64 `json:"input_tokens"`
	Output      int64 `json:"output_tokens"`
	CacheRead   int64 `json:"cache_read_input_tokens"`
	CacheCreate int64 `json:"cache_creation_input_tokens"`
}

func (u *ccUsage) usage() *session.Usage {
	if u == nil {
		return nil
	}
	return &session.Usage{InputTokens: u.Input, OutputTokens: u.Output, CacheReadInputTokens: u.CacheRead, CacheCreationInputTokens: u.CacheCreate}
}

// ccBlock is one content block, as the Messages API has it.
type ccBlock struct {
	Type      string         `json:"type"`
	Text      string         `json:"text"`
	Thinking  string         `json:"thinking"`
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Input     jsontext.Value `json:"input"`
	ToolUseID string         `json:"tool_use_id"`
	Content   jsontext.Value `json:"content"`
	IsError   bool           `json:"is_error"`
	Source    *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
		URL       string `json:"url"`
	} `json:"source"`
}

func (claudeCode) find(path string) ([]Candidate, error) {
	files, err := walk(path, func(p string, d os.DirEntry) bool {
		name := d.Name()
		return strings.HasSuffix(name, ".jsonl") && !strings.HasPrefix(name, "agent-") &&
			filepath.Base(filepath.Dir(p)) != "subagents" && name != "history.jsonl"
	})
	if err != nil {
		return nil, err
	}
	out := make([]Candidate, 0, len(files))
	for _, f := range files {
		out = append(out, Candidate{Tool: ClaudeCode, ID: strings.TrimSuffix(filepath.Base(f), ".jsonl"), Path: f})
	}
	return out, nil
}

func (claudeCode) read(c Candidate) (*Conversation, error) {
	lines, skipped, err := readJSONL[ccLine](c.Path)
	if err != nil {
		return nil, err
	}
	conv := &Conversation{Source: session.Source{Tool: ClaudeCode, ID: c.ID, Path: c.Path}, Skipped: skipped, Images: images{}}
	var n notes
	var title, aiTitle, summary string
	isSession := false
	for _, l := range lines {
		switch l.Type {
		case "user", "assistant":
			isSession = isSession || l.Message != nil
		case "summary":
			summary = l.Summary
		case "custom-title": // /rename: the latest wins, over any AI title
			title = firstOf(l.CustomTitle, l.Title, title)
		case "ai-title":
			aiTitle = firstOf(l.AITitle, l.Title, aiTitle)
		}
		if l.Cwd != "" {
			conv.Cwd = l.Cwd
		}
		span(&conv.Created, &conv.Updated, parseTime(l.Timestamp))
	}
	if !isSession {
		return nil, fmt.Errorf("%w: it holds no Claude Code messages", ErrNotSession)
	}
	conv.Title = firstOf(title, aiTitle, summary)
	chain, left := activeChain(lines)
	if left > 0 {
		n.add(fmt.Sprintf("%s of abandoned branches (rewinds) left out", plural(left, "message")))
	}
	im := images(conv.Images)
	lastReply := "" // the reply ID of the last message, when an answer
	for _, l := range chain {
		m := l.Message
		msg := session.Message{ID: l.UUID, Role: m.Role, At: parseTime(l.Timestamp)}
		if msg.Role != "assistant" {
			msg.Role = "user"
		}
		if msg.Role == "assistant" {
			msg.StopReason, msg.Usage = m.StopReason, m.Usage.usage()
			if m.Model != "" {
				conv.Model = "anthropic/" + m.Model
				msg.Model = conv.Model
			}
		}
		msg.Content = ccContent(m.Content, msg.Role, im, &n)
		if msg.Role == "user" {
			msg.Human = !l.IsMeta && !l.IsCompactSummary && !hasResult(msg.Content)
			if l.IsCompactSummary {
				msg.Content = append([]session.Block{textBlock("[Claude Code compacted the conversation here; its summary follows.]")}, msg.Content...)
			}
		}
		// One reply may span several lines with the same message ID.
		if n := len(conv.Messages); n > 0 && msg.Role == "assistant" && m.ID != "" && lastReply == m.ID {
			last := &conv.Messages[n-1]
			last.Content = append(last.Content, msg.Content...)
			if msg.StopReason != "" {
				last.StopReason = msg.StopReason
			}
			if msg.Usage != nil {
				last.Usage = msg.Usage
			}
			continue
		}
		lastReply = ""
		if msg.Role == "assistant" {
			lastReply = m.ID
		}
		conv.Messages = append(conv.Messages, msg)
	}
	conv.Notes = n.list()
	return conv, nil
}

// activeChain is the conversation as Claude Code last showed it: from the
// last message back along parentUuid (and across a compaction through
// logicalParentUuid) to the root, without sub-agents' records. Records
// without uuids (old transcripts) are taken in file order. It also counts
// the messages left out on abandoned branches.
func activeChain(lines []ccLine) ([]ccLine, int) {
	byUUID := map[string]int{}
	lastMsg := -1
	messages := 0
	for i, l := range lines {
		if l.UUID != "" {
			byUUID[l.UUID] = i
		}
		if isCCMessage(l) {
			messages++
			lastMsg = i
		}
	}
	if lastMsg < 0 {
		return nil, 0
	}
	if lines[lastMsg].UUID == "" {
		var out []ccLine
		for _, l := range lines {
			if isCCMessage(l) {
				out = append(out, l)
			}
		}
		return out, 0
	}
	var rev []ccLine
	seen := map[int]bool{}
	for i, ok := lastMsg, true; ok && !seen[i]; {
		seen[i] = true
		l := lines[i]
		if isCCMessage(l) {
			rev = append(rev, l)
		}
		next := l.ParentUUID
		if next == "" {
			next = l.LogicalParentUUID
		}
		i, ok = byUUID[next]
	}
	out := make([]ccLine, len(rev))
	for i, l := range rev {
		out[len(rev)-1-i] = l
	}
	return out, messages - len(out)
}

func isCCMessage(l ccLine) bool {
	return (l.Type == "user" || l.Type == "assistant") && l.Message != nil && !l.IsSidechain
}

// ccContent converts a message's content: a string, or a list of blocks.
func ccContent(raw jsontext.Value, role string, im images, n *notes) []session.Block {
	switch raw.Kind() {
	case '"':
		var s string
		_ = json.Unmarshal(raw, &s, lenient)
		return []session.Block{textBlock(s)}
	case '[':
	default:
		return nil
	}
	var blocks []jsontext.Value
	if json.Unmarshal(raw, &blocks, lenient) != nil {
		return []session.Block{keepAsText("content Claude Code wrote in an unknown shape", raw, n)}
	}
	out := make([]session.Block, 0, len(blocks))
	for _, rb := range blocks {
		var b ccBlock
		if json.Unmarshal(rb, &b, lenient) != nil {
			out = append(out, keepAsText("a content block in an unknown shape", rb, n))
			continue
		}
		switch b.Type {
		case "text":
			out = append(out, textBlock(b.Text))
		case "thinking":
			// The signature binds the reasoning to the model that wrote
			// it; without one myco shows the block and never sends it.
			out = append(out, session.Block{Type: session.BlockThinking, Thinking: b.Thinking})
		case "redacted_thinking":
			n.add("reasoning the provider withheld (redacted_thinking) left out")
		case "image":
			out = append(out, ccImage(b, im, n))
		case "tool_use":
			out = append(out, session.Block{Type: session.BlockToolUse, ID: b.ID, Name: b.Name, Input: cleanInput(b.Input)})
		case "tool_result":
			out = append(out, session.Block{Type: session.BlockToolResult, ToolUseID: b.ToolUseID, IsError: b.IsError,
				Content: ccResult(b.Content, im, n)})
		default:
			out = append(out, keepAsText(fmt.Sprintf("a Claude Code %q block", b.Type), rb, n))
		}
	}
	return out
}

func ccImage(b ccBlock, im images, n *notes) session.Block {
	if b.Source == nil {
		return keepAsText("an image without its data", nil, n)
	}
	if b.Source.Type == "base64" {
		return im.block(b.Source.MediaType, b.Source.Data, n)
	}
	return im.dataURL(b.Source.URL, n)
}

// ccResult converts a tool result's content: a string stays one; a list
// of blocks keeps its text and images (stored) and renders the rest.
func ccResult(raw jsontext.Value, im images, n *notes) jsontext.Value {
	switch raw.Kind() {
	case '"':
		return cleanValue(raw)
	case '[':
	case 0, 'n':
		return jsonString("")
	default:
		return jsonString(string(raw))
	}
	var blocks []ccBlock
	if json.Unmarshal(raw, &blocks, lenient) != nil {
		return jsonString(string(raw))
	}
	out := make([]session.Block, 0, len(blocks))
	for _, b := range blocks {
		switch b.Type {
		case "text":
			out = append(out, textBlock(b.Text))
		case "image":
			out = append(out, ccImage(b, im, n))
		default:
			n.add(fmt.Sprintf("a %q part of a tool result, kept as its type", b.Type))
			out = append(out, textBlock("["+b.Type+"]"))
		}
	}
	v, err := json.Marshal(out)
	if err != nil {
		return jsonString(string(raw))
	}
	return v
}

// cleanInput is a tool call's input as a JSON object, re-encoded so that
// what the source wrote loosely (a broken UTF-8 byte) is valid.
func cleanInput(raw jsontext.Value) jsontext.Value {
	var v map[string]any
	if json.Unmarshal(raw, &v, lenient) != nil || v == nil {
		if len(raw) == 0 || string(raw) == "null" {
			return jsontext.Value("{}")
		}
		v = map[string]any{"input": string(raw)}
	}
	out, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return jsontext.Value("{}")
	}
	return out
}

func cleanValue(raw jsontext.Value) jsontext.Value {
	var v any
	if json.Unmarshal(raw, &v, lenient) != nil {
		return jsonString(string(raw))
	}
	out, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return jsonString(string(raw))
	}
	return out
}

func hasResult(blocks []session.Block) bool {
	for _, b := range blocks {
		if b.Type == session.BlockToolResult {
			return true
		}
	}
	return false
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
