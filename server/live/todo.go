package live

import (
	"encoding/json"
	"fmt"
	"strings"

	"myco/server/llm"
	"myco/session"
)

// The todo list is the agent's checklist for a task of several steps,
// opt-in with the settings' todo. todo_write replaces the whole list each
// time (a list is short, and a whole list cannot drift from what the
// agent thinks it is); it is kept in the header (session.Document.Todo)
// and shown in the side panel, which the panel event redraws at once.

const todoTool = "todo_write"

// maxTodoItems and maxTodoText bound what the panel shows and the header
// keeps.
const (
	maxTodoItems = 50
	maxTodoText  = 300
)

var todoToolDef = llm.Tool{
	Name: todoTool,
	Description: `Keep your checklist for a task of three or more steps: call it with the whole list each time ` +
		`(it replaces the list), each item's state "todo", "doing" or "done". Mark one item doing as you start it, ` +
		`and done as soon as it is finished. The person sees the list beside the conversation. ` +
		`Skip it for a task of one or two steps.`,
	InputSchema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"items": map[string]any{
				"type":     "array",
				"maxItems": maxTodoItems,
				"items": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"text":  map[string]any{"type": "string", "description": "The step, in a few words."},
						"state": map[string]any{"type": "string", "enum": []string{session.TodoPending, session.TodoDoing, session.TodoDone}},
					},
					"required": []string{"text", "state"},
				},
			},
		},
		"required": []string{"items"},
	},
}

type todoInput struct {
	Items []session.TodoItem `json:"items"`
}

// checkTodo validates a list from the model: every item has text and a
// known state, and the list fits the bounds.
func checkTodo(items []session.TodoItem) ([]session.TodoItem, error) {
	if len(items) > maxTodoItems {
		return nil, fmt.Errorf("at most %d items, got %d", maxTodoItems, len(items))
	}
	out := make([]session.TodoItem, 0, len(items))
	for i, it := range items {
		text := strings.TrimSpace(it.Text)
		switch {
		case text == "":
			return nil, fmt.Errorf("item %d has no text", i+1)
		case len(text) > maxTodoText:
			return nil, fmt.Errorf("item %d is longer than %d bytes", i+1, maxTodoText)
		}
		switch it.State {
		case session.TodoPending, session.TodoDoing, session.TodoDone:
		default:
			return nil, fmt.Errorf("item %d: state %q is not todo, doing or done", i+1, it.State)
		}
		out = append(out, session.TodoItem{Text: text, State: it.State})
	}
	return out, nil
}

// runTodoWrite replaces the checklist; the panel event shows it.
func (s *Session) runTodoWrite(use session.Block) toolOutcome {
	if !s.m.settings().Todo {
		return toolOutcome{output: "todo_write is off (settings todo).", isError: true}
	}
	var in todoInput
	if err := json.Unmarshal(use.Input, &in); err != nil {
		return toolOutcome{output: `todo_write needs {"items": [{"text": "…", "state": "todo|doing|done"}]}: ` + err.Error(), isError: true}
	}
	items, err := checkTodo(in.Items)
	if err != nil {
		return toolOutcome{output: "todo_write: " + err.Error() + "; the list is unchanged.", isError: true}
	}
	if _, err := s.Update(func(d *session.Document) error { // publishes the panel
		d.Todo = items
		return nil
	}); err != nil {
		return toolOutcome{output: "todo_write: " + err.Error(), isError: true}
	}
	return toolOutcome{output: todoSummary(items)}
}

// todoSummary is what the agent reads back: the counts, so it need not
// repeat the list to itself.
func todoSummary(items []session.TodoItem) string {
	if len(items) == 0 {
		return "The checklist is cleared."
	}
	n := map[string]int{}
	for _, it := range items {
		n[it.State]++
	}
	return fmt.Sprintf("Checklist saved: %d done, %d doing, %d to do.", n[session.TodoDone], n[session.TodoDoing], n[session.TodoPending])
}
