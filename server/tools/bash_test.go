package tools_test

import (
	"encoding/json"
	"testing"
	"time"

	"myco/server/tools"
)

func TestBashInputTimeout(t *testing.T) {
	tests := []struct {
		name, input string
		want        time.Duration
	}{
		{"absent", `{"command":"ls"}`, tools.DefaultTimeout},
		{"seconds", `{"command":"ls","timeout_s":30}`, 30 * time.Second},
		{"fractional", `{"command":"ls","timeout_s":1.5}`, 1500 * time.Millisecond},
		{"over the limit", `{"command":"ls","timeout_s":3600}`, tools.MaxTimeout},
		{"zero", `{"command":"ls","timeout_s":0}`, tools.DefaultTimeout},
		{"negative", `{"command":"ls","timeout_s":-5}`, tools.DefaultTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in tools.BashInput
			if err := json.Unmarshal([]byte(tt.input), &in); err != nil {
				t.Fatal(err)
			}
			if got := in.Timeout(); got != tt.want {
				t.Errorf("Timeout() = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestRunResultText(t *testing.T) {
	tests := []struct {
		name string
		res  tools.RunResult
		want string
	}{
		{"output", tools.RunResult{Output: "hi\n"}, "hi\n"},
		{"no output", tools.RunResult{}, "[no output]\n"},
		{"exit code", tools.RunResult{Output: "oops", ExitCode: 2}, "oops\n[exit code 2]\n"},
		{"timeout", tools.RunResult{Output: "partial\n", ExitCode: 124, TimedOut: true},
			"partial\n[timed out: the command's processes were killed]\n[exit code 124]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.res.Text(); got != tt.want {
				t.Errorf("Text() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSchemas: the schemas are valid JSON objects that require their
// action or command.
func TestSchemas(t *testing.T) {
	for name, schema := range map[string]map[string]any{
		"bash": tools.BashSchema, "session_history": tools.HistorySchema, "session_meta": tools.MetaSchema,
	} {
		data, err := json.Marshal(schema)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var back struct {
			Type       string         `json:"type"`
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if back.Type != "object" || len(back.Required) != 1 || back.Properties[back.Required[0]] == nil {
			t.Errorf("%s schema: %s", name, data)
		}
	}
}
