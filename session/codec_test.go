package session_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"myco/session"
)

// sameJSON compares raw JSON values by meaning, not by layout: Encode
// indents what it writes, so a value read back is laid out differently.
var sameJSON = cmp.Comparer(func(a, b jsontext.Value) bool {
	a, b = bytes.Clone(a), bytes.Clone(b)
	// Invalid JSON cannot be canonicalised: the bytes are compared as they are.
	a.Canonicalize()
	b.Canonicalize()
	return bytes.Equal(a, b)
})

func TestDecodeHealthy(t *testing.T) {
	for _, tt := range healthyDocs {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := session.Decode(readTestdata(t, tt.file), tt.file, tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if doc.ID != tt.id || doc.Schema != session.Schema {
				t.Errorf("decoded id %q schema %d", doc.ID, doc.Schema)
			}
		})
	}
}

func TestDecodeHealthyFields(t *testing.T) {
	doc, err := session.Decode(readTestdata(t, "healthy.json"), "healthy.json", healthyID)
	if err != nil {
		t.Fatal(err)
	}
	zero := 0
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	// Spot checks of every kind of field; the round trip tests cover the rest.
	type spots struct {
		Parent  *session.Parent
		Links   int
		Second  session.Thread
		ToolUse session.Block
		Empty   session.Block
		Result  session.Block
		Usage   *session.Usage
	}
	m := doc.Threads[0].Messages
	got := spots{doc.Parent, len(doc.Links), doc.Threads[1], m[1].Content[1], m[1].Content[2], m[2].Content[0], m[1].Usage}
	got.Second.Messages = nil
	want := spots{
		Parent: &session.Parent{Session: "0193c7a0-1111-7222-8333-444455556666", Message: "msg_0001"},
		Links:  2,
		Second: session.Thread{
			CreatedAt: at("2026-11-29T18:40:00Z"), CompactedFrom: &zero, Carried: 1,
			Summary: "TestServe binds the fixed port 8080; another process holds it on CI.",
		},
		ToolUse: session.Block{Type: "tool_use", ID: "toolu_01A", Name: "bash", Input: jsontext.Value(`{"command":"go test -run TestServe -count=20 ./server/"}`)},
		Empty:   session.Block{Type: "tool_use", ID: "toolu_01B", Name: "list_ports", Input: jsontext.Value(`{}`)},
		Result: session.Block{
			Type: "tool_result", ToolUseID: "toolu_01A", IsError: true, DurationMS: 26410,
			Content: jsontext.Value(`"--- FAIL: TestServe (0.01s)\n    serve_test.go:31: listen tcp 127.0.0.1:8080: bind: address already in use\nFAIL"`),
		},
		Usage: &session.Usage{InputTokens: 1532, OutputTokens: 87, CacheReadInputTokens: 1200},
	}
	if diff := cmp.Diff(want, got, sameJSON); diff != "" {
		t.Errorf("decoded fields (-want +got):\n%s", diff)
	}
}

func TestDecodeDamaged(t *testing.T) {
	type row struct {
		name   string
		data   []byte
		wantID string
		reason string
	}
	var tests []row
	for _, d := range damagedDocs {
		tests = append(tests, row{d.name, readTestdata(t, d.file), d.id, d.reason})
	}
	tests = append(tests,
		row{"empty", nil, "", "EOF"},
		row{"null", []byte("null"), "", "no schema"},
		row{"array", []byte(`[{"schema": 1, "id": "x"}]`), "", "array"},
		row{"duplicate member", []byte(`{"schema": 1, "id": "x", "title": "a", "title": "b"}`), "", "duplicate"},
		row{"duplicate member in a message", []byte(`{"schema": 1, "id": "x", "threads": [{"messages": [{"id": "a", "id": "b"}]}]}`), "", "duplicate"},
		row{"no id", []byte(`{"schema": 1}`), "", "no id"},
		row{"schema as a string", []byte(`{"schema": "1", "id": "x"}`), "", `"/schema"`},
		row{"time not RFC 3339", []byte(`{"schema": 1, "id": "x", "created_at": "yesterday"}`), "", `"/created_at"`},
		row{"fractional token count", []byte(`{"schema": 1, "id": "x", "threads": [{"messages": [{"usage": {"input_tokens": 1.5}}]}]}`), "", "input_tokens"},
		row{"invalid JSON in a tool input", []byte(`{"schema": 1, "id": "x", "threads": [{"messages": [{"content": [{"type": "tool_use", "input": {"a" 1}}]}]}]}`), "", "input"},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := session.Decode(tt.data, "doc.json", tt.wantID)
			var de *session.DamagedError
			if !errors.As(err, &de) || !errors.Is(err, session.ErrDamaged) {
				t.Fatalf("Decode = %v, %v; want a *DamagedError", doc, err)
			}
			if de.Path != "doc.json" {
				t.Errorf("Path = %q", de.Path)
			}
			if !strings.Contains(de.Reason, tt.reason) {
				t.Errorf("reason %q does not mention %q", de.Reason, tt.reason)
			}
			if !strings.Contains(err.Error(), "doc.json") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

// TestEncodeDecode: a document built in Go survives Encode→Decode whole.
func TestEncodeDecode(t *testing.T) {
	compacted := 0
	doc := realisticDoc("0193c7b2-0000-7000-8000-0000000000b1", 3, 200)
	doc.Parent = &session.Parent{Session: "p", Thread: 2, Message: "m"}
	doc.Links = []session.Link{{URL: "https://example.com", Title: "example"}}
	doc.Threads = append(doc.Threads, session.Thread{
		CreatedAt: t0.Add(time.Hour), CompactedFrom: &compacted, Summary: "so far", Carried: 3,
		Messages: []session.Message{{
			ID: "x", Role: "assistant", StopReason: session.StopInterrupted,
			Content: []session.Block{
				{Type: session.BlockImage, SHA256: strings.Repeat("ab", 32), MediaType: "image/png"},
				{Type: session.BlockToolUse, ID: "t", Name: "noargs", Input: jsontext.Value(`{}`)},
				{Type: session.BlockToolResult, ToolUseID: "t", Content: jsontext.Value(`""`)},
				{Type: session.BlockToolResult, ToolUseID: "t", Content: jsontext.Value(`[]`)},
			},
		}},
	})
	data, err := session.Encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(data, []byte("}\n")) || !bytes.Contains(data, []byte("\n ")) {
		t.Errorf("Encode should write an indented object ending in a newline:\n%.200s", data)
	}
	got, err := session.Decode(data, "doc.json", doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(doc, got, sameJSON); diff != "" {
		t.Errorf("Encode→Decode (-want +got):\n%s", diff)
	}
}
