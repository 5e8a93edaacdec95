package session_test

import (
	"testing"

	"myco/session"
)

func TestResultText(t *testing.T) {
	sha := "ab" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd"
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{"absent", ``, ``},
		{"null", `null`, ``},
		{"string", `"total 0\nREADME.md"`, "total 0\nREADME.md"},
		{"blocks", `[{"type":"text","text":"see"},{"type":"image","sha256":"` + sha + `","media_type":"image/png"}]`, "see\n[image sha256:" + sha + " image/png]"},
		{"inline image data is not read", `[{"type":"image","media_type":"image/gif","data":"R0lGOD"}]`, "[image inline image/gif]"},
		{"other block", `[{"type":"document"}]`, "[document]"},
		{"odd shape", `{"x":1}`, `{"x":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := session.Block{Type: session.BlockToolResult, Content: []byte(tt.content)}
			if got := b.ResultText(); got != tt.want {
				t.Errorf("ResultText() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDocumentUsageCountsCarriedMessagesOnce(t *testing.T) {
	u := func(in, out int64) *session.Usage {
		return &session.Usage{InputTokens: in, OutputTokens: out, CacheReadInputTokens: 1}
	}
	answer := session.Message{ID: "a2", Role: "assistant", Usage: u(200, 20)}
	doc := &session.Document{Threads: []session.Thread{
		{Messages: []session.Message{{ID: "a1", Role: "assistant", Usage: u(100, 10)}, answer}},
		{CompactedFrom: new(int), Carried: 1, Messages: []session.Message{answer, {ID: "a3", Role: "assistant", Usage: u(50, 5)}}},
	}}
	got := doc.Usage()
	if got.InputTokens != 350 || got.OutputTokens != 35 || got.CacheReadInputTokens != 3 {
		t.Errorf("Usage() = %+v, want in 350, out 35, cache read 3", got)
	}
}
