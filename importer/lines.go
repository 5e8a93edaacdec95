package importer

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"myco/session"
)

// openSource opens a source file for reading only, refusing what is not a
// regular file or is larger than MaxSourceSize.
func openSource(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscallNonblock, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w: not a regular file", ErrNotSession)
	}
	if info.Size() > MaxSourceSize {
		f.Close()
		return nil, fmt.Errorf("%w: %d bytes, over %d", ErrTooLarge, info.Size(), MaxSourceSize)
	}
	return f, nil
}

// eachLine calls fn with each line of r that fits in MaxLine bytes,
// without its newline, and returns how many lines were longer (skipped,
// never held whole). Blank lines are passed over.
func eachLine(r io.Reader, fn func(line []byte)) (long int, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > MaxLine {
				tooLong, buf = true, buf[:0]
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return long, err
		}
		if tooLong {
			long++
		} else if line := bytes.TrimSpace(buf); len(line) > 0 {
			fn(line)
		}
		buf, tooLong = buf[:0], false
		if err != nil {
			return long, nil
		}
	}
}

// readJSONL reads a JSON-lines file, decoding each line into a fresh T;
// lines that do not decode, or are too long, are counted in skipped.
func readJSONL[T any](path string) (lines []T, skipped int, err error) {
	f, err := openSource(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	long, err := eachLine(f, func(line []byte) {
		var v T
		if json.Unmarshal(line, &v, lenient) != nil {
			skipped++
			return
		}
		lines = append(lines, v)
	})
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	return lines, skipped + long, nil
}

// lenient reads what the tools wrote even when it is not strict JSON:
// a broken UTF-8 byte or a repeated key is no reason to lose a message.
var lenient = json.JoinOptions(jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))

// images collects the images of one conversation by SHA-256.
type images map[string][]byte

// block stores base64 data as an image block; data that is not an image
// is kept as a line of text saying so.
func (im images) block(mediaType, b64 string, n *notes) session.Block {
	data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil || len(data) == 0 {
		n.add("an image that could not be decoded, kept as text")
		return textBlock("[an image that could not be decoded]")
	}
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])
	im[sha] = data
	return session.Block{Type: session.BlockImage, SHA256: sha, MediaType: mediaType}
}

// dataURL stores a data: URL's image; anything else is text.
func (im images) dataURL(url string, n *notes) session.Block {
	rest, ok := strings.CutPrefix(url, "data:")
	if meta, payload, found := strings.Cut(rest, ","); ok && found && strings.HasSuffix(meta, ";base64") {
		return im.block(strings.TrimSuffix(meta, ";base64"), payload, n)
	}
	n.add("an image given by URL, kept as text")
	return textBlock("[image: " + url + "]")
}

func textBlock(s string) session.Block { return session.Block{Type: session.BlockText, Text: s} }

func jsonString(s string) jsontext.Value {
	v, _ := json.Marshal(s)
	return v
}

// keepAsText renders something with no myco equivalent as text, labelled,
// and notes it.
func keepAsText(label string, raw []byte, n *notes) session.Block {
	n.add(label + ", kept as text")
	const limit = 20000
	s := string(raw)
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return textBlock(fmt.Sprintf("[%s]\n%s", label, s))
}

// parseTime reads an RFC 3339 time, zero when it is not one.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// span widens [first, last] to hold t.
func span(first, last *time.Time, t time.Time) {
	if t.IsZero() {
		return
	}
	if first.IsZero() || t.Before(*first) {
		*first = t
	}
	if t.After(*last) {
		*last = t
	}
}
