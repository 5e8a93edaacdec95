// Command chromacss writes the CSS for highlighted code in messages, in the
// classes web.RenderMarkdown emits. Run from the repository root:
//
//	go run ./web/chromacss > static/chroma.css
//
// and commit the result (web's tests fail while it is out of date).
package main

import (
	"bufio"
	"fmt"
	"os"

	"myco/web"
)

func main() {
	w := bufio.NewWriter(os.Stdout)
	if err := web.HighlightCSS(w); err != nil {
		fmt.Fprintln(os.Stderr, "chromacss:", err)
		os.Exit(1)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "chromacss:", err)
		os.Exit(1)
	}
}
