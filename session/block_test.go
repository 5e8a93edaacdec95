package session_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"

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

func TestUsageByModel(t *testing.T) {
	u := func(in, out, read, write int64) *session.Usage {
		return &session.Usage{InputTokens: in, OutputTokens: out, CacheReadInputTokens: read, CacheCreationInputTokens: write}
	}
	sonnet, haiku := "anthropic/claude-sonnet-4-5", "anthropic/claude-haiku-4-5"
	tests := []struct {
		name    string
		threads []session.Thread
		want    []session.ModelUsage
		parent  *session.Parent // a fork's lineage
	}{
		{"nothing used", []session.Thread{{Messages: []session.Message{{Role: "user"}}}}, nil, nil},
		{
			"one model, cache figures kept",
			[]session.Thread{{Messages: []session.Message{
				{Role: "assistant", Model: sonnet, Usage: u(10, 5, 100, 20)},
				{Role: "user"},
				{Role: "assistant", Model: sonnet, Usage: u(1, 2, 130, 0)},
			}}},
			[]session.ModelUsage{{Model: sonnet, Usage: session.Usage{InputTokens: 11, OutputTokens: 7, CacheReadInputTokens: 230, CacheCreationInputTokens: 20}}},
			nil,
		},
		{
			"each answer counts for its own model, sorted by model",
			[]session.Thread{{Messages: []session.Message{
				{Role: "assistant", Model: sonnet, Usage: u(10, 5, 0, 0)},
				{Role: "assistant", Model: haiku, Usage: u(3, 1, 0, 0)},
				{Role: "assistant", Usage: u(1, 1, 0, 0)},
			}}},
			[]session.ModelUsage{
				{Model: "", Usage: session.Usage{InputTokens: 1, OutputTokens: 1}},
				{Model: haiku, Usage: session.Usage{InputTokens: 3, OutputTokens: 1}},
				{Model: sonnet, Usage: session.Usage{InputTokens: 10, OutputTokens: 5}},
			},
			nil,
		},
		{
			"carried messages count once",
			[]session.Thread{
				{Messages: []session.Message{{ID: "a1", Role: "assistant", Model: sonnet, Usage: u(100, 10, 0, 0)}}},
				{CompactedFrom: new(int), Carried: 1, Messages: []session.Message{
					{ID: "a1", Role: "assistant", Model: sonnet, Usage: u(100, 10, 0, 0)},
					{ID: "a2", Role: "assistant", Model: sonnet, Usage: u(5, 1, 0, 0)},
				}},
			},
			[]session.ModelUsage{{Model: sonnet, Usage: session.Usage{InputTokens: 105, OutputTokens: 11}}},
			nil,
		},
		{
			"a fork counts only its own answers",
			[]session.Thread{
				{Messages: []session.Message{{ID: "a0", Role: "assistant", Model: sonnet, Usage: u(1000, 100, 0, 0)}}},
				{CompactedFrom: new(int), Messages: []session.Message{
					{ID: "u1", Role: "user"},
					{ID: "a1", Role: "assistant", Model: sonnet, Usage: u(100, 10, 0, 0)},
					{ID: "u2", Role: "user"}, // the fork point: the last message the fork kept
					{ID: "a2", Role: "assistant", Model: sonnet, Usage: u(5, 1, 0, 0)},
				}},
				{CompactedFrom: func() *int { i := 1; return &i }(), Carried: 1, Messages: []session.Message{
					{ID: "a2", Role: "assistant", Model: sonnet, Usage: u(5, 1, 0, 0)},
					{ID: "a3", Role: "assistant", Model: sonnet, Usage: u(7, 2, 0, 0)},
				}},
			},
			[]session.ModelUsage{{Model: sonnet, Usage: session.Usage{InputTokens: 12, OutputTokens: 3}}},
			&session.Parent{Session: "p", Thread: 1, Message: "u2"},
		},
		{
			"a fork that kept none of the fork thread's messages",
			[]session.Thread{
				{Messages: []session.Message{{ID: "a0", Role: "assistant", Model: sonnet, Usage: u(1000, 100, 0, 0)}}},
				{Messages: []session.Message{{ID: "a1", Role: "assistant", Model: sonnet, Usage: u(4, 4, 0, 0)}}},
			},
			[]session.ModelUsage{{Model: sonnet, Usage: session.Usage{InputTokens: 4, OutputTokens: 4}}},
			&session.Parent{Session: "p", Thread: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := &session.Document{Threads: tt.threads, Parent: tt.parent}
			if diff := cmp.Diff(tt.want, doc.UsageByModel()); diff != "" {
				t.Errorf("UsageByModel() (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, doc.Summarize().Usage); diff != "" {
				t.Errorf("Summarize().Usage (-want +got):\n%s", diff)
			}
			// The listing reads the file with its own decoder: the same sums.
			dir := t.TempDir()
			st, err := session.Open(dir, session.Options{})
			if err != nil {
				t.Fatal(err)
			}
			doc.Schema, doc.ID, doc.Title = session.Schema, "01a2353e-c5c1-7190-955f-adff282ebae0", "usage"
			b, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, doc.ID+".json"), b, 0o600); err != nil {
				t.Fatal(err)
			}
			sums, err := st.List(session.ListOptions{})
			if err != nil || len(sums) != 1 {
				t.Fatalf("List = %v, %v", sums, err)
			}
			if diff := cmp.Diff(tt.want, sums[0].Usage); diff != "" {
				t.Errorf("the listing's usage (-want +got):\n%s", diff)
			}
		})
	}
}
