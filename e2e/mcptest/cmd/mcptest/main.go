// Command mcptest serves mcptest's MCP server over stdio, for the
// browser tests; with -oauth it serves it over HTTP behind OAuth
// (mcptest.OAuthServer) on a loopback port, and prints its URL.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"

	"myco/e2e/mcptest"
)

func main() {
	oauth := flag.Bool("oauth", false, "serve over HTTP behind OAuth, and print the base URL")
	flag.Parse()
	if *oauth {
		if err := serveOAuth(); err != nil {
			fmt.Fprintln(os.Stderr, "mcptest:", err)
			os.Exit(1)
		}
		return
	}
	if err := mcptest.ServeStdio("mcptest"); err != nil {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		os.Exit(1)
	}
}

func serveOAuth() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	o := mcptest.NewOAuthServer("mcptest")
	o.Base = "http://" + ln.Addr().String()
	fmt.Println(o.Base)
	return http.Serve(ln, o)
}
