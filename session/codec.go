package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Decode parses a document and checks it: well-formed UTF-8 JSON, the
// expected types, schema 1, and (when wantID is not empty) the ID that the
// file name promises. Any failure is a *DamagedError with the reason.
func Decode(data []byte, path, wantID string) (*Document, error) {
	var doc Document
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, &DamagedError{Path: path, Reason: decodeReason(err)}
	}
	if err := check(&doc, wantID); err != nil {
		return nil, &DamagedError{Path: path, Reason: err.Error()}
	}
	return &doc, nil
}

func check(doc *Document, wantID string) error {
	switch {
	case doc.Schema == 0:
		return errors.New("no schema field")
	case doc.Schema != Schema:
		return fmt.Errorf("unsupported schema %d (this myco reads schema %d)", doc.Schema, Schema)
	case doc.ID == "":
		return errors.New("no id field")
	case wantID != "" && doc.ID != wantID:
		return fmt.Errorf("id %q does not match the file name", doc.ID)
	}
	return nil
}

// decodeReason turns a JSON error into one line a person can act on.
func decodeReason(err error) string {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "truncated JSON (" + err.Error() + ")"
	}
	return err.Error()
}

// encodeOptions write documents indented: they are files people read.
var encodeOptions = json.JoinOptions(jsontext.Multiline(true), jsontext.WithIndent(" "))

// Encode serialises a document with header fields before threads.
func Encode(doc *Document) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.MarshalWrite(&buf, doc, encodeOptions); err != nil {
		return nil, fmt.Errorf("encode document %s: %w", doc.ID, err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// scanSummary reads a document for a listing. It checks everything Load
// checks (a listing must show as damaged exactly the documents that cannot
// be opened, wrong types deep inside messages included), but keeps no
// thread: each message is decoded, counted and dropped.
func scanSummary(r io.Reader, path, wantID string) (Summary, error) {
	var d summaryDoc
	// A fork's threads are counted knowing its fork point: a document
	// myco writes has "parent" before "threads", so it is read by then.
	d.Threads.parent = &d.Parent
	err := json.UnmarshalRead(r, &d)
	if err == nil {
		err = check(&d.Document, wantID)
	}
	if err != nil {
		return Summary{ID: wantID, Damaged: decodeReason(err)}, &DamagedError{Path: path, Reason: decodeReason(err)}
	}
	sum := d.Summarize()
	sum.Threads, sum.Messages = d.Threads.threads, d.Threads.messages
	sum.Failed = d.Threads.last == answerFailed
	sum.Usage = d.Threads.usage.byModel()
	return sum, nil
}

// summaryDoc decodes as a Document does, with the same types and checks,
// except that its Threads (shallower, so it wins over Document.Threads)
// only counts.
type summaryDoc struct {
	Document
	Threads threadCounter `json:"threads"`
}

// threadCounter counts threads and messages, and keeps how the latest
// answer ended (Summary.Failed, as Document.LastAnswerFailed says it).
type threadCounter struct {
	threads, messages int
	last              answerState
	usage             usageCounter
	// parent is the document's lineage as decoded so far: a fork counts
	// only the usage it did not inherit (Document.UsageByModel).
	parent **Parent
}

// answerState is how the latest answer seen so far ended.
type answerState int

const (
	noAnswer answerState = iota
	answerOK
	answerFailed
)

func (c *threadCounter) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return decodeArray(dec, func() error {
		var t struct {
			Thread
			Messages messageCounter `json:"messages"`
		}
		var p *Parent
		if c.parent != nil {
			p = *c.parent
		}
		i := c.threads
		t.Messages.forkAt = -1
		if p != nil && i == p.Thread {
			t.Messages.wanted = p.Message
		}
		err := json.UnmarshalDecode(dec, &t)
		c.threads++
		c.messages += t.Messages.n
		if t.Messages.last != noAnswer {
			c.last = t.Messages.last
		}
		// Only the usage is kept of each message: Carried is known once
		// the whole thread is read, whatever the order of its members.
		c.usage.thread(t.CompactedFrom, t.Carried, inheritedIn(p, i, t.Messages.n, t.Messages.forkAt), t.Messages.n, t.Messages.at)
		return err
	})
}

type messageCounter struct {
	n    int
	last answerState
	// wanted is the ID of a fork's fork point when this is its thread;
	// forkAt becomes its index (-1 until found).
	wanted string
	forkAt int
	// usage holds the model and usage of each message that has usage,
	// by its index in the thread.
	usage map[int]modelUsage
}

type modelUsage struct {
	model string
	usage *Usage
}

// at is message i's model and usage (nil when it has none).
func (mc *messageCounter) at(i int) (string, *Usage) {
	mu := mc.usage[i]
	return mu.model, mu.usage
}

func (mc *messageCounter) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return decodeArray(dec, func() error {
		var m Message
		mc.n++
		err := json.UnmarshalDecode(dec, &m)
		if mc.wanted != "" && m.ID == mc.wanted {
			mc.forkAt = mc.n - 1
		}
		if m.Usage != nil {
			if mc.usage == nil {
				mc.usage = map[int]modelUsage{}
			}
			mc.usage[mc.n-1] = modelUsage{m.Model, m.Usage}
		}
		if answer(&m) {
			mc.last = answerOK
			if m.Error != nil {
				mc.last = answerFailed
			}
		}
		return err
	})
}

// decodeArray calls elem for each element of a JSON array (null is an empty
// one, as for a slice); elem must consume the element.
func decodeArray(dec *jsontext.Decoder, elem func() error) error {
	if dec.PeekKind() == 'n' {
		_, err := dec.ReadToken()
		return err
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '[' {
		return fmt.Errorf("expected an array, found %v", tok.Kind())
	}
	for dec.PeekKind() != ']' {
		if err := elem(); err != nil {
			return err
		}
	}
	_, err = dec.ReadToken()
	return err
}
