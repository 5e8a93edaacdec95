package session

import "fmt"

// Redacted returns doc as the store would write it: a copy with every
// secret the store's redactor knows replaced by its marker. A live
// session's document holds the real text (the running turn needs it), so
// anything that takes a document out of the process (an export) goes
// through this first. With redaction off it is doc itself.
func (s *Store) Redacted(doc *Document) (*Document, error) {
	if s.redactor == nil {
		return doc, nil
	}
	data, err := Encode(doc)
	if err != nil {
		return nil, fmt.Errorf("redact session %s: %w", doc.ID, err)
	}
	out, err := Decode(s.redactor.JSON(data), "", doc.ID)
	if err != nil {
		return nil, fmt.Errorf("redact session %s: %w", doc.ID, err)
	}
	return out, nil
}
