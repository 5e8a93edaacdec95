package importer

import (
	"strings"
	"testing"

	"myco/session"
)

func use(id, name string) session.Block {
	return session.Block{Type: session.BlockToolUse, ID: id, Name: name}
}

func result(id string) session.Block {
	return session.Block{Type: session.BlockToolResult, ToolUseID: id, Content: jsonString("ok")}
}

func msg(role string, blocks ...session.Block) session.Message {
	return session.Message{ID: role, Role: role, Content: blocks}
}

// shape renders a thread as role:blocks, one message a line, so a case
// reads as the conversation it makes.
func shape(msgs []session.Message) string {
	var lines []string
	for _, m := range msgs {
		var parts []string
		for _, b := range m.Content {
			switch b.Type {
			case session.BlockToolUse:
				parts = append(parts, "use "+b.ID+" "+b.Name)
			case session.BlockToolResult:
				r := "result " + b.ToolUseID
				if b.IsError {
					r += " (made up)"
				}
				parts = append(parts, r)
			default:
				parts = append(parts, b.Text)
			}
		}
		lines = append(lines, m.Role+": "+strings.Join(parts, ", "))
	}
	return strings.Join(lines, "\n")
}

func TestPairTools(t *testing.T) {
	tests := []struct {
		name string
		in   []session.Message
		want string
	}{
		{"paired already",
			[]session.Message{msg("user", textBlock("go")), msg("assistant", use("a", "bash")), msg("user", result("a"))},
			"user: go\nassistant: use a bash\nuser: result a"},
		{"starts with the agent",
			[]session.Message{msg("assistant", textBlock("hi"))},
			"user: [Imported from test: the conversation starts with the agent's message.]\nassistant: hi"},
		{"a call with no result, then text",
			[]session.Message{msg("user", textBlock("go")), msg("assistant", use("a", "bash")), msg("assistant", textBlock("done"))},
			"user: go\nassistant: use a bash\nuser: result a (made up)\nassistant: done"},
		{"a call with no result at the end",
			[]session.Message{msg("user", textBlock("go")), msg("assistant", use("a", "bash"))},
			"user: go\nassistant: use a bash\nuser: result a (made up)"},
		{"parallel calls, results apart and out of order, text between",
			[]session.Message{msg("user", textBlock("go")), msg("assistant", use("a", "x")), msg("assistant", use("b", "y")),
				msg("user", result("b")), msg("user", textBlock("[interrupted]")), msg("user", result("a"))},
			"user: go\nassistant: use a x\nassistant: use b y\nuser: result a, result b\nuser: [interrupted]"},
		{"a result with no call",
			[]session.Message{msg("user", textBlock("go")), msg("assistant", textBlock("hm")), msg("user", result("z"))},
			"user: go\nassistant: hm\nuser: [a tool result with no call before it, kept as text]\nok"},
		{"IDs and names outside the alphabet, an ID used twice",
			[]session.Message{msg("user", textBlock("go")), msg("assistant", use("call:1", "my tool")), msg("user", result("call:1")),
				msg("assistant", use("call:1", "")), msg("user", result("call:1"))},
			"user: go\nassistant: use call_1 my_tool\nuser: result call_1\nassistant: use call_1_1 tool\nuser: result call_1_1"},
		{"blank messages dropped",
			[]session.Message{msg("user", textBlock("  ")), msg("user", textBlock("go")), msg("assistant", textBlock("\n"))},
			"user: go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n notes
			if got := shape(pairTools(tt.in, "test", &n)); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
