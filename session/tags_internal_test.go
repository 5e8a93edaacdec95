package session

import (
	"slices"
	"testing"

	"github.com/go-json-experiment/json"
)

// TestHeaderRecordMarks checks that a journal's header record carries a
// pin and tags through its JSON, taking them away included: a replay
// after a crash must end where the live session was.
func TestHeaderRecordMarks(t *testing.T) {
	tests := []struct {
		name     string
		from, to Document
	}{
		{"pinned and tagged", Document{}, Document{Pinned: true, Tags: []string{"a", "b"}}},
		{"unpinned and untagged", Document{Pinned: true, Tags: []string{"a"}}, Document{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := headerChange(&tt.from, &tt.to)
			if h == nil {
				t.Fatal("no header change")
			}
			data, err := json.Marshal(Record{Op: OpHeader, Header: h})
			if err != nil {
				t.Fatal(err)
			}
			var back Record
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			got := tt.from
			got.Tags = slices.Clone(tt.from.Tags)
			back.Header.apply(&got)
			if got.Pinned != tt.to.Pinned || len(got.Tags) != len(tt.to.Tags) || !slices.Equal(got.Tags, tt.to.Tags) && len(tt.to.Tags) > 0 {
				t.Errorf("replayed %s: pinned %v tags %q, want %v %q", data, got.Pinned, got.Tags, tt.to.Pinned, tt.to.Tags)
			}
		})
	}
}
