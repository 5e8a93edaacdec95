package live

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"myco/internal/errkind"
	"myco/server/event"
	"myco/server/llm"
	"myco/session"
)

// A standing goal keeps the agent working turn after turn without the
// person: after each turn ends, if the goal is running and turns remain, a
// goal turn starts with a message from myco that states the goal and the
// turn count. The goal lives in the document's header (session.Goal), so
// its count survives a restart; this file holds every decision about it:
//
//   - The agent says "done" or "blocked" with the goal_status tool,
//     offered only while a goal runs: a tool call is unambiguous where a
//     marker in the text would be matched by accident or missed.
//   - Messages queued by the person run before the next goal turn. A
//     message the person sends (at once or queued) pauses the goal: they
//     want the agent's attention on what they said, and carrying on
//     unasked would talk over them. /steer does not pause: it is guidance
//     for the goal's turn in progress.
//   - A turn that fails, or that the person stops, pauses the goal; so does
//     closing the session. A goal found running when the session opens
//     (myco ended under it) is paused: a restart never starts work.
//   - /goal off (and pause) let the running turn finish: "after the
//     current step"; Stop is there to cut it short.
//   - At the turn limit the goal goes off, saying so; a new /goal sets
//     another.

// goalTool is the tool the agent reports on the goal with.
const goalTool = "goal_status"

var goalToolDef = llm.Tool{
	Name: goalTool,
	Description: `Report on the standing goal the person set (the "Goal, turn N of M" messages). ` +
		`Call it with status "done" when the goal is met, or "blocked" when you cannot go on without the person ` +
		`(a decision, access, missing information), saying why in note; "working" records progress. ` +
		`Until it is done or blocked, another turn of the goal starts after this one, up to the turn limit.`,
	InputSchema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"status": map[string]any{"type": "string", "enum": []string{"done", "blocked", "working"}},
			"note":   map[string]any{"type": "string", "description": "What was done, or what you need from the person."},
		},
		"required": []string{"status"},
	},
}

// Errors of goal commands a caller maps to answers.
var (
	ErrNoGoal      = errkind.New(errkind.NotFound, "this session has no goal")
	ErrGoalOver    = errkind.New(errkind.Conflict, "the goal is over (done, off or out of turns): set a new one with /goal TEXT")
	ErrGoalBadMove = errkind.New(errkind.Invalid, "a goal's state can be set to running, paused or off")
)

// maxGoalNote bounds the note kept with a goal.
const maxGoalNote = 500

// goalMessageText is what a goal turn's message stores (and the page
// shows); goalPrompt is what the model reads in its place.
func goalMessageText(g *session.Goal) string {
	return fmt.Sprintf("Goal, turn %d of %d: %s", g.TurnsUsed, g.TurnsMax, g.Text)
}

// goalPrompt is the goal turn's message as the model sees it: the goal,
// the count, and how to end it. The count reads "turn N of M" so a test's
// fake model can script each turn.
func goalPrompt(t *session.GoalTurn, text string) string {
	_, goal, _ := strings.Cut(text, ": ")
	return fmt.Sprintf(`Standing goal, turn %d of %d. The person set this goal and is not following each step:

%s

Work toward it on your own now. When the goal is met, call goal_status with status "done". If you cannot go on without the person, call goal_status with status "blocked" and say what you need in note. Otherwise end this turn with a short account of what you did and what is next: another turn of the goal follows.`, t.Turn, t.Of, goal)
}

// goalRequest rewrites the goal turns' messages of msgs (a copy the caller
// owns) into what the model reads.
func goalRequest(msgs []session.Message) []session.Message {
	for i, m := range msgs {
		if m.Goal == nil || m.Human || len(m.Content) != 1 || m.Content[0].Type != session.BlockText {
			continue
		}
		m.Content = []session.Block{{Type: session.BlockText, Text: goalPrompt(m.Goal, m.Content[0].Text)}}
		msgs[i] = m
	}
	return msgs
}

// goal is the session's goal as it stands (nil: none). The document's
// goal is never changed in place, so the pointer may be read freely.
func (s *Session) goal() *session.Goal {
	var g *session.Goal
	s.w.View(func(d *session.Document) { g = d.Goal })
	return g
}

// Goal is the session's goal, nil when it has none.
func (s *Session) Goal() *session.Goal { return s.goal() }

// setGoal changes the goal through fn (which returns the new goal, or an
// error to change nothing), tells the tabs, and reports the goal after.
func (s *Session) setGoal(fn func(*session.Goal) (*session.Goal, error)) (*session.Goal, error) {
	var after *session.Goal
	_, err := s.w.Update(func(d *session.Document) error {
		g, err := fn(d.Goal)
		if err != nil {
			return err
		}
		d.Goal, after = g, g
		return nil
	})
	if isClosed(err) {
		err = ErrSessionClosed
	}
	if err != nil {
		return nil, err
	}
	s.publishGoal(after)
	return after, nil
}

// SetGoal sets a new goal (replacing any earlier one) and starts its first
// turn now when the session is idle, else after the running turn and the
// queue. turns must be 1 to session.MaxGoalTurns: 0 is refused, not taken
// for the default (the caller passes session.DefaultGoalTurns).
func (s *Session) SetGoal(text string, turns int) (*session.Goal, error) {
	g, err := session.NewGoal(text, turns)
	if err != nil {
		return nil, err
	}
	if err := s.refuse(); err != nil {
		return nil, err
	}
	if g, err = s.setGoal(func(*session.Goal) (*session.Goal, error) { return g, nil }); err != nil {
		return nil, err
	}
	s.continueGoal()
	return s.goal(), nil
}

// MoveGoal sets the goal running (resume: /goal), paused or off. Pause and
// off let a running turn finish.
func (s *Session) MoveGoal(state string) (*session.Goal, error) {
	if err := s.refuse(); err != nil {
		return nil, err
	}
	g, err := s.setGoal(func(g *session.Goal) (*session.Goal, error) {
		if g == nil {
			return nil, ErrNoGoal
		}
		switch state {
		case session.GoalRunning:
			if !g.Resumable() {
				return nil, ErrGoalOver
			}
			return g.With(func(g *session.Goal) { g.State, g.Note = session.GoalRunning, "" }), nil
		case session.GoalPaused:
			if g.State != session.GoalRunning {
				return g, nil // nothing to pause
			}
			return g.With(func(g *session.Goal) { g.State, g.Note = session.GoalPaused, "paused by the person" }), nil
		case session.GoalOff:
			if g.State == session.GoalDone || g.State == session.GoalOff {
				return g, nil
			}
			return g.With(func(g *session.Goal) { g.State, g.Note = session.GoalOff, "stopped by the person" }), nil
		}
		return nil, ErrGoalBadMove
	})
	if err != nil {
		return nil, err
	}
	if g.Running() {
		s.continueGoal()
	}
	return s.goal(), nil
}

// refuse says why the session takes no new work, if it does not.
func (s *Session) refuse() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refuseLocked()
}

// pauseGoal pauses a running goal, saying why.
func (s *Session) pauseGoal(why string) {
	if !s.goal().Running() {
		return
	}
	if _, err := s.setGoal(func(g *session.Goal) (*session.Goal, error) {
		if !g.Running() {
			return g, nil
		}
		return g.With(func(g *session.Goal) { g.State, g.Note = session.GoalPaused, why }), nil
	}); err != nil && !errors.Is(err, ErrSessionClosed) {
		s.m.log.Warn("pausing the goal failed", "session", s.id, "err", err)
	}
}

// pauseGoalOnOpen pauses a goal found running when the session opens:
// the process that ran it ended, and a restart starts no work by itself.
func (s *Session) pauseGoalOnOpen() {
	s.pauseGoal("paused when myco restarted; /goal resumes it")
}

// goalTurnEnded records what a turn's end means for a running goal: a
// stop or a failure pauses it, and the last of its turns ends it.
func (s *Session) goalTurnEnded(end turnEnd) {
	g := s.goal()
	if !g.Running() {
		return
	}
	switch {
	case end.notStarted:
		s.pauseGoal("the goal's turn could not start")
	case end.stop == session.StopInterrupted:
		s.pauseGoal("paused: the turn was stopped")
	case errors.Is(end.err, ErrBudget) || errors.Is(end.err, ErrGuard):
		// Unattended work that hit a budget or a guard waits for the
		// person, saying which (budget.go, guard.go).
		s.pauseGoal("paused: " + end.err.Error())
	case end.err != nil || end.stop == session.StopError:
		s.pauseGoal("paused: the turn failed")
	case g.TurnsUsed >= g.TurnsMax:
		if _, err := s.setGoal(func(g *session.Goal) (*session.Goal, error) {
			if !g.Running() {
				return g, nil
			}
			return g.With(func(g *session.Goal) {
				g.State, g.Note = session.GoalOff, fmt.Sprintf("stopped after %d turns, its limit", g.TurnsMax)
			}), nil
		}); err != nil && !errors.Is(err, ErrSessionClosed) {
			s.m.log.Warn("ending the goal failed", "session", s.id, "err", err)
		}
	}
}

// continueGoal starts the goal's next turn when the session is idle, the
// goal runs and nothing is queued (the person's messages come first).
func (s *Session) continueGoal() {
	s.mu.Lock()
	if s.slot != nil || s.refuseLocked() != nil || s.nextQueued() != nil {
		s.mu.Unlock()
		return
	}
	g := s.goal()
	if !g.Running() || g.TurnsUsed >= g.TurnsMax {
		s.mu.Unlock()
		return
	}
	slot := s.claimLocked(slotTurn)
	s.mu.Unlock()
	m, err := s.appendGoalTurn()
	if err != nil {
		s.m.log.Warn("the goal's turn could not start", "session", s.id, "err", err)
		s.publish(event.TurnError{Error: "the goal's turn could not start: " + err.Error()})
		s.release(slot, turnEnd{notStarted: true})
		return
	}
	s.runTurn(slot, m.ID)
}

// appendGoalTurn counts the goal's next turn and saves its message. The
// count is saved first: a crash between the two spends a turn, never
// gives one for free.
func (s *Session) appendGoalTurn() (session.Message, error) {
	g, err := s.setGoal(func(g *session.Goal) (*session.Goal, error) {
		if !g.Running() {
			return nil, ErrGoalOver
		}
		return g.With(func(g *session.Goal) { g.TurnsUsed++ }), nil
	})
	if err != nil {
		return session.Message{}, err
	}
	m := session.Message{
		ID: newID(), Role: "user", At: s.m.opts.Now().UTC(),
		Goal:    &session.GoalTurn{Turn: g.TurnsUsed, Of: g.TurnsMax},
		Content: []session.Block{{Type: session.BlockText, Text: goalMessageText(g)}},
	}
	return m, s.appendMessage(m)
}

type goalStatusInput struct {
	Status string `json:"status"`
	Note   string `json:"note"`
}

// runGoalStatus records the agent's report on the goal.
func (s *Session) runGoalStatus(use session.Block) toolOutcome {
	var in goalStatusInput
	if err := json.Unmarshal(use.Input, &in); err != nil {
		return toolOutcome{output: "goal_status: " + err.Error(), isError: true}
	}
	note := cutRunes(strings.TrimSpace(in.Note), maxGoalNote)
	var state, output string
	switch in.Status {
	case "done":
		state, output = session.GoalDone, "Recorded: the goal is done. No further goal turn will start; finish with a short summary for the person."
	case "blocked":
		state, output = session.GoalBlocked, "Recorded: the goal is blocked and waits for the person. Say what you need from them."
	case "working":
		output = "Recorded. Go on; another turn of the goal follows this one."
	default:
		return toolOutcome{output: `goal_status needs {"status": "done" | "blocked" | "working"}.`, isError: true}
	}
	_, err := s.setGoal(func(g *session.Goal) (*session.Goal, error) {
		if !g.Running() {
			return nil, ErrNoGoal
		}
		return g.With(func(g *session.Goal) {
			if state != "" {
				g.State = state
			}
			g.Note = note
		}), nil
	})
	if errors.Is(err, ErrNoGoal) {
		return toolOutcome{output: "No goal is running now: the person has not set one, or paused or stopped it.", isError: true}
	}
	if err != nil {
		return toolOutcome{output: "goal_status: " + err.Error(), isError: true}
	}
	return toolOutcome{output: output}
}

// GoalEvent is g as the tabs see it, its bar rendered.
func (s *Session) GoalEvent(g *session.Goal) event.Goal {
	ev := event.Goal{}
	if g != nil {
		ev = event.Goal{Text: g.Text, TurnsMax: g.TurnsMax, TurnsUsed: g.TurnsUsed, State: g.State, Note: g.Note}
	}
	if r := s.m.opts.RenderGoal; r != nil {
		html, err := r(s.id, g)
		if err != nil {
			s.m.log.Warn("render goal failed", "session", s.id, "err", err)
		}
		ev.HTML = html
	}
	return ev
}

func (s *Session) publishGoal(g *session.Goal) { s.publish(s.GoalEvent(g)) }
