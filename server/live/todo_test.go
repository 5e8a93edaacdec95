package live

import (
	"slices"
	"strings"
	"testing"

	"myco/profiles"
	"myco/server/event"
	"myco/server/llm"
	"myco/session"
)

// todo_write replaces the checklist, keeps it in the header (through a
// restart) and redraws the panel; a bad list changes nothing.
func TestTodoWriteStoresAndRendersTheList(t *testing.T) {
	e := newFileEnv(t, func(o *Options) {
		withSettings(o, func(st *profiles.Settings) { st.Todo = true })
		o.RenderPanel = func(d *session.Document) (string, error) {
			var b strings.Builder
			for _, it := range d.Todo {
				b.WriteString("[" + it.State + "] " + it.Text + "\n")
			}
			return b.String(), nil
		}
	})
	s := e.newSession(t)
	if !hasTool(s.toolDefs(), todoTool) {
		t.Fatal("todo_write is not offered with settings todo")
	}
	items := []map[string]string{
		{"text": "Read the code", "state": "done"},
		{"text": "Write the test", "state": "doing"},
		{"text": "Fix the bug", "state": "todo"},
	}
	wantOutcome(t, run(t, s, todoTool, map[string]any{"items": items}), false, "1 done, 1 doing, 1 to do")
	var panel event.Panel
	for !strings.Contains(panel.HTML, "[doing] Write the test") {
		panel = e.events.next(t, "panel").data.(event.Panel)
	}
	want := []session.TodoItem{{Text: "Read the code", State: "done"}, {Text: "Write the test", State: "doing"}, {Text: "Fix the bug", State: "todo"}}

	tests := []struct {
		name  string
		items any
		has   string
	}{
		{"bad state", []map[string]string{{"text": "x", "state": "later"}}, "not todo, doing or done"},
		{"no text", []map[string]string{{"text": " ", "state": "todo"}}, "no text"},
		{"not a list", "three things", "todo_write needs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantOutcome(t, run(t, s, todoTool, map[string]any{"items": tt.items}), true, tt.has)
		})
	}
	id := s.ID()
	s.m.Close()
	doc, err := e.store.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Todo) != len(want) {
		t.Fatalf("stored todo %+v, want %+v", doc.Todo, want)
	}
	for i := range want {
		if doc.Todo[i].Text != want[i].Text || doc.Todo[i].State != want[i].State {
			t.Errorf("item %d = %+v, want %+v", i, doc.Todo[i], want[i])
		}
	}
}

// Off by default: the tool is neither offered nor run.
func TestTodoWriteOffByDefault(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	if hasTool(s.toolDefs(), todoTool) {
		t.Error("todo_write offered without settings todo")
	}
	wantOutcome(t, run(t, s, todoTool, map[string]any{"items": []any{}}), true, "off")
}

func hasTool(defs []llm.Tool, name string) bool {
	return slices.ContainsFunc(defs, func(d llm.Tool) bool { return d.Name == name })
}
