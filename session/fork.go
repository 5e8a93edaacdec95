package session

import (
	"fmt"
	"slices"

	"github.com/google/uuid"

	"myco/internal/errkind"
)

// ErrForkPoint means a fork was asked to end where no turn ends: a message
// not in the latest thread, or more turns than it has.
var ErrForkPoint = errkind.New(errkind.Invalid, "no such fork point")

// ForkOptions say where a fork's history ends. The latest thread is cut
// on a turn boundary (a turn starts at a message the person typed, and
// holds the answers and tool rounds that follow), so that no fork ends in
// a tool call without its outcome.
type ForkOptions struct {
	// At is a message of the latest thread: the fork keeps the whole turn
	// it belongs to.
	At string
	// KeepTurns, with ByTurns, keeps the latest thread's first KeepTurns
	// turns (0 keeps none of it).
	KeepTurns int
	ByTurns   bool
	// Call, when set, makes the fork a sub-agent's session: it answers
	// the parent's task call Call, and is titled Title.
	Call, Title string
	// Before, when set, is a message of the latest thread the fork stops
	// just before, inside a turn if need be; Version then makes the fork
	// another version of a message (versions.go).
	Before  string
	Version *VersionPoint
}

// TurnsError is a KeepTurns outside 0..Turns; it names the nearest valid
// value.
type TurnsError struct {
	Asked, Turns int
}

func (e *TurnsError) Error() string {
	nearest := min(max(e.Asked, 0), e.Turns)
	return fmt.Sprintf("cannot keep %d turns: the latest thread has %d (0 to %d); the nearest is %d", e.Asked, e.Turns, e.Turns, nearest)
}

func (e *TurnsError) Unwrap() error { return ErrForkPoint }

// Turns is the number of turns in the latest thread of d.
func (d *Document) Turns() int {
	return len(turnStarts(d.Threads[len(d.Threads)-1].Messages))
}

// turnStarts are the indexes of the messages a person typed: each starts
// a turn.
func turnStarts(msgs []Message) []int {
	var starts []int
	for i, m := range msgs {
		if m.Role == "user" && m.Human {
			starts = append(starts, i)
		}
	}
	return starts
}

// forkCut is how many of the latest thread's messages a fork keeps.
func forkCut(msgs []Message, opts ForkOptions) (int, error) {
	if opts.Before != "" {
		return versionCut(msgs, opts.Before)
	}
	starts := turnStarts(msgs)
	if opts.ByTurns {
		if opts.KeepTurns < 0 || opts.KeepTurns > len(starts) {
			return 0, &TurnsError{Asked: opts.KeepTurns, Turns: len(starts)}
		}
		if opts.KeepTurns == len(starts) {
			return len(msgs), nil
		}
		return starts[opts.KeepTurns], nil
	}
	at := slices.IndexFunc(msgs, func(m Message) bool { return m.ID == opts.At })
	if at < 0 {
		return 0, fmt.Errorf("%w: message %q is not in the latest thread", ErrForkPoint, opts.At)
	}
	for _, s := range starts {
		if s > at {
			return s, nil
		}
	}
	return len(msgs), nil
}

// Fork makes a new session seeded with session id's history up to a turn
// boundary, and saves it. The parent is only read: it may be running, in
// this process or another. Earlier threads are copied whole; the fork
// records its parent and fork point, has no title of its own yet, keeps
// the parent's think and personality, and carries neither the queue, the
// notes nor an unfinished tool round.
func (s *Store) Fork(id string, opts ForkOptions) (*Document, error) {
	parent, err := s.Load(id)
	if err != nil {
		return nil, err
	}
	last := len(parent.Threads) - 1
	msgs := parent.Threads[last].Messages
	cut, err := forkCut(msgs, opts)
	if err != nil {
		return nil, fmt.Errorf("fork session %s: %w", id, err)
	}
	kept := completeRounds(slices.Clone(msgs[:cut]))
	newID, err := uuid.NewV7()
	if err != nil {
		return nil, fmt.Errorf("fork session %s: %w", id, err)
	}
	now := s.now().UTC()
	threads := slices.Clone(parent.Threads)
	threads[last].Messages = kept
	threads[last].Carried = min(threads[last].Carried, len(kept))
	dropDanglingReplacements(threads[last].Messages)
	fork := &Document{
		Schema: Schema, ID: newID.String(), Model: parent.Model, Cwd: parent.Cwd,
		CreatedAt: now, UpdatedAt: now,
		Parent:     &Parent{Session: parent.ID, Thread: last, Title: parent.Title},
		Links:      slices.Clone(parent.Links),
		Scratchpad: parent.Scratchpad,
		// A fork keeps the parent's tags (the same work), not its pin: a
		// pin marks the one session the person put there.
		Tags: slices.Clone(parent.Tags),
		// A fork continues the same way of working: the same reasoning
		// effort, persona and plan or build mode (all in the system
		// prompt, so its first request shares the parent's). Of the notes, those its kept messages
		// carried, so they read to the model as in the parent's requests
		// (the cached prefix holds); waiting ones are the parent's mail.
		Think:       parent.Think,
		Personality: parent.Personality,
		Mode:        parent.Mode,
		// The MCP servers the person turned off stay off: the fork's
		// first request offers the parent's tools.
		MCPOff:   slices.Clone(parent.MCPOff),
		Notes:    deliveredIn(parent.Notes, kept),
		CacheKey: parent.PromptCacheKey(),
		Threads:  threads,
	}
	if len(kept) > 0 {
		fork.Parent.Message = kept[len(kept)-1].ID
	}
	// The checklist only for a fork of the whole conversation: one about
	// work the fork no longer holds is worse than none.
	if cut == len(msgs) {
		fork.Todo = slices.Clone(parent.Todo)
	}
	if opts.Version != nil {
		asVersion(fork, parent, *opts.Version)
	}
	if opts.Call != "" {
		fork.Parent.Kind, fork.Parent.Call, fork.Title = ParentSubagent, opts.Call, opts.Title
	}
	if err := s.Save(fork); err != nil {
		return nil, err
	}
	return fork, nil
}

// deliveredIn are the notes of notes that one of msgs carried.
func deliveredIn(notes []Note, msgs []Message) []Note {
	ids := make(map[string]bool, len(msgs))
	for _, m := range msgs {
		ids[m.ID] = true
	}
	var out []Note
	for _, n := range notes {
		if n.DeliveredIn != "" && ids[n.DeliveredIn] {
			out = append(out, n)
		}
	}
	return out
}

// completeRounds drops an unfinished tool round from the end of msgs (a
// fork of a turn that is still running): an answer whose tool calls have
// no outcome after it.
func completeRounds(msgs []Message) []Message {
	for len(msgs) > 0 {
		m := msgs[len(msgs)-1]
		if m.Role != "assistant" || !slices.ContainsFunc(m.Content, func(b Block) bool { return b.Type == BlockToolUse }) {
			return msgs
		}
		msgs = msgs[:len(msgs)-1]
	}
	return msgs
}

// dropDanglingReplacements clears replaced_by on answers whose
// replacement the fork does not keep: the model sees them again.
func dropDanglingReplacements(msgs []Message) {
	ids := make(map[string]bool, len(msgs))
	for _, m := range msgs {
		ids[m.ID] = true
	}
	for i := range msgs {
		if r := msgs[i].ReplacedBy; r != "" && !ids[r] {
			msgs[i].ReplacedBy = ""
		}
	}
}
