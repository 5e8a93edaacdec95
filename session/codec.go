package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

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

// header is the part of a document a listing needs.
type header struct {
	Schema    int       `json:"schema"`
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Model     string    `json:"model"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Archived  bool      `json:"archived"`
}

// scanSummary reads a document's header and counts its threads and messages
// without building them: the values under "threads" are only skipped (which
// still checks their syntax and UTF-8). Wrong types deep inside messages are
// found by Load, not here.
func scanSummary(r io.Reader, path, wantID string) (Summary, error) {
	dec := jsontext.NewDecoder(r)
	var h header
	var threads, messages int
	err := scanObject(dec, func(name string) error {
		switch name {
		case "threads":
			var err error
			threads, messages, err = countThreads(dec)
			return err
		case "schema", "id", "title", "model", "created_at", "updated_at", "archived":
			return json.UnmarshalDecode(dec, headerField(&h, name))
		default:
			return dec.SkipValue()
		}
	})
	if err == nil {
		err = checkEOF(dec)
	}
	if err == nil {
		err = check(&Document{Schema: h.Schema, ID: h.ID}, wantID)
	}
	if err != nil {
		return Summary{ID: wantID, Damaged: decodeReason(err)}, &DamagedError{Path: path, Reason: decodeReason(err)}
	}
	return Summary{
		ID: h.ID, Title: h.Title, Model: h.Model, CreatedAt: h.CreatedAt, UpdatedAt: h.UpdatedAt,
		Archived: h.Archived, Threads: threads, Messages: messages,
	}, nil
}

func headerField(h *header, name string) any {
	switch name {
	case "schema":
		return &h.Schema
	case "id":
		return &h.ID
	case "title":
		return &h.Title
	case "model":
		return &h.Model
	case "created_at":
		return &h.CreatedAt
	case "updated_at":
		return &h.UpdatedAt
	default:
		return &h.Archived
	}
}

// scanObject reads one JSON object, calling member for each name with the
// decoder positioned at its value; member must consume that value.
func scanObject(dec *jsontext.Decoder, member func(name string) error) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '{' {
		return fmt.Errorf("expected an object, found %v", tok.Kind())
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if err := member(name.String()); err != nil {
			return err
		}
	}
	_, err = dec.ReadToken()
	return err
}

// scanArray calls elem for each element of an array; elem must consume it.
func scanArray(dec *jsontext.Decoder, elem func() error) error {
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

func countThreads(dec *jsontext.Decoder) (threads, messages int, err error) {
	err = scanArray(dec, func() error {
		threads++
		return scanObject(dec, func(name string) error {
			if name != "messages" {
				return dec.SkipValue()
			}
			return scanArray(dec, func() error {
				messages++
				return dec.SkipValue()
			})
		})
	})
	return threads, messages, err
}

// checkEOF reports trailing data after the document's object.
func checkEOF(dec *jsontext.Decoder) error {
	if _, err := dec.ReadToken(); err != io.EOF {
		if err == nil {
			return errors.New("unexpected data after the document")
		}
		return err
	}
	return nil
}
