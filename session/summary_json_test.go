package session

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

func TestAppendSummaryJSONIsEncodingJSON(t *testing.T) {
	at := time.Date(2026, 11, 30, 1, 2, 3, 450000000, time.UTC)
	zone := time.FixedZone("", 2*3600)
	tests := []struct {
		name string
		sum  Summary
	}{
		{"zero", Summary{}},
		{"plain", Summary{ID: "0193c7b2-0000-7000-8000-0000000000be", Title: "Refactor the store", Model: "anthropic/claude-sonnet-4-5", CreatedAt: at, UpdatedAt: at.Add(time.Minute), Messages: 12, Threads: 2}},
		{"every field", Summary{
			ID: "a", Title: "Ünïcödé ✓ 日本", Model: "m", Cwd: "/home/ana/src", CreatedAt: at.In(zone), UpdatedAt: at.Add(time.Nanosecond),
			Archived: true, Messages: 1, Threads: 1, Failed: true, Parent: "p", ParentTitle: "the parent", Damaged: "truncated JSON",
			Name: "explore",
			Usage: []ModelUsage{
				{Model: "anthropic/x", Usage: Usage{InputTokens: 1, OutputTokens: 2, CacheReadInputTokens: 3, CacheCreationInputTokens: 4, CacheCreation5mInputTokens: 5, CacheCreation1hInputTokens: 6}},
				{Model: "", Usage: Usage{}},
			},
		}},
		{"escapes", Summary{ID: "b", Name: "<n>", Title: "a \"quote\" \\ <b> & \n\t\x01 \u2028 \u2029 \xff end", Cwd: "<", Damaged: "bad\x00"}},
		{"html in a usage model", Summary{ID: "c", Usage: []ModelUsage{{Model: "<m>"}}}},
		{"unknown usage members", Summary{ID: "d", Usage: []ModelUsage{{Model: "m", Usage: Usage{Unknown: jsontext.Value(`{"x":1}`)}}}}},
		{"negative counts", Summary{ID: "e", Messages: -1, Usage: []ModelUsage{{Usage: Usage{InputTokens: -5, CacheReadInputTokens: -1}}}}},
		{"pinned and tagged", Summary{ID: "g", Pinned: true, Tags: []string{"work", "two words", "日本"}}},
		{"a tag that needs escaping", Summary{ID: "h", Tags: []string{"a<b", "\"q\""}}},
		{"local time", Summary{ID: "f", CreatedAt: at.Local(), UpdatedAt: at.In(zone)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, wantErr := json.Marshal(tt.sum)
			got, err := appendSummaryJSON([]byte("prefix"), &tt.sum)
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("error %v, want %v", err, wantErr)
			}
			if string(got) != "prefix"+string(want) {
				t.Errorf("appendSummaryJSON =\n%s\nwant\n%s", got[len("prefix"):], want)
			}
		})
	}
}

func TestAppendSummaryJSONYearOutOfRange(t *testing.T) {
	sum := Summary{ID: "a", UpdatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := appendSummaryJSON(nil, &sum); err == nil {
		t.Error("no error for year 10000; encoding/json refuses it")
	}
}

func FuzzAppendSummaryJSON(f *testing.F) {
	f.Add("id", "title", "model", int64(0), int64(1))
	f.Add("<", "\u2028\xff", "\\\"", int64(-1), int64(1<<40))
	f.Fuzz(func(t *testing.T, id, title, model string, sec, tokens int64) {
		sum := Summary{
			ID: id, Title: title, Model: model, Cwd: title, UpdatedAt: time.Unix(sec, sec%1e9).UTC(),
			Usage: []ModelUsage{{Model: model, Usage: Usage{InputTokens: tokens, CacheCreation1hInputTokens: tokens / 3}}},
		}
		want, wantErr := json.Marshal(sum)
		got, err := appendSummaryJSON(nil, &sum)
		if (err != nil) != (wantErr != nil) || (err == nil && string(got) != string(want)) {
			t.Errorf("appendSummaryJSON = %s (%v), want %s (%v)", got, err, want, wantErr)
		}
	})
}
