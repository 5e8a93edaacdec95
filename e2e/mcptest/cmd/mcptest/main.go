// Command mcptest serves mcptest's MCP server over stdio, for the
// browser tests.
package main

import (
	"fmt"
	"os"

	"myco/e2e/mcptest"
)

func main() {
	if err := mcptest.ServeStdio("mcptest"); err != nil {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		os.Exit(1)
	}
}
