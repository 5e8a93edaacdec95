package tools

import (
	"fmt"
	"strings"
	"time"
)

// BashInput is the input of the bash tool.
type BashInput struct {
	Command string `json:"command"`
	// TimeoutS is in seconds; a number, since models write 30.0 as often as 30.
	TimeoutS float64 `json:"timeout_s,omitempty"`
}

// Timeout is the input's timeout: DefaultTimeout when absent, at most
// MaxTimeout.
func (in BashInput) Timeout() time.Duration {
	return clampTimeout(time.Duration(in.TimeoutS * float64(time.Second)))
}

// BashDescription tells the model what the bash tool does.
const BashDescription = "Run a shell command in this session's persistent bash shell. " +
	"The working folder and exported variables carry over to the next command. " +
	"stdin is empty (/dev/null): do not run interactive programs. " +
	"stdout and stderr are merged; long output keeps its start and end. " +
	"The command is killed after timeout_s seconds (default 120, at most 600)."

// BashSchema is the JSON schema of BashInput.
var BashSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"command": map[string]any{
			"type":        "string",
			"description": "The command line, run by bash. Several lines are fine.",
		},
		"timeout_s": map[string]any{
			"type":        "number",
			"minimum":     1,
			"maximum":     MaxTimeout.Seconds(),
			"description": "Seconds before the command is killed (default 120).",
		},
	},
	"required":             []string{"command"},
	"additionalProperties": false,
}

// Text is the result as the model reads it: the output, then what else it
// needs to know (a non-zero exit code, a timeout, a cut).
func (r RunResult) Text() string {
	var b strings.Builder
	b.WriteString(r.Output)
	if r.Output != "" && !strings.HasSuffix(r.Output, "\n") {
		b.WriteByte('\n')
	}
	if r.TimedOut {
		b.WriteString("[timed out: the command's processes were killed]\n")
	}
	if r.ExitCode != 0 {
		fmt.Fprintf(&b, "[exit code %d]\n", r.ExitCode)
	}
	if r.Output == "" && r.ExitCode == 0 && !r.TimedOut {
		b.WriteString("[no output]\n")
	}
	return b.String()
}
