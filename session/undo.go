package session

import (
	"fmt"
	"slices"
)

// SetUndone marks messages ids of thread thread undone (or clears the
// mark), durably: /undo takes a turn back from what the model sees and
// /redo brings it back. The messages themselves are never removed.
func (w *Writer) SetUndone(thread int, ids []string, undone bool) error {
	if len(ids) == 0 {
		return nil
	}
	return w.change(func() (*Record, error) {
		return &Record{Op: OpUndone, Thread: thread, IDs: slices.Clone(ids), Undone: undone}, nil
	}, true)
}

func checkUndone(d *Document, r *Record) error {
	if r.Thread < 0 || r.Thread >= len(d.Threads) {
		return fmt.Errorf("undone for thread %d, which does not exist", r.Thread)
	}
	for _, id := range r.IDs {
		if !slices.ContainsFunc(d.Threads[r.Thread].Messages, func(m Message) bool { return m.ID == id }) {
			return fmt.Errorf("undone for message %s, which thread %d does not hold", id, r.Thread)
		}
	}
	return nil
}

// applyUndone copies the thread's message list before changing it, as a
// mark does: a shallow copy of the document taken earlier keeps its own.
func applyUndone(d *Document, r *Record) {
	t := &d.Threads[r.Thread]
	t.Messages = slices.Clone(t.Messages)
	for i := range t.Messages {
		if slices.Contains(r.IDs, t.Messages[i].ID) {
			t.Messages[i].Undone = r.Undone
		}
	}
}
