package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"
)

// progress shows "label done/total" on a terminal, redrawn in place at most
// ten times a second; on anything else (a pipe, a log) it shows nothing, so
// output stays clean for scripts.
type progress struct {
	w     io.Writer
	label string
	tty   bool
	last  time.Time
	shown bool
}

func newProgress(w io.Writer, label string) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, label: label, tty: ok && term.IsTerminal(int(f.Fd()))}
}

// update is the callback the stores call as they go.
func (p *progress) update(done, total int) {
	if !p.tty || total == 0 {
		return
	}
	if done < total && time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.shown = true
	fmt.Fprintf(p.w, "\r%s %d/%d", p.label, done, total)
}

// done clears the progress line.
func (p *progress) done() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
