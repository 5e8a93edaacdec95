package fakellm

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// A model that stops answering, for the client's idle watchdog:
//
//   - [[silent]]: the stream starts, the first half of the text arrives,
//     then nothing more (no byte, no end) until the client goes away;
//   - [[hang]]: the request is read and then nothing at all is sent, not
//     even the status line and headers, until the client goes away.
//
// Either takes a count, [[silent:1]] or [[silent:x1]]: only the first N
// attempts of the conversation go silent, as [[fault:529x2]] fails the
// first two (the retry then answers).

// addSilence registers [[silent]] or [[hang]] as the message's fault.
func (s *script) addSilence(name, arg string) error {
	times := 0
	if arg != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(arg, "x"))
		if err != nil || n < 1 {
			return fmt.Errorf("want a count of attempts such as 1 or x1, got %q", arg)
		}
		times = n
	}
	s.fault = &fault{kind: name, times: times}
	return nil
}

// hold blocks until the client goes away when f is a fault of kind
// ("hang" before anything is written, "silent" after half the text),
// and returns the request's context error; otherwise it returns nil at
// once.
func hold(ctx context.Context, f *fault, kind string) error {
	if f == nil || f.kind != kind {
		return nil
	}
	<-ctx.Done()
	return ctx.Err()
}
