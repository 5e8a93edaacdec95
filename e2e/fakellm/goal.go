package fakellm

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A standing goal runs over several turns, each started by myco's goal
// message ("… turn N of M …"), which carries the goal's text and so the
// test's directives. [[goal: A ;; B ;; C]] answers turn 1 with A, turn 2
// with B, and every later turn with the last entry. An entry is:
//
//   - done, blocked or working, with an optional note after a space: the
//     turn calls goal_status {"status": …, "note": …}, then says
//     "Turn N: STATUS." once the tool's result is back;
//   - say:TEXT: the turn only answers TEXT (no report);
//   - fault:SPEC: the turn's first call fails as [[fault:SPEC]] would.

// goalEntry is one turn's part of a [[goal: …]] script.
type goalEntry struct {
	status, note string
	say          *string
	fault        *fault
}

// goalTurn reads the turn number of a goal message; 1 when absent.
var goalTurn = regexp.MustCompile(`turn (\d+) of \d+`)

func (s *script) addGoal(arg string) error {
	s.goal = nil
	for part := range strings.SplitSeq(arg, ";;") {
		part = strings.TrimSpace(part)
		name, rest, _ := strings.Cut(part, ":")
		var e goalEntry
		switch name {
		case "say":
			text := strings.TrimSpace(rest)
			e.say = &text
		case "fault":
			f, err := parseFault(strings.TrimSpace(rest))
			if err != nil {
				return fmt.Errorf("turn %d: %w", len(s.goal)+1, err)
			}
			e.fault = &f
		default:
			status, note, _ := strings.Cut(part, " ")
			switch status {
			case "done", "blocked", "working":
			default:
				return fmt.Errorf("turn %d: want done, blocked, working, say:… or fault:…, got %q", len(s.goal)+1, part)
			}
			e.status, e.note = status, strings.TrimSpace(note)
		}
		s.goal = append(s.goal, e)
	}
	return nil
}

// goalSteps turns the entry for the goal turn that human starts into the
// script's steps; a script without [[goal: …]] is left as it is.
func (s *script) goalSteps(human string) {
	if len(s.goal) == 0 {
		return
	}
	turn := 1
	if m := goalTurn.FindStringSubmatch(human); m != nil {
		turn, _ = strconv.Atoi(m[1])
	}
	e := s.goal[min(max(turn, 1), len(s.goal))-1]
	switch {
	case e.say != nil:
		s.steps = []step{{text: e.say}}
	case e.fault != nil:
		s.steps = []step{{fault: e.fault}}
	default:
		input, _ := json.Marshal(map[string]string{"status": e.status, "note": e.note})
		said := fmt.Sprintf("Turn %d: %s.", turn, e.status)
		s.steps = []step{{tool: &toolCall{name: "goal_status", input: input}}, {text: &said}}
	}
}
