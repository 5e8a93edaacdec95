// Command floor is the start-up floor of myco's stack: a server that
// links the libraries myco is built on (echo, templ, r3labs/sse, flock,
// uuid, both model SDKs, goldmark, bluemonday, chroma's formatter) and
// does nothing else. It prints its URL and answers GET / with a line of
// HTML, as myco's first page is served.
//
// Go runs every linked package's init before main, whether it is used or
// not, so this is what any server on this stack costs from spawn to its
// first answer, on this machine: BenchmarkStartupFloor times it the way
// BenchmarkStartup times myco, and the two read together say how much of
// myco's start-up is its own.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"

	_ "github.com/a-h/templ"
	_ "github.com/alecthomas/chroma/v2/formatters/html"
	_ "github.com/anthropics/anthropic-sdk-go/v2"
	_ "github.com/gofrs/flock"
	_ "github.com/google/uuid"
	"github.com/labstack/echo/v4"
	_ "github.com/microcosm-cc/bluemonday"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/r3labs/sse/v2"
	_ "github.com/yuin/goldmark"
	_ "github.com/yuin/goldmark/extension"
)

func main() {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.GET("/", func(c echo.Context) error { return c.HTML(http.StatusOK, "<!doctype html><p>ready</p>\n") })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	fmt.Printf("floor is serving at http://%s/\n", l.Addr())
	if err := http.Serve(l, e); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}
