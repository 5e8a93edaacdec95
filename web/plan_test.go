package web

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"myco/session"
)

// The panel shows the agent's checklist with each item's state, and keeps
// an empty, hidden part to swap into when there is none.
func TestPanelTodo(t *testing.T) {
	tests := []struct {
		name       string
		todo       []session.TodoItem
		wantHidden bool
		wantStates []string
		wantCounts string
	}{
		{"none", nil, true, nil, "0 of 0 done"},
		{"three", []session.TodoItem{{Text: "Read", State: "done"}, {Text: "Test", State: "doing"}, {Text: "Fix", State: "todo"}}, false, []string{"done", "doing", "todo"}, "1 of 3 done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			html, err := RenderPanel(&session.Document{ID: "x", Todo: tt.todo}, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
			if err != nil {
				t.Fatal(err)
			}
			part := doc.Find(`[data-panel-part="todo"]`)
			if part.Length() != 1 {
				t.Fatalf("no todo part in\n%s", html)
			}
			if _, hidden := part.Attr("hidden"); hidden != tt.wantHidden {
				t.Errorf("hidden = %v, want %v", hidden, tt.wantHidden)
			}
			var states []string
			part.Find(".todo-item").Each(func(_ int, s *goquery.Selection) {
				st, _ := s.Attr("data-state")
				states = append(states, st)
			})
			if strings.Join(states, " ") != strings.Join(tt.wantStates, " ") {
				t.Errorf("states %v, want %v", states, tt.wantStates)
			}
			if got := part.Find(".todo-counts").Text(); got != tt.wantCounts {
				t.Errorf("counts %q, want %q", got, tt.wantCounts)
			}
		})
	}
}

// The plan controls show the badge only in plan mode, and the card asks
// with its three answers.
func TestPlanControls(t *testing.T) {
	for _, mode := range []string{"", session.ModePlan} {
		html, err := renderString(PlanControls(PlanView{SessionID: "abc", Mode: mode}))
		if err != nil {
			t.Fatal(err)
		}
		badgeHidden := strings.Contains(html, `data-plan-badge title="Plan mode: the agent reads and plans, and changes no file" hidden`)
		if badgeHidden != (mode == "") || !strings.Contains(html, `data-url="/api/sessions/abc/mode"`) {
			t.Errorf("mode %q:\n%s", mode, html)
		}
	}
	card, err := PlanReadyHTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Build this plan?", `data-plan-action="build-now"`, `data-plan-action="switch"`, `data-plan-action="keep"`} {
		if !strings.Contains(card, want) {
			t.Errorf("card lacks %s:\n%s", want, card)
		}
	}
}
