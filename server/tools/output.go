package tools

import (
	"bytes"
	"fmt"
	"strings"
)

// sentinel finds the line that ends a command's output in the shell's
// stream: "\n" + start + "<status>_<folder>" + end + "\n".
type sentinel struct {
	start, end []byte
	pending    []byte // output that may begin the start marker, or the payload so far
	found      bool   // the start marker was seen
}

func newSentinel(token string) *sentinel {
	return &sentinel{start: []byte("\n" + sentinelStart(token)), end: []byte(sentinelEnd(token) + "\n")}
}

// feed passes the command's output in chunk on to out and reports the
// payload once the whole sentinel has arrived. It holds back only what
// could be the start of the marker, so memory stays bounded.
func (s *sentinel) feed(chunk []byte, out *capture) (string, bool) {
	s.pending = append(s.pending, chunk...)
	if !s.found {
		i := bytes.Index(s.pending, s.start)
		if i < 0 {
			keep := s.markerPrefix()
			out.write(s.pending[:len(s.pending)-keep])
			s.pending = append(s.pending[:0], s.pending[len(s.pending)-keep:]...)
			return "", false
		}
		out.write(s.pending[:i])
		s.pending = append(s.pending[:0], s.pending[i+len(s.start):]...)
		s.found = true
	}
	if j := bytes.Index(s.pending, s.end); j >= 0 {
		return string(s.pending[:j]), true
	}
	return "", false
}

// markerPrefix is the length of the longest end of pending that could be
// the start of the marker: only that is held back, so output reaches
// out (and the journal) as it arrives, all but at most a newline.
func (s *sentinel) markerPrefix() int {
	for n := min(len(s.pending), len(s.start)-1); n > 0; n-- {
		if bytes.HasSuffix(s.pending, s.start[:n]) {
			return n
		}
	}
	return 0
}

// flush passes on what feed held back, when no sentinel is coming.
func (s *sentinel) flush(out *capture) {
	if !s.found {
		out.write(s.pending)
		s.pending = nil
	}
}

// capture keeps the head and the tail of a command's output and counts
// what falls between them, so a command that prints gigabytes costs a few
// tens of kilobytes.
type capture struct {
	headMax, tailMax int
	head, tail       []byte
	cutBytes         int
	cutLines         int
	// progress, when set, sees the output as it arrives (uncapped: the
	// caller bounds what it keeps).
	progress func([]byte)
}

// cutNoteRoom is what the note that replaces the middle may take.
const cutNoteRoom = 80

func newCapture(limit int) *capture {
	half := (limit - cutNoteRoom) / 2
	return &capture{headMax: half, tailMax: half}
}

func (c *capture) write(p []byte) {
	if c.progress != nil && len(p) > 0 {
		c.progress(p)
	}
	if room := c.headMax - len(c.head); room > 0 {
		n := min(room, len(p))
		c.head = append(c.head, p[:n]...)
		p = p[n:]
	}
	c.tail = append(c.tail, p...)
	// Evicting only past twice the tail's size keeps the copying linear.
	if len(c.tail) > 2*c.tailMax {
		c.evict(len(c.tail) - c.tailMax)
	}
}

func (c *capture) evict(n int) {
	c.cutBytes += n
	c.cutLines += bytes.Count(c.tail[:n], []byte("\n"))
	c.tail = append(c.tail[:0], c.tail[n:]...)
}

// String is the output as kept, valid UTF-8, and whether its middle was
// cut. A cut moves to a nearby line break: half a line helps nobody.
func (c *capture) String() (string, bool) {
	if len(c.tail) > c.tailMax {
		c.evict(len(c.tail) - c.tailMax)
	}
	head, tail := c.head, c.tail
	if c.cutBytes == 0 {
		return valid(string(head) + string(tail)), false
	}
	cutBytes, cutLines := c.cutBytes, c.cutLines
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 && i >= len(head)*3/4 {
		cutBytes += len(head) - (i + 1)
		head = head[:i+1]
	} else {
		head = append(head[:len(head):len(head)], '\n')
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)/4 {
		cutBytes += i + 1
		cutLines++
		tail = tail[i+1:]
	}
	note := fmt.Sprintf("[… %d bytes (%d lines) cut from the middle …]\n", cutBytes, cutLines)
	return valid(string(head) + note + string(tail)), true
}

func valid(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
