package live

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"myco/internal/errkind"
	"myco/profiles"
	"myco/session"
)

// Guards of one turn, beside its budgets (budget.go): a turn makes at most
// max_model_calls_per_turn model calls, and the same tool call (the same
// name, byte for byte the same input) three times in a row stops it. A
// stop is a turn failure the person reads in the page (and is notified
// of, as any), and the model is told of it with the person's next
// message, in a context note: the history before is never changed.

// sameCallLimit is how many identical tool calls in a row stop a turn.
const sameCallLimit = 3

// ErrGuard is the kind of every guard's stop (*GuardError).
var ErrGuard = errkind.New(errkind.Conflict, "turn stopped by a guard")

// GuardError is a turn a guard stopped; its text says why, for the person.
type GuardError struct {
	Reason string
	// told is what the model reads of it with the person's next message.
	told string
}

func (e *GuardError) Error() string        { return e.Reason }
func (e *GuardError) Kind() errkind.Kind   { return errkind.Conflict }
func (e *GuardError) Is(target error) bool { return target == ErrGuard }
func (e *GuardError) toldModel() string    { return e.told }

func (e *BudgetError) toldModel() string {
	return "Your previous turn was stopped by myco before a model call: " + e.Error() + "."
}

// maxCalls is max_model_calls_per_turn; unset (0, settings made in code)
// is the default.
func maxCalls(st profiles.Settings) int {
	if st.MaxModelCalls > 0 {
		return st.MaxModelCalls
	}
	return profiles.DefaultMaxModelCalls
}

// callKey is use as the loop guard compares calls: its name and its
// input byte for byte, as the model sent it.
func callKey(use session.Block) toolCallKey { return toolCallKey{use.Name, string(use.Input)} }

// toolCallKey is a tool call as the loop guard compares them.
type toolCallKey struct{ name, input string }

// turnGuard counts a turn's model calls and its identical tool calls in
// a row.
type turnGuard struct {
	calls int
	last  toolCallKey
	run   int
}

// beforeCall counts a model call, or refuses it when the turn made as
// many as settings allow.
func (g *turnGuard) beforeCall(st profiles.Settings) error {
	limit := maxCalls(st)
	if g.calls >= limit {
		return &GuardError{
			Reason: fmt.Sprintf("the turn stopped after %d model calls, the most one turn may make; raise max_model_calls_per_turn in Settings, or send a message to go on", limit),
			told:   fmt.Sprintf("Your previous turn was stopped by myco after %d model calls, the most one turn may make; the person was told. Its last tool results above were not read by you yet.", limit),
		}
	}
	g.calls++
	return nil
}

// check looks at a round's tool calls, in order, and stops the turn at
// the sameCallLimit-th identical call in a row.
func (g *turnGuard) check(uses []session.Block) error {
	for _, use := range uses {
		k := callKey(use)
		if k == g.last {
			g.run++
		} else {
			g.last, g.run = k, 1
		}
		if g.run >= sameCallLimit {
			return &GuardError{
				Reason: fmt.Sprintf("the turn stopped: the agent called %s with the same input %d times in a row, which looks like a loop; send a message to go on", use.Name, sameCallLimit),
				told:   fmt.Sprintf("Your previous turn was stopped by myco: you called %s with the same input %d times in a row. Do not repeat it; try another way or ask the person.", use.Name, sameCallLimit),
			}
		}
	}
	return nil
}

// skipTools records a round's calls as not run, because the turn was
// stopped before them: every call in the thread keeps an outcome.
func (s *Session) skipTools(uses []session.Block, why string) error {
	results := make([]session.Block, 0, len(uses))
	for _, use := range uses {
		content, _ := json.Marshal("Not run: " + why + ".")
		results = append(results, session.Block{Type: session.BlockToolResult, ToolUseID: use.ID, IsError: true, Content: content})
	}
	return s.appendMessage(session.Message{ID: newID(), Role: "user", At: s.m.opts.Now().UTC(), Content: results})
}

// tellStopped leaves the model a context note, delivered with the
// person's next message, saying why myco stopped the turn (a guard or a
// budget); other failures say nothing.
func (s *Session) tellStopped(err error) {
	var told interface{ toldModel() string }
	if !errors.As(err, &told) {
		return
	}
	n := session.Note{ID: uuid.NewString(), Kind: session.NoteContext, At: s.m.opts.Now().UTC(), Text: told.toldModel()}
	if err := s.w.AddNote(n); err != nil && !isClosed(err) {
		s.m.log.Warn("the model was not told why its turn stopped", "session", s.id, "err", err)
	}
}
