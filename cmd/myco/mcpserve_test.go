package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const mcpServeRole = "MYCO_TEST_MCP_SERVE"

// mcpClient runs `myco mcp` (this test binary, started again in the
// role) on home's default profile and connects the SDK's client to it
// over stdio.
func mcpClient(t *testing.T, home string) *mcp.ClientSession {
	t.Helper()
	// Not reexec.Command: its -test.v would print to the protocol's stdout.
	cmd := exec.Command(os.Args[0], "-test.run=^TestMycoMCPServer$", "-test.count=1")
	cmd.Env = append(os.Environ(), mcpServeRole+"=1", "MYCO_HOME="+home)
	client := mcp.NewClient(&mcp.Implementation{Name: "claude-test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func TestMycoMCPServer(t *testing.T) {
	if os.Getenv(mcpServeRole) == "1" {
		err := run(context.Background(), []string{"mcp"}, os.Getenv, os.Stdin, os.Stdout, os.Stderr)
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0) // no test summary on the protocol's stdout
	}
	c := newCLI(t)
	first := c.create("default", "Parser rewrite")
	second := c.create("default", "Flaky test hunt")
	cs := mcpClient(t, c.home)

	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, " "); got != "myco_list myco_read myco_search myco_send" {
		t.Errorf("tools: %s", got)
	}

	out, isErr := callText(t, cs, "myco_list", map[string]any{})
	if isErr || !strings.Contains(out, first) || !strings.Contains(out, "Flaky test hunt") {
		t.Errorf("myco_list: %s", out)
	}
	if out, _ := callText(t, cs, "myco_list", map[string]any{"limit": 1}); strings.Count(out, `"id"`) != 1 {
		t.Errorf("myco_list limit 1: %s", out)
	}

	out, isErr = callText(t, cs, "myco_send", map[string]any{"session": second[:len(second)-6], "text": "The flake is in TestRetry: it sleeps."})
	if isErr || !strings.Contains(out, second) {
		t.Fatalf("myco_send: %s", out)
	}
	doc, err := c.store("default").Load(second)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Notes) != 1 || doc.Notes[0].Text != "The flake is in TestRetry: it sleeps." || !strings.Contains(doc.Notes[0].From, "claude-test") {
		t.Errorf("notes: %+v", doc.Notes)
	}

	out, _ = callText(t, cs, "myco_search", map[string]any{"query": "Parser"})
	if !strings.Contains(out, first) {
		t.Errorf("myco_search: %s", out)
	}
	out, isErr = callText(t, cs, "myco_read", map[string]any{"session": first})
	if isErr || !strings.Contains(out, "Parser rewrite") {
		t.Errorf("myco_read: %s", out)
	}

	for _, bad := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"myco_read", map[string]any{"session": "ffffffff"}, "not found"},
		{"myco_send", map[string]any{"session": first, "text": "  "}, "empty"},
		{"myco_search", map[string]any{"query": ""}, "empty"},
	} {
		out, isErr := callText(t, cs, bad.tool, bad.args)
		if !isErr || !strings.Contains(strings.ToLower(out), bad.want) {
			t.Errorf("%s %v: %v %s", bad.tool, bad.args, isErr, out)
		}
	}
}

// With the profile's server running, a note goes through its API (open
// tabs show it at once).
func TestMycoMCPSendThroughServer(t *testing.T) {
	c := newCLI(t)
	id := c.create("default", "Waiting for results")
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	getenv := func(k string) string {
		if k == "MYCO_HOME" {
			return c.home
		}
		return ""
	}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"--no-open"}, getenv, nil, &out, &errOut) }()
	waitURL(t, &out, done)
	defer func() {
		cancel()
		<-done
	}()
	cs := mcpClient(t, c.home)
	if text, isErr := callText(t, cs, "myco_send", map[string]any{"session": id, "text": "build is green", "from": "opencode"}); isErr {
		t.Fatalf("myco_send: %s", text)
	}
	// The server holds no lock on an idle session: it wrote the note.
	doc, err := c.store("default").Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Notes) != 1 || doc.Notes[0].From != "opencode" {
		t.Errorf("notes: %+v", doc.Notes)
	}
}
