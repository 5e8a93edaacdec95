package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"myco/session"
)

// codex reads Codex's rollouts:
// ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl, each line
// {timestamp, type, payload}, the first a session_meta (PEER-FORMATS §2).
type codex struct{}

type cxLine struct {
	Timestamp string         `json:"timestamp"`
	Type      string         `json:"type"`
	Payload   jsontext.Value `json:"payload"`
}

type cxMeta struct {
	ID  string `json:"id"`
	Cwd string `json:"cwd"`
}

type cxItem struct {
	Type      string         `json:"type"`
	Role      string         `json:"role"`
	Content   []cxPart       `json:"content"`
	Summary   []cxPart       `json:"summary"`
	Name      string         `json:"name"`
	Arguments string         `json:"arguments"`
	Input     jsontext.Value `json:"input"`
	CallID    string         `json:"call_id"`
	Output    jsontext.Value `json:"output"`
	Action    jsontext.Value `json:"action"`
	Model     string         `json:"model"`
	Message   string         `json:"message"`
}

type cxPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
}

// rolloutID is the session's UUID at the end of a rollout's file name.
var rolloutID = regexp.MustCompile(`([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$`)

// cxArchived is the folder of the rollouts Codex archived, flat, beside
// its sessions folder.
const cxArchived = "archived_sessions"

func (codex) find(path string) ([]Candidate, error) {
	isRollout := func(p string, d os.DirEntry) bool {
		return strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), ".jsonl")
	}
	files, err := walk(path, isRollout)
	if err != nil {
		return nil, err
	}
	// Codex's sessions folder (the default path) brings the archived
	// ones beside it, which land in myco's archived sessions.
	if clean := filepath.Clean(path); filepath.Base(clean) == "sessions" {
		archived := filepath.Join(filepath.Dir(clean), cxArchived)
		if info, err := os.Stat(archived); err == nil && info.IsDir() {
			more, err := walk(archived, isRollout)
			if err != nil {
				return nil, err
			}
			files = append(files, more...)
		}
	}
	out := make([]Candidate, 0, len(files))
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		if m := rolloutID.FindStringSubmatch(f); m != nil {
			id = strings.ToLower(m[1])
		}
		out = append(out, Candidate{Tool: Codex, ID: id, Path: f})
	}
	return out, nil
}

// injected says whether a user message is context Codex wrote itself
// (AGENTS.md, the environment), not the person's words.
func injected(text string) bool {
	t := strings.TrimSpace(text)
	for _, p := range []string{"# AGENTS.md instructions", "<environment_context>", "<user_instructions>", "<permissions instructions>"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

func (codex) read(c Candidate) (*Conversation, error) {
	lines, skipped, err := readJSONL[cxLine](c.Path)
	if err != nil {
		return nil, err
	}
	if len(lines) == 0 || lines[0].Type != "session_meta" {
		return nil, fmt.Errorf("%w: it does not start with a Codex session_meta line", ErrNotSession)
	}
	conv := &Conversation{Source: session.Source{Tool: Codex, ID: c.ID, Path: c.Path}, Skipped: skipped, Images: images{},
		Archived: slices.Contains(strings.Split(filepath.ToSlash(filepath.Dir(c.Path)), "/"), cxArchived)}
	var n notes
	im := images(conv.Images)
	for i, l := range lines {
		at := parseTime(l.Timestamp)
		span(&conv.Created, &conv.Updated, at)
		msg := session.Message{ID: fmt.Sprintf("codex-%d", i), At: at}
		var it cxItem
		switch l.Type {
		case "session_meta":
			var m cxMeta
			if json.Unmarshal(l.Payload, &m, lenient) == nil && m.Cwd != "" {
				conv.Cwd = m.Cwd
			}
			continue
		case "turn_context":
			var tc struct {
				Model string `json:"model"`
				Cwd   string `json:"cwd"`
			}
			if json.Unmarshal(l.Payload, &tc, lenient) == nil && tc.Model != "" {
				conv.Model = "openai/" + tc.Model
			}
			continue
		case "compacted":
			var cp struct {
				Message string `json:"message"`
			}
			_ = json.Unmarshal(l.Payload, &cp, lenient)
			msg.Role, msg.Content = "user", []session.Block{textBlock("[Codex compacted the conversation here; its summary follows.]\n" + cp.Message)}
			conv.Messages = append(conv.Messages, msg)
			continue
		case "response_item":
			if json.Unmarshal(l.Payload, &it, lenient) != nil {
				conv.Skipped++
				continue
			}
		default: // event_msg repeats the response items for the screen
			continue
		}
		switch it.Type {
		case "message":
			msg.Role = "user"
			if it.Role == "assistant" {
				msg.Role, msg.Model = "assistant", conv.Model
			} else if it.Role != "user" {
				n.add(fmt.Sprintf("%s messages (instructions Codex sent) left out", it.Role))
				continue
			}
			for _, p := range it.Content {
				switch p.Type {
				case "input_text", "output_text", "text":
					if msg.Role == "user" && injected(p.Text) {
						n.add("context Codex added to a message (AGENTS.md, environment) left out")
						continue
					}
					msg.Content = append(msg.Content, textBlock(p.Text))
				case "input_image":
					msg.Content = append(msg.Content, im.dataURL(p.ImageURL, &n))
				default:
					raw, _ := json.Marshal(p)
					msg.Content = append(msg.Content, keepAsText(fmt.Sprintf("a Codex %q part", p.Type), raw, &n))
				}
			}
			msg.Human = msg.Role == "user"
		case "reasoning":
			var parts []string
			for _, p := range it.Summary {
				parts = append(parts, p.Text)
			}
			msg.Role = "assistant"
			msg.Content = []session.Block{{Type: session.BlockThinking, Thinking: strings.Join(parts, "\n\n")}}
		case "function_call", "custom_tool_call", "local_shell_call":
			msg.Role, msg.Model = "assistant", conv.Model
			input := jsontext.Value(nil)
			switch {
			case it.Type == "function_call":
				input = cleanInput(jsontext.Value(it.Arguments))
			case it.Type == "local_shell_call":
				input = cleanInput(it.Action)
				it.Name = "local_shell"
			case it.Input.Kind() == '"':
				var s string
				_ = json.Unmarshal(it.Input, &s, lenient)
				input = cleanInput(jsontext.Value(mustJSON(map[string]string{"input": s})))
			default:
				input = cleanInput(it.Input)
			}
			msg.Content = []session.Block{{Type: session.BlockToolUse, ID: it.CallID, Name: it.Name, Input: input}}
		case "function_call_output", "custom_tool_call_output":
			msg.Role = "user"
			msg.Content = []session.Block{{Type: session.BlockToolResult, ToolUseID: it.CallID, Content: cxOutput(it.Output, im, &n)}}
		default:
			msg.Role = "assistant"
			msg.Content = []session.Block{keepAsText(fmt.Sprintf("a Codex %q item", it.Type), l.Payload, &n)}
		}
		conv.Messages = append(conv.Messages, msg)
	}
	conv.Notes = n.list()
	return conv, nil
}

// cxOutput converts a call's output: a string, a list of content items,
// or an object ({content, success} in some versions).
func cxOutput(raw jsontext.Value, im images, n *notes) jsontext.Value {
	switch raw.Kind() {
	case '"':
		return cleanValue(raw)
	case '[':
		var parts []cxPart
		if json.Unmarshal(raw, &parts, lenient) == nil {
			out := make([]session.Block, 0, len(parts))
			for _, p := range parts {
				if p.Type == "input_image" {
					out = append(out, im.dataURL(p.ImageURL, n))
				} else {
					out = append(out, textBlock(p.Text))
				}
			}
			return mustJSON(out)
		}
	case '{':
		var o struct {
			Content string `json:"content"`
		}
		if json.Unmarshal(raw, &o, lenient) == nil && o.Content != "" {
			return jsonString(o.Content)
		}
	}
	return jsonString(string(raw))
}

func mustJSON(v any) jsontext.Value {
	out, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return jsontext.Value(`""`)
	}
	return out
}
