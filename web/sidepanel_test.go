package web_test

import (
	"testing"

	"myco/session"
	"myco/web"
)

// The session page's side panel (issue 20): it renders the agent's
// checklist from the document, so a reload shows it, and it keeps the
// steering chip's place outside the facts grid and outside every part the
// panel event swaps, so neither a third grid child nor a redraw breaks it.
func TestSidePanelTodoAndSteering(t *testing.T) {
	tests := []struct {
		name       string
		todo       []session.TodoItem
		wantHidden bool
		wantItems  int
	}{
		{"no checklist", nil, true, 0},
		{"checklist", []session.TodoItem{{Text: "Read", State: session.TodoDone}, {Text: "Fix", State: session.TodoDoing}}, false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d0 := doc()
			d0.Todo = tt.todo
			d := parseHTML(t, render(t, web.SessionPage(web.NewSessionView(d0, web.SessionViewOptions{}))))
			side := byTestID(d, "side-panel")

			todo := side.Find(`[data-panel-part="todo"]`)
			if todo.Length() != 1 {
				t.Fatalf("side panel has %d todo parts, want 1", todo.Length())
			}
			if _, hidden := todo.Attr("hidden"); hidden != tt.wantHidden {
				t.Errorf("todo hidden = %v, want %v", hidden, tt.wantHidden)
			}
			if n := todo.Find(".todo-item").Length(); n != tt.wantItems {
				t.Errorf("%d todo items, want %d", n, tt.wantItems)
			}

			chip := side.Find(`[data-testid="steering-chip"]`)
			if chip.Length() != 1 {
				t.Fatalf("side panel has %d steering chips, want 1", chip.Length())
			}
			if chip.Closest("dl.facts").Length() != 0 || chip.Closest("[data-panel-part]").Length() != 0 {
				t.Error("the steering chip is inside the facts grid or a swapped part")
			}
			if odd := side.Find("dl.facts").Children().Not("dt, dd"); odd.Length() != 0 {
				t.Errorf("facts grid has %d children that are not dt/dd", odd.Length())
			}
		})
	}
}
