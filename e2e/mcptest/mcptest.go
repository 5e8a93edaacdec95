// Package mcptest is a small MCP server for myco's tests: tools that
// answer, show an image, hang, crash, or answer too much. The Go tests
// serve it over stdio (a re-executed test binary) and Streamable HTTP;
// the browser tests run cmd/mcptest.
package mcptest

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PNG is a 1×1 image the image tool returns.
var PNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")

// EchoInput is the echo tool's input.
type EchoInput struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

// BigBytes is how much text the big tool answers.
const BigBytes = 300 << 10

// NewServer is the test server, named name.
func NewServer(name string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back."},
		func(_ context.Context, _ *mcp.CallToolRequest, in EchoInput) (*mcp.CallToolResult, any, error) {
			return text("echo: " + in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "image", Description: "Show a tiny picture."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "a red dot"},
				&mcp.ImageContent{Data: PNG, MIMEType: "image/png"},
			}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hang", Description: "Never answer."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exit at once."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "mcptest: crashing on purpose")
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "Answer far too much."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return text(strings.Repeat("x", BigBytes)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Report a failure."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "it went wrong"}}}, nil, nil
		})
	return s
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// ServeStdio serves the test server on stdin and stdout until the client
// goes away. MCPTEST_MODE changes how it behaves from the start:
// "hang" never answers initialize, "garbage" writes what is not
// JSON-RPC, "flood" writes one endless line, "stderr" floods stderr and
// then serves, "exit" exits at once.
func ServeStdio(name string) error {
	switch os.Getenv("MCPTEST_MODE") {
	case "hang":
		select {}
	case "garbage":
		fmt.Println("this is not json-rpc {{{")
		select {}
	case "flood":
		line := []byte(strings.Repeat("x", 1<<20))
		for {
			if _, err := os.Stdout.Write(line); err != nil {
				os.Exit(1)
			}
		}
	case "stderr":
		noise := strings.Repeat("noise ", 1<<10)
		for range 4 << 10 {
			fmt.Fprintln(os.Stderr, noise)
		}
	case "exit":
		fmt.Fprintln(os.Stderr, "mcptest: refusing to start")
		os.Exit(2)
	}
	return NewServer(name).Run(context.Background(), &mcp.StdioTransport{})
}
