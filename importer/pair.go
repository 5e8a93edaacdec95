package importer

import (
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"myco/session"
)

// pairTools makes a converted thread one the providers accept once
// live.normalize has merged each run of one role into one message: every
// tool_use answered by a tool_result in the user message right after it,
// results before anything else in that message, no result without its
// call, unique call IDs of the providers' alphabet, and a user message
// first. Results the source never recorded are made up as errors saying
// so; results without a call are kept as text.
func pairTools(in []session.Message, tool string, n *notes) []session.Message {
	msgs := make([]session.Message, 0, len(in)+2)
	for _, m := range in {
		m.Content = dropBlank(m.Content)
		if len(m.Content) > 0 {
			msgs = append(msgs, m)
		}
	}
	out := make([]session.Message, 0, len(msgs)+2)
	if len(msgs) > 0 && msgs[0].Role != "user" {
		out = append(out, session.Message{
			ID: "import-start", Role: "user", At: msgs[0].At,
			Content: []session.Block{{Type: session.BlockText, Text: fmt.Sprintf("[Imported from %s: the conversation starts with the agent's message.]", tool)}},
		})
	}
	ids := idMapper{used: map[string]bool{}}
	var pending []string          // calls of the last assistant run, in order
	rename := map[string]string{} // the source's call ID → the document's, for the pending calls
	// flush answers the pending calls in a message of their own, named
	// id, from results and made-up errors for the calls that have none.
	flush := func(id string, at session.Message, results map[string]session.Block) {
		if len(pending) == 0 {
			return
		}
		blocks := make([]session.Block, 0, len(pending))
		for _, id := range pending {
			b, ok := results[id]
			if !ok {
				n.add("a tool call with no recorded result, answered with an error saying so")
				b = session.Block{Type: session.BlockToolResult, ToolUseID: id, IsError: true,
					Content: jsonString(fmt.Sprintf("[no result was recorded in %s]", tool))}
			}
			blocks = append(blocks, b)
		}
		out = append(out, session.Message{ID: id, Role: "user", At: at.At, Content: blocks})
		pending, rename = nil, map[string]string{}
	}
	for i := 0; i < len(msgs); {
		j := i
		for j < len(msgs) && msgs[j].Role == msgs[i].Role {
			j++
		}
		run := msgs[i:j]
		if run[0].Role == "assistant" {
			flush(run[0].ID+"-missing-results", run[0], nil)
			for _, m := range run {
				// Text after calls means the model had their results: a
				// call the source recorded none for is closed before it.
				if !onlyCalls(m.Content) {
					flush(m.ID+"-missing-results", m, nil)
				}
				m.Content = append([]session.Block(nil), m.Content...)
				for k, b := range m.Content {
					if b.Type == session.BlockToolUse {
						id := ids.fresh(b.ID)
						rename[b.ID] = id
						m.Content[k].ID = id
						m.Content[k].Name = toolName(b.Name)
						if len(m.Content[k].Input) == 0 {
							m.Content[k].Input = jsontext.Value("{}")
						}
						pending = append(pending, id)
					}
				}
				out = append(out, m)
			}
		} else {
			results := map[string]session.Block{}
			var rest []session.Message
			resultsID, from := "", run[0]
			for _, m := range run {
				had := len(results)
				kept := make([]session.Block, 0, len(m.Content))
				for _, b := range m.Content {
					if b.Type != session.BlockToolResult {
						kept = append(kept, b)
						continue
					}
					id, ok := rename[b.ToolUseID]
					if _, dup := results[id]; ok && !dup {
						b.ToolUseID = id
						results[id] = b
						continue
					}
					n.add("a tool result with no call before it, kept as text")
					kept = append(kept, session.Block{Type: session.BlockText,
						Text: fmt.Sprintf("[a tool result with no call before it, kept as text]\n%s", b.ResultText())})
				}
				if len(results) > had && resultsID == "" {
					resultsID, from = m.ID, m
					if len(kept) > 0 {
						resultsID += "-results"
					}
				}
				if len(kept) > 0 {
					m.Content = kept
					rest = append(rest, m)
				}
			}
			if resultsID == "" {
				resultsID = run[0].ID + "-missing-results"
			}
			flush(resultsID, from, results)
			out = append(out, rest...)
		}
		i = j
	}
	if len(out) > 0 {
		last := out[len(out)-1]
		flush(last.ID+"-missing-results", last, nil)
	}
	return out
}

// onlyCalls says whether blocks are all tool calls (one of several calls
// made at once, as Codex records them).
func onlyCalls(blocks []session.Block) bool {
	for _, b := range blocks {
		if b.Type != session.BlockToolUse {
			return false
		}
	}
	return true
}

// dropBlank drops text blocks with nothing but spaces, which
// live.normalize drops too (a message left empty would vanish from the
// request and join its neighbours).
func dropBlank(blocks []session.Block) []session.Block {
	out := blocks[:0:0]
	for _, b := range blocks {
		if b.Type == session.BlockText && strings.TrimSpace(b.Text) == "" {
			continue
		}
		if b.Type == session.BlockThinking && strings.TrimSpace(b.Thinking) == "" {
			continue
		}
		out = append(out, b)
	}
	return out
}

// toolName is a call's name in the providers' alphabet
// ([A-Za-z0-9_-], 1 to 64 bytes).
func toolName(name string) string {
	clean := cleanID(name)
	if len(clean) > 64 {
		clean = clean[:64]
	}
	if clean == "" {
		return "tool"
	}
	return clean
}

func cleanID(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, s)
}

// idMapper gives each call an ID of the providers' alphabet
// ([A-Za-z0-9_-], at most 64 bytes), unique in the session.
type idMapper struct {
	used map[string]bool
	n    int
}

func (m *idMapper) fresh(id string) string {
	clean := cleanID(id)
	if len(clean) > 56 {
		clean = clean[:56]
	}
	if clean == "" {
		clean = "call"
	}
	out := clean
	for m.used[out] {
		m.n++
		out = fmt.Sprintf("%s_%d", clean, m.n)
	}
	m.used[out] = true
	return out
}
