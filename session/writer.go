package session

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"

	"myco/internal/errkind"
	"myco/internal/redact"
)

// Writer is the one way a session changes. It holds the session's writer
// lock and the document as it stands; every change is a journal record,
// appended to <id>.journal and applied to the document in one step
// (commit). Fold writes the document with every record in it and empties
// the journal. So a saved message costs one short append whatever the size
// of the session, and a crash loses nothing that reached the journal.
//
// A durable change (a whole message, a thread, a header change) is
// written and fsynced before its method returns. Work in progress
// (streamed text, a command's output) is gathered and written within
// flushEvery (a SIGKILL loses at most that much), or within a second when
// redaction holds a word that may be part of a secret (holdFor), and
// fsynced within syncEvery. No fsync runs under the writer's mutex.
type Writer struct {
	store *Store
	lock  *Lock
	id    string
	log   *slog.Logger

	mu      sync.Mutex // guards everything below, and the document
	dir     string
	doc     *Document
	journal *os.File
	seq     int64 // the last record written
	folded  int64 // the last record in the document on disk
	dirty   bool  // records written since the last fsync began
	// syncing: an fsync of the journal runs outside mu; a Sync that finds
	// one running waits on synced for it before it decides whether its own
	// records still need one (they may have been written after it began).
	syncing bool
	synced  *sync.Cond
	pending []byte // buffered lines of work in progress (commitBuffered)
	// runOp, runID and runText gather consecutive text of one answer or
	// command (appendRun) into one record.
	runOp, runID string
	runText      strings.Builder
	// runAt says when runText's bytes came (a mark at the end of each
	// append), so the hold knows how long its oldest byte has waited;
	// runHold swallows the rest of a span the hold gave up on and wrote
	// as a marker (settleRunLocked).
	runAt   []arrival
	runHold *redact.Hold
	flushed time.Time // when pending was last written
	// replaced: the document was replaced whole (Replace), so a fold is
	// due even with nothing in the journal.
	replaced bool
	// journalBytes were appended since the journal was last emptied;
	// docBytes is the size of the document on disk.
	journalBytes, docBytes int64
	closed                 bool

	foldMu sync.Mutex // one fold at a time
	stop   chan struct{}
	done   chan struct{}
}

// ErrWriterClosed means a change was made through a writer that was
// closed: its lock is gone, and someone else may write the session now.
var ErrWriterClosed = errkind.New(errkind.Conflict, "the session's writer is closed")

// syncEvery is how often text and tool output reach the disk for sure.
const syncEvery = time.Second

// OpenWriter takes session id's writer lock and reads its document,
// replaying the journal; what a crash cut short is kept (an interrupted
// answer, the outcome of an interrupted tool call) and folded into the
// document at once. A session locked elsewhere gives *LockedError; a
// damaged one is refused and left as it is.
func (s *Store) OpenWriter(id string, owner Owner) (*Writer, error) {
	lock, err := s.Lock(id, owner)
	if err != nil {
		return nil, err
	}
	w, err := s.openWriter(lock)
	if err != nil {
		lock.Unlock()
		return nil, err
	}
	return w, nil
}

func (s *Store) openWriter(lock *Lock) (*Writer, error) {
	id := lock.ID()
	dir, _, err := s.locate(id)
	if err != nil {
		return nil, err
	}
	// The lock is held: no write of this session is in progress anywhere,
	// so any temp file of it is a crash's leftover.
	if err := sweepSessionTemp(dir, id); err != nil {
		return nil, fmt.Errorf("open session %s: %w", id, err)
	}
	doc, err := s.loadFrom(dir, id)
	if err != nil {
		return nil, err
	}
	recs, err := readJournal(journalPath(dir, id), doc.JournalSeq)
	if err != nil {
		return nil, err
	}
	changed, err := replay(doc, recs, true, s.now().UTC())
	if err != nil {
		return nil, &DamagedError{Path: journalPath(dir, id), Reason: err.Error()}
	}
	seq := doc.JournalSeq
	if n := len(recs); n > 0 {
		seq = max(seq, recs[n-1].Seq)
	}
	var docBytes int64
	if info, err := os.Stat(filepath.Join(dir, id+".json")); err == nil {
		docBytes = info.Size()
	}
	w := &Writer{
		store: s, lock: lock, id: id, log: s.log, dir: dir, doc: doc, docBytes: docBytes,
		seq: seq, folded: doc.JournalSeq, stop: make(chan struct{}), done: make(chan struct{}),
	}
	w.synced = sync.NewCond(&w.mu)
	if changed || len(recs) > 0 {
		w.replaced = true
		if err := w.Fold(); err != nil {
			return nil, err
		}
	}
	go w.syncLoop()
	return w, nil
}

// ID is the session's ID.
func (w *Writer) ID() string { return w.id }

// View calls fn with the document as it stands. fn must not keep it or
// change it.
func (w *Writer) View(fn func(*Document)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fn(w.doc)
}

// commit writes r to the journal and applies it to the document; the
// caller holds w.mu. It is the one place a session changes.
func (w *Writer) commit(r *Record) error {
	return w.commitBuffered(r, false)
}

// commitBuffered is commit for work in progress (streamed text, command
// output) when buffered: its line waits in memory with the next ones and
// is written within flushEvery, or before any other record (the order of
// the journal is the order of the changes). A SIGKILL loses at most that
// much; a 2,000-token answer costs a few writes instead of 2,000.
func (w *Writer) commitBuffered(r *Record, buffered bool) error {
	if w.closed {
		return fmt.Errorf("change session %s: %w", w.id, ErrWriterClosed)
	}
	// The journal's order is the order of the changes: text gathered so
	// far goes first.
	if err := w.endRunLocked(); err != nil {
		return err
	}
	r.Seq = w.seq + 1
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("change session %s: %w", w.id, err)
	}
	// The document keeps the real text for the running turn; the
	// journal, like the file, never holds a secret.
	line = w.store.redactor.JSON(line)
	// Check before writing: a record the document refuses must not reach
	// the journal, where a replay would refuse it too.
	if err := checkRecord(w.doc, r); err != nil {
		return fmt.Errorf("change session %s: %w", w.id, err)
	}
	w.pending = append(append(w.pending, line...), '\n')
	if !buffered || len(w.pending) >= maxPending || time.Since(w.flushed) >= flushEvery {
		if err := w.flushLocked(); err != nil {
			w.pending = w.pending[:len(w.pending)-len(line)-1]
			return err
		}
	}
	w.seq = r.Seq
	if err := applyRecord(w.doc, r); err != nil {
		return err
	}
	switch r.Op {
	case OpMessage, OpThread, OpHeader:
		w.store.noteChanged(w.dir, w.doc) // the listing shows it before the fold
	}
	return nil
}

// Buffering of work in progress (commitBuffered).
const (
	flushEvery = 100 * time.Millisecond
	maxPending = 64 << 10
)

// The hold's bound (settleRunLocked): text that may be part of a secret
// waits at most holdFor, and holdBytes of it at most, before its place
// is written as redact.HeldMarker. holdFor and the flush ticker's period
// together make a second: a crash loses at most that much, whatever is
// streaming.
const (
	holdFor   = time.Second - flushEvery
	holdBytes = 4 << 10
)

// arrival marks that runText's bytes up to end had come by at.
type arrival struct {
	end int
	at  time.Time
}

// flushLocked writes the buffered lines to the journal (no fsync). w.mu
// is held.
func (w *Writer) flushLocked() error {
	if w.closed {
		return nil // finish flushed everything
	}
	if err := w.settleRunLocked(); err != nil {
		return err
	}
	w.flushed = time.Now()
	if len(w.pending) == 0 {
		return nil
	}
	if w.journal == nil {
		// Opened on the first change: a session only read has no journal.
		f, err := os.OpenFile(journalPath(w.dir, w.id), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("change session %s: open journal: %w", w.id, err)
		}
		w.journal = f
	}
	if _, err := w.journal.Write(w.pending); err != nil {
		return fmt.Errorf("change session %s: write journal: %w", w.id, err)
	}
	w.journalBytes += int64(len(w.pending))
	w.pending = w.pending[:0]
	w.dirty = true
	return nil
}

// ErrThreadChanged means a change was meant for a thread that is no
// longer the latest (a compaction made a successor meanwhile).
var ErrThreadChanged = errkind.New(errkind.Conflict, "the thread changed")

// record commits r and, when durable, waits until it is on disk.
func (w *Writer) record(r *Record, durable bool) error {
	return w.change(func() (*Record, error) { return r, nil }, durable)
}

// change commits the record build makes from the document as it stands
// (build runs under w.mu, and may refuse), and when durable waits until it
// is on disk, outside w.mu.
func (w *Writer) change(build func() (*Record, error), durable bool) error {
	w.mu.Lock()
	r, err := build()
	if err == nil {
		err = w.commitBuffered(r, !durable)
	}
	w.mu.Unlock()
	if err != nil || !durable {
		return err
	}
	return w.Sync()
}

// Sync makes every record written so far durable. It holds no lock that
// a change waits for: concurrent changes go on while the disk works.
func (w *Writer) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		if err := w.flushLocked(); err != nil {
			return err
		}
	}
	// An fsync already running may have begun before this caller's records
	// were written: returning on its "not dirty" would acknowledge them
	// before they are on disk. Wait for it; then the records are either in
	// it (dirty is false) or still dirty, and one fsync here covers every
	// caller that waited (a group commit).
	for w.syncing {
		w.synced.Wait()
	}
	f := w.journal
	if !w.dirty || f == nil {
		return nil
	}
	w.dirty, w.syncing = false, true
	w.mu.Unlock()
	err := f.Sync()
	w.mu.Lock()
	w.syncing = false
	w.synced.Broadcast()
	if err != nil && !errors.Is(err, os.ErrClosed) {
		w.dirty = true
		return fmt.Errorf("sync journal of %s: %w", w.id, err)
	}
	return nil
}

func (w *Writer) syncLoop() {
	defer close(w.done)
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	lastSync := time.Now()
	for {
		select {
		case <-w.stop:
			return
		case now := <-t.C:
			var err error
			if now.Sub(lastSync) >= syncEvery {
				err, lastSync = w.Sync(), now
			} else {
				w.mu.Lock()
				if !w.closed {
					err = w.flushLocked()
				}
				w.mu.Unlock()
			}
			if err != nil {
				w.log.Warn("journal write failed", "session", w.id, "err", err)
			}
		}
	}
}

// Append adds m to the latest thread, durably. dequeue names queued
// messages that leave the queue in the same step (the message is one of
// them), so a queued message is never lost nor kept twice.
func (w *Writer) Append(m Message, dequeue ...string) error {
	return w.change(func() (*Record, error) {
		return &Record{
			Op: OpMessage, Thread: max(len(w.doc.Threads)-1, 0), Message: &m,
			Header: appendHeader(m, w.doc.Queued, dequeue),
		}, nil
	}, true)
}

// appendHeader is the header change that goes with appending m: the time
// of the latest change, and the queue without the messages in dequeue.
func appendHeader(m Message, queued []Queued, dequeue []string) *Header {
	var h Header
	if !m.At.IsZero() {
		at := m.At
		h.UpdatedAt = &at
	}
	if len(dequeue) > 0 {
		q := make([]Queued, 0, len(queued))
		for _, x := range queued {
			if !slices.Contains(dequeue, x.ID) {
				q = append(q, x)
			}
		}
		h.Queued = &q
	}
	if h.UpdatedAt == nil && h.Queued == nil {
		return nil
	}
	return &h
}

// AppendThread adds a successor thread, durably, provided the latest
// thread is still thread idx holding n messages (what was summarised).
func (w *Writer) AppendThread(idx, n int, t Thread) error {
	return w.change(func() (*Record, error) {
		if len(w.doc.Threads)-1 != idx || len(w.doc.Threads[idx].Messages) != n {
			return nil, ErrThreadChanged
		}
		return &Record{Op: OpThread, NewThread: &t}, nil
	}, true)
}

// Mark records that message id of the latest thread was replaced by the
// answer replacedBy (a retry), durably.
func (w *Writer) Mark(id, replacedBy string) error {
	return w.change(func() (*Record, error) {
		return &Record{Op: OpMark, Thread: len(w.doc.Threads) - 1, ID: id, ReplacedBy: replacedBy}, nil
	}, true)
}

// Update changes the document through fn, which edits a copy: what fn
// changed is recorded, durably, as the records that make it (header
// fields set, messages appended to the latest thread, threads appended).
// fn may not edit or remove an existing message; those are kept as they
// were. fn returning an error leaves the document as it was. It returns
// the header after the change.
func (w *Writer) Update(fn func(*Document) error) (Summary, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	next := shallowCopy(w.doc)
	for i := range next.Threads {
		next.Threads[i].Messages = slices.Clip(next.Threads[i].Messages)
	}
	if err := fn(next); err != nil {
		return Summary{}, err
	}
	recs, err := changeRecords(w.doc, next)
	if err != nil {
		return Summary{}, err
	}
	for _, r := range recs {
		if err := w.commit(r); err != nil {
			return Summary{}, err
		}
	}
	sum := w.doc.Summarize()
	if len(recs) == 0 {
		return sum, nil
	}
	w.mu.Unlock()
	err = w.Sync()
	w.mu.Lock()
	return sum, err
}

// changeRecords are the records that turn cur into next: messages added
// at the end of cur's latest thread, new threads, and header fields.
func changeRecords(cur, next *Document) ([]*Record, error) {
	if len(next.Threads) < len(cur.Threads) {
		return nil, errors.New("a change may not remove threads")
	}
	var recs []*Record
	if last := len(cur.Threads) - 1; last >= 0 {
		have, want := cur.Threads[last].Messages, next.Threads[last].Messages
		if len(want) < len(have) {
			return nil, errors.New("a change may not remove messages")
		}
		for i := len(have); i < len(want); i++ {
			recs = append(recs, &Record{Op: OpMessage, Thread: last, Message: &want[i]})
		}
	}
	for i := len(cur.Threads); i < len(next.Threads); i++ {
		recs = append(recs, &Record{Op: OpThread, NewThread: &next.Threads[i]})
	}
	if h := headerChange(cur, next); h != nil {
		recs = append(recs, &Record{Op: OpHeader, Header: h})
	}
	return recs, nil
}

// StartPartial records that answer m (no content yet) starts streaming.
func (w *Writer) StartPartial(m Message) error {
	return w.record(&Record{Op: OpPartial, Message: &m}, false)
}

// Delta records text streamed into partial answer id. Consecutive deltas
// of one answer become one record, written within flushEvery and synced
// within a second: a fast stream costs no encoding per delta.
func (w *Writer) Delta(id, text string) error {
	return w.appendRun(OpDelta, id, text)
}

// StartTool records that tool call id started running.
func (w *Writer) StartTool(id string) error {
	return w.record(&Record{Op: OpTool, ID: id}, false)
}

// Output records output printed by running tool call id, gathered like
// Delta's text.
func (w *Writer) Output(id, text string) error {
	return w.appendRun(OpOutput, id, text)
}

// appendRun adds text to the run of work in progress (OpDelta or
// OpOutput of one id) that becomes one record when it ends: at another
// change, a flush, or once it is large.
func (w *Writer) appendRun(op, id, text string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("change session %s: %w", w.id, ErrWriterClosed)
	}
	if w.runOp != op || w.runID != id {
		if err := w.endRunLocked(); err != nil {
			return err
		}
		w.runOp, w.runID = op, id
	}
	w.runText.WriteString(text)
	w.runAt = append(w.runAt, arrival{end: w.runText.Len(), at: w.store.now()})
	if w.runText.Len() >= holdBytes || time.Since(w.flushed) >= flushEvery {
		return w.flushLocked()
	}
	return nil
}

// endRunLocked commits the run of work in progress as one record. w.mu
// is held.
func (w *Writer) endRunLocked() error {
	if w.runOp == "" {
		return nil
	}
	text := w.runText.String()
	if w.runHold != nil {
		// What is left of a span written as a marker stays unwritten.
		n, _ := w.runHold.Swallow(text)
		text = text[n:]
	}
	r := &Record{Op: w.runOp, ID: w.runID, Text: text}
	w.resetRunLocked()
	if text == "" {
		return nil
	}
	return w.commitBuffered(r, true)
}

// resetRunLocked ends the run of work in progress. w.mu is held.
func (w *Writer) resetRunLocked() {
	w.runOp, w.runID = "", ""
	w.runText.Reset()
	w.runAt = w.runAt[:0]
	w.runHold = nil
}

// settleRunLocked commits what the run of work in progress can give now,
// and the run goes on. When secrets are redacted, a secret split across
// two records would match in neither, so the word being written (and what
// redact.Settled says may still be part of a secret) waits for its end,
// but within a bound: once its oldest byte has waited holdFor, or
// holdBytes wait, the held text is written up to where a secret could
// start in it (redact.Releasable: all of pytest's dots), the rest as
// redact.HeldMarker, and the rest of that span, as it comes, is not
// written at all (redact.Hold). The flush ticker calls this too, so a
// hold only a later delta would release ends on time. w.mu is held.
func (w *Writer) settleRunLocked() error {
	if w.runOp == "" {
		return nil
	}
	text := w.runText.String()
	// The hold changes as it swallows: work on a copy, kept once the
	// record is written, so a failed write leaves the run as it was.
	var hold *redact.Hold
	if w.runHold != nil {
		h := *w.runHold
		hold = &h
	}
	done := 0 // bytes of text dealt with: written, or swallowed
	if hold != nil {
		n, ended := hold.Swallow(text)
		done = n
		if ended {
			hold = nil
		}
	}
	var out string // what the record gets
	if hold == nil {
		rest := text[done:]
		cut := len(rest)
		if w.store.redactor != nil {
			cut = redact.Settled(rest)
		}
		out = rest[:cut]
		done += cut
		if done < len(text) && w.heldTooLongLocked(done, len(text)) {
			// What no secret can start in goes as it is; the rest
			// becomes the marker, and so does the rest of its span.
			held := text[done:]
			safe := w.store.redactor.Releasable(held)
			out += held[:safe]
			if safe < len(held) {
				hold = redact.NewHold(held[safe:])
				out += redact.HeldMarker
			}
			done = len(text)
		}
	}
	if done == 0 {
		return nil
	}
	if out != "" {
		op, id := w.runOp, w.runID
		w.runOp, w.runID = "", "" // commitBuffered ends the run first: it is this one
		err := w.commitBuffered(&Record{Op: op, ID: id, Text: out}, true)
		w.runOp, w.runID = op, id
		if err != nil {
			return err
		}
	}
	w.runHold = hold
	w.keepRunLocked(text[done:], done)
	return nil
}

// heldTooLongLocked reports whether text[from:to] of the run, which is
// held, has reached the hold's bound. w.mu is held.
func (w *Writer) heldTooLongLocked(from, to int) bool {
	if to-from >= holdBytes {
		return true
	}
	for _, a := range w.runAt {
		if a.end > from {
			return w.store.now().Sub(a.at) >= holdFor
		}
	}
	return false
}

// keepRunLocked makes rest, what follows the first n bytes of the run's
// text, the whole of it. w.mu is held.
func (w *Writer) keepRunLocked(rest string, n int) {
	w.runText.Reset()
	w.runText.WriteString(rest)
	at := w.runAt[:0]
	for _, a := range w.runAt {
		if a.end > n {
			at = append(at, arrival{end: a.end - n, at: a.at})
		}
	}
	w.runAt = at
	if rest == "" && w.runHold == nil {
		w.runOp, w.runID = "", ""
	}
}

// Fold writes the document with every record in it, atomically, and
// empties the journal when nothing was written meanwhile. The document is
// encoded from a snapshot, outside the writer's mutex: changes go on while
// a large session is written.
func (w *Writer) Fold() error {
	w.foldMu.Lock()
	defer w.foldMu.Unlock()
	w.mu.Lock()
	// Text gathered so far becomes a record first, so the fold holds it.
	if err := w.flushLocked(); err != nil {
		w.mu.Unlock()
		return err
	}
	if w.folded == w.seq && !w.replaced {
		w.mu.Unlock()
		return nil
	}
	w.replaced = false
	snap := shallowCopy(w.doc)
	snap.JournalSeq = w.seq
	seq, dir := w.seq, w.dir
	w.mu.Unlock()
	size, err := w.store.saveSized(dir, snap)
	if err != nil {
		w.mu.Lock()
		w.replaced = true // still due
		w.mu.Unlock()
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.folded = seq
	w.doc.JournalSeq = seq
	if w.seq != seq {
		w.store.noteChanged(w.dir, w.doc) // changes made during the fold
	}
	w.docBytes = size
	if w.seq == seq {
		if w.journal == nil {
			// Left by a crash and replayed at open: nothing else is in it.
			if err := os.Truncate(journalPath(dir, w.id), 0); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("empty journal of %s: %w", w.id, err)
			}
			return nil
		}
		// Everything is in the document: start the journal afresh. Had a
		// crash come first, replay would skip these records by their seq.
		if err := w.journal.Truncate(0); err != nil {
			return fmt.Errorf("empty journal of %s: %w", w.id, err)
		}
		w.journalBytes = 0
	}
	return nil
}

// Fold thresholds: a document up to smallDocument is folded at every
// settled point (it costs under a millisecond); a larger one once its
// journal holds an eighth of its size, so a long session is not rewritten
// after every turn. Close always folds. It was 1 MiB: a session of a few
// hundred turns was then rewritten after each one, and the rewrite's
// encode and fsync grew with it and met the next turn's own (issue 21: the
// turn overhead at turn 500).
const (
	smallDocument = 64 << 10
	foldRatio     = 8
)

// FoldIfDue folds when the journal has grown enough for the document's
// size to be worth writing (see smallDocument).
func (w *Writer) FoldIfDue() error {
	w.mu.Lock()
	due := w.folded != w.seq && (w.docBytes <= smallDocument || w.journalBytes*foldRatio >= w.docBytes)
	w.mu.Unlock()
	if !due {
		return nil
	}
	return w.Fold()
}

// Replace makes doc the whole document (an import, a repair by hand) and
// writes it at once.
func (w *Writer) Replace(doc *Document) error {
	if doc.ID != w.id {
		return fmt.Errorf("replace session %s with document %s: %w", w.id, doc.ID, ErrInvalidID)
	}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return fmt.Errorf("change session %s: %w", w.id, ErrWriterClosed)
	}
	w.replaced = true // a fold is due even when the journal is empty
	w.doc = doc
	w.mu.Unlock()
	return w.Fold()
}

// Dir is the folder the session's files are in.
func (w *Writer) Dir() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dir
}

// moved tells the writer its files are now in dir (archive, restore).
func (w *Writer) moved(dir string) {
	w.mu.Lock()
	w.dir = dir
	w.mu.Unlock()
}

// Close folds the journal into the document and lets the writer lock go.
// After it, every change fails with ErrWriterClosed. It is safe to call
// more than once.
func (w *Writer) Close() error {
	err := w.finish()
	if uerr := w.lock.Unlock(); err == nil {
		err = uerr
	}
	return err
}

// finish is Close without letting the lock go (its taker does).
func (w *Writer) finish() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	// The text held back for redaction (settleRunLocked) is all there is.
	ferr := w.endRunLocked()
	w.mu.Unlock()
	if err := w.Fold(); ferr == nil {
		ferr = err
	}
	w.mu.Lock()
	w.closed = true
	f := w.journal
	w.journal = nil
	w.mu.Unlock()
	close(w.stop)
	<-w.done
	if f != nil {
		if err := f.Sync(); err != nil && ferr == nil {
			ferr = err
		}
		f.Close()
	}
	// An empty journal says nothing: leave the folder as tidy as before.
	if info, err := os.Stat(journalPath(w.Dir(), w.id)); err == nil && info.Size() == 0 && ferr == nil {
		os.Remove(journalPath(w.Dir(), w.id))
	}
	return ferr
}

// shallowCopy keeps what a change may replace: the header fields, the list
// of threads and each thread's list of messages. Changes append messages
// and threads and set header fields; they never edit a message in place.
func shallowCopy(d *Document) *Document {
	c := *d
	c.Threads = append([]Thread(nil), d.Threads...)
	c.Links = append([]Link(nil), d.Links...)
	c.Queued = append([]Queued(nil), d.Queued...)
	return &c
}

// RecoverReport says what Recover did.
type RecoverReport struct {
	Recovered []string       // sessions whose journal was folded in
	Locked    []*LockedError // held by another process, which folds them
	Damaged   []error        // journals or documents that cannot be read: left as they are
}

// Recover folds every journal that a process left unfolded (it crashed, or
// was killed) into its document, as opening each session would: what was
// cut short is kept, marked interrupted. It runs at startup, so a session
// is whole on disk without anyone opening it. progress may be nil.
func (s *Store) Recover(progress func(done, total int)) (RecoverReport, error) {
	var rep RecoverReport
	var ids []string
	for _, dir := range []string{s.dir, s.archivedDir} {
		entries, err := s.namesAtStart(dir) // unsorted: sorting 20,000 names shows at start-up
		if err != nil {
			return rep, fmt.Errorf("recover journals: %w", err)
		}
		for _, e := range entries {
			id, ok := strings.CutSuffix(e.Name(), ".journal")
			if !ok || ValidateID(id) != nil || !e.Type().IsRegular() {
				continue
			}
			if info, err := e.Info(); err == nil && info.Size() > 0 {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids) // in the order a sorted folder gave them
	for i, id := range ids {
		if progress != nil {
			progress(i, len(ids))
		}
		w, err := s.OpenWriter(id, Owner{PID: os.Getpid()})
		var le *LockedError
		switch {
		case errors.As(err, &le):
			rep.Locked = append(rep.Locked, le)
			continue
		case errors.Is(err, ErrDamaged), errors.Is(err, ErrNotFound):
			rep.Damaged = append(rep.Damaged, err)
			continue
		case err != nil:
			return rep, err
		}
		if err := w.Close(); err != nil {
			return rep, err
		}
		rep.Recovered = append(rep.Recovered, id)
	}
	if progress != nil && len(ids) > 0 {
		progress(len(ids), len(ids))
	}
	return rep, nil
}
