package session

import (
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Goal is a standing goal: the agent works on Text turn after turn, up to
// TurnsMax turns, until it reports the goal done or blocked. It lives in
// the header (journaled as the other header fields) so the count survives a
// restart; a goal that was running when its process ended is loaded
// paused, since a restart never starts work by itself.
type Goal struct {
	Text      string `json:"text"`
	TurnsMax  int    `json:"turns_max"`
	TurnsUsed int    `json:"turns_used"`
	// State is one of the Goal* states.
	State string `json:"state"`
	// Note is the agent's last word on it (goal_status), or why myco
	// paused or stopped it.
	Note    string         `json:"note,omitempty"`
	Unknown jsontext.Value `json:",embed"`
}

// Goal states. Running goals start a turn after each turn ends; paused and
// blocked ones wait for the person (/goal resumes both); done and off are
// over (a new /goal TEXT replaces them).
const (
	GoalRunning = "running"
	GoalPaused  = "paused"
	GoalDone    = "done"
	GoalBlocked = "blocked"
	GoalOff     = "off"
)

// Turn limits of a goal: the default when none is given, and the most a
// person may ask for (a runaway goal costs money).
const (
	DefaultGoalTurns = 10
	MaxGoalTurns     = 100
)

// GoalTurn marks the message that starts a goal's turn: written by myco,
// not a person, it states the goal and the turn count (the page shows it
// compactly; the model sees it as the user's words).
type GoalTurn struct {
	Turn    int            `json:"turn"`
	Of      int            `json:"of"`
	Unknown jsontext.Value `json:",embed"`
}

// NewGoal checks text and turns and returns a running goal. Zero turns is
// refused like any other number out of range: a caller with no number
// asks for DefaultGoalTurns itself, so that "turns: 0" is never taken for
// "no number".
func NewGoal(text string, turns int) (*Goal, error) {
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return nil, fmt.Errorf("the goal is empty")
	case turns < 1 || turns > MaxGoalTurns:
		return nil, fmt.Errorf("turns must be between 1 and %d, not %d", MaxGoalTurns, turns)
	}
	return &Goal{Text: text, TurnsMax: turns, State: GoalRunning}, nil
}

// Resumable reports whether /goal can set g running again.
func (g *Goal) Resumable() bool {
	return g != nil && (g.State == GoalPaused || g.State == GoalBlocked || g.State == GoalRunning) && g.TurnsUsed < g.TurnsMax
}

// Running reports whether g starts turns by itself.
func (g *Goal) Running() bool { return g != nil && g.State == GoalRunning }

// With returns a copy of g changed by fn: a document's goal is replaced,
// never changed in place, since earlier shallow copies of the document
// (a fold in progress) share it.
func (g *Goal) With(fn func(*Goal)) *Goal {
	c := *g
	fn(&c)
	return &c
}

// sameGoal reports whether two header goals are equal (nil equals nil).
func sameGoal(a, b *Goal) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Text == b.Text && a.TurnsMax == b.TurnsMax && a.TurnsUsed == b.TurnsUsed && a.State == b.State && a.Note == b.Note
}

// goalChange is the header record of a change to goal g: a copy, so the
// record never shares the document's; a goal removed is written as one
// with no state.
func goalChange(g *Goal) *Goal {
	if g == nil {
		return &Goal{}
	}
	c := *g
	return &c
}

// applied is the document's goal after the record h: nil for a goal
// removed (no state), else a copy of h.
func (h *Goal) applied() *Goal {
	if h.State == "" {
		return nil
	}
	c := *h
	return &c
}
