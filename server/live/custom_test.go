package live

import (
	"encoding/json"
	"testing"

	"myco/server/custom"
	"myco/session"
)

// A command's allowed-tools, in the peers' words, allow myco's tools: a
// bash pattern allows one simple command, never a compound one.
func TestCommandGrantAllows(t *testing.T) {
	bash := func(cmd string) session.Block {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		return session.Block{Name: "bash", Input: in}
	}
	edit := session.Block{Name: "edit_file", Input: []byte(`{}`)}
	write := session.Block{Name: "write_file", Input: []byte(`{}`)}
	tests := []struct {
		name    string
		allowed []string
		use     session.Block
		want    bool
	}{
		{"prefix", []string{"Bash(git diff:*)"}, bash("git diff --stat"), true},
		{"prefix alone", []string{"Bash(git diff:*)"}, bash("git diff"), true},
		{"prefix is a word", []string{"Bash(git diff:*)"}, bash("git diffx"), false},
		{"compound", []string{"Bash(git diff:*)"}, bash("git diff; rm -rf ~"), false},
		{"pipe", []string{"Bash(git diff:*)"}, bash("git diff | sh"), false},
		{"substitution", []string{"Bash(echo:*)"}, bash("echo $(id)"), false},
		{"exact", []string{"Bash(make test)"}, bash("make test"), true},
		{"exact only", []string{"Bash(make test)"}, bash("make test-all"), false},
		{"all bash", []string{"Bash"}, bash("anything && more"), true},
		{"star", []string{"Bash(*)"}, bash("ls"), true},
		{"edit", []string{"Edit"}, edit, true},
		{"multiedit", []string{"MultiEdit"}, edit, true},
		{"edit is not write", []string{"Edit"}, write, false},
		{"write", []string{"Write"}, write, true},
		{"own name", []string{"write_file"}, write, true},
		{"path pattern not honoured", []string{"Edit(src/**)"}, edit, false},
		{"read needs nothing", []string{"Read", "Grep"}, bash("ls"), false},
		{"none", nil, bash("ls"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newCommandGrant(custom.Command{AllowedTools: tt.allowed})
			if got := g.allows(tt.use); got != tt.want {
				t.Errorf("%v allows %s %s: %v, want %v", tt.allowed, tt.use.Name, tt.use.Input, got, tt.want)
			}
		})
	}
	var none *commandGrant
	if none.allows(bash("ls")) {
		t.Error("no grant allows nothing")
	}
}
