package tools

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"
)

// sniffLen is how much of a file tells text from binary: a NUL byte in it
// means binary, as git decides.
const sniffLen = 8000

// ReadResult is what read_file answers.
type ReadResult struct {
	Stamp     Stamp
	Text      string // numbered lines and notes; an image's caption
	Image     []byte // the bytes of an image file
	MediaType string
}

// ReadFile reads t as read_file shows it: the lines of in's range,
// numbered, within the caps, and notes on what was left out; or an image.
// Every byte is hashed for the stamp, whatever is shown, and a large file
// costs no more memory than what is shown.
func ReadFile(t Target, in ReadInput) (ReadResult, error) {
	f, info, err := openRegular(t)
	if err != nil {
		return ReadResult{}, err
	}
	defer f.Close()
	h := &hashCount{Hash: sha256.New()}
	br := bufio.NewReaderSize(io.TeeReader(f, h), 64<<10)
	head, _ := br.Peek(sniffLen)
	if mt := imageType(head); mt != "" {
		return readImage(t, br, h, info, mt)
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return ReadResult{}, fail(ErrNotText, "%s is a binary file (%s, %s): read_file shows text and images only; "+
			"look into it with bash (file, xxd, strings)", t.Path, http.DetectContentType(head), sizeText(info.Size()))
	}
	offset, limit := in.Range()
	text, err := numberLines(br, offset, limit)
	if err != nil {
		return ReadResult{}, fmt.Errorf("read %s: %w", t.Path, err)
	}
	return ReadResult{Stamp: h.stamp(info), Text: text}, nil
}

// openRegular opens t's file for reading, refusing anything but a regular
// file before opening it: opening a device or a pipe can block or act.
func openRegular(t Target) (*os.File, fs.FileInfo, error) {
	info, err := os.Stat(t.Real)
	if err != nil {
		return nil, nil, statError(t, err)
	}
	if err := regular(t, info); err != nil {
		return nil, nil, err
	}
	// O_NOFOLLOW and the second look catch a file swapped for a link or a
	// pipe in between.
	f, err := os.OpenFile(t.Real, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", t.Path, err)
	}
	now, err := f.Stat()
	if err == nil && (!os.SameFile(info, now) || !now.Mode().IsRegular()) {
		err = fail(ErrNotFile, "%s changed while being opened", t.Path)
	}
	if err == nil {
		// Checked on the opened file: a hard link made after Resolve is caught.
		err = t.denied.checkIdentity(t, now)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, now, nil
}

func statError(t Target, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fail(ErrNoFile, "%s does not exist", t.Path)
	}
	return fmt.Errorf("%s: %w", t.Path, err)
}

// regular refuses what the file tools do not read or write.
func regular(t Target, info fs.FileInfo) error {
	switch m := info.Mode(); {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return fail(ErrNotFile, "%s is a folder: list it with bash (ls)", t.Path)
	default:
		return fail(ErrNotFile, "%s is %s, not a regular file: the file tools read and write regular files only", t.Path, kindOf(m))
	}
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// imageType is the media type of an image the providers accept, or "".
func imageType(head []byte) string {
	switch mt := http.DetectContentType(head); mt {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return mt
	}
	return ""
}

func readImage(t Target, br io.Reader, h *hashCount, info fs.FileInfo, mediaType string) (ReadResult, error) {
	if info.Size() > ImageMaxBytes {
		return ReadResult{}, fail(ErrTooLarge, "%s is an image of %s; read_file sends images up to %s: "+
			"make a smaller copy with bash (for example: convert in.png -resize 50%% small.png) and read that", t.Path, sizeText(info.Size()), sizeText(ImageMaxBytes))
	}
	data, err := io.ReadAll(io.LimitReader(br, ImageMaxBytes+1))
	if err != nil {
		return ReadResult{}, fmt.Errorf("read %s: %w", t.Path, err)
	}
	if len(data) > ImageMaxBytes {
		return ReadResult{}, fail(ErrTooLarge, "%s grew past %s while being read", t.Path, sizeText(ImageMaxBytes))
	}
	caption := fmt.Sprintf("Image %s (%s, %s)", t.Path, mediaType, sizeText(int64(len(data))))
	return ReadResult{Stamp: h.stamp(info), Text: caption, Image: data, MediaType: mediaType}, nil
}

// hashCount hashes and counts what passes through it.
type hashCount struct {
	hash.Hash
	n int64
}

func (h *hashCount) Write(p []byte) (int, error) {
	h.n += int64(len(p))
	return h.Hash.Write(p)
}

func (h *hashCount) stamp(info fs.FileInfo) Stamp {
	return Stamp{SHA256: hex.EncodeToString(h.Sum(nil)), ModTime: info.ModTime(), Size: h.n}
}

// numbered builds read_file's text: the lines shown, then notes.
type numbered struct {
	b                   strings.Builder
	offset, limit       int
	total, first, last  int
	capped, crlf, wrong bool // cut by the byte cap; CRLF endings; invalid UTF-8
	long                []int
}

// numberLines reads br to its end: the lines from offset, at most limit
// of them and ReadMaxBytes in all, numbered like cat -n.
func numberLines(br *bufio.Reader, offset, limit int) (string, error) {
	n := &numbered{offset: offset, limit: limit}
	var buf []byte
	for {
		line, full, err := nextLine(br, buf[:0])
		buf = line
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		n.total++
		n.add(line, full)
	}
	return n.String(), nil
}

// lineKeep is what nextLine keeps of a line: LineMaxChars characters of
// up to four bytes each, and a line ending.
const lineKeep = 4*LineMaxChars + 2

// nextLine reads one line into buf, keeping at most lineKeep bytes of it,
// and tells its full length in bytes. It returns io.EOF only when no byte
// was left.
func nextLine(br *bufio.Reader, buf []byte) ([]byte, int, error) {
	full := 0
	for {
		chunk, err := br.ReadSlice('\n')
		full += len(chunk)
		if room := lineKeep - len(buf); room > 0 {
			buf = append(buf, chunk[:min(room, len(chunk))]...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && full > 0:
			return buf, full, nil
		}
		return buf, full, err
	}
}

func (n *numbered) add(line []byte, full int) {
	if n.total < n.offset || n.total >= n.offset+n.limit || n.capped {
		return
	}
	text := strings.TrimSuffix(string(line), "\n")
	if strings.HasSuffix(text, "\r") {
		text, n.crlf = text[:len(text)-1], true
	}
	cut := full > len(line)
	if cut {
		text = trimPartialRune(text)
	}
	if !utf8.ValidString(text) {
		text, n.wrong = strings.ToValidUTF8(text, "\uFFFD"), true
	}
	if r := []rune(text); len(r) > LineMaxChars || cut {
		text = string(r[:min(len(r), LineMaxChars)]) + fmt.Sprintf(" … [line cut: %s in all]", sizeText(int64(full)))
		n.long = append(n.long, n.total)
	}
	row := fmt.Sprintf("%6d\t%s\n", n.total, text)
	if n.b.Len()+len(row) > ReadMaxBytes {
		n.capped = true
		return
	}
	n.b.WriteString(row)
	if n.first == 0 {
		n.first = n.total
	}
	n.last = n.total
}

// String is the numbered lines and a note for each thing left out.
func (n *numbered) String() string {
	var notes []string
	switch {
	case n.total == 0:
		notes = append(notes, "the file is empty")
	case n.first == 0 && n.offset > n.total:
		notes = append(notes, fmt.Sprintf("the file has %d lines: offset %d is past its end", n.total, n.offset))
	case n.first == 0:
		notes = append(notes, fmt.Sprintf("line %d is longer than the %s cap: look at it with bash", n.offset, sizeText(ReadMaxBytes)))
	case n.capped:
		notes = append(notes, fmt.Sprintf("lines %d–%d of %d shown: an answer is capped at %s; read on with offset=%d",
			n.first, n.last, n.total, sizeText(ReadMaxBytes), n.last+1))
	case n.last < n.total:
		notes = append(notes, fmt.Sprintf("lines %d–%d of %d shown; read on with offset=%d", n.first, n.last, n.total, n.last+1))
	case n.first > 1:
		notes = append(notes, fmt.Sprintf("lines %d–%d of %d shown: the end of the file", n.first, n.last, n.total))
	}
	if len(n.long) > 0 {
		notes = append(notes, fmt.Sprintf("lines longer than %d characters were cut: %s", LineMaxChars, lineList(n.long)))
	}
	if n.crlf {
		notes = append(notes, "the file has Windows line endings (CRLF), not shown")
	}
	if n.wrong {
		notes = append(notes, "the file is not valid UTF-8: invalid bytes are shown as \uFFFD, and edit_file cannot match them")
	}
	for _, note := range notes {
		n.b.WriteString("[" + note + "]\n")
	}
	return n.b.String()
}

// trimPartialRune drops the start of a character that a cut left at the
// end of s.
func trimPartialRune(s string) string {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				return s[:i]
			}
			return s
		}
	}
	return s
}

// lineList names up to ten line numbers.
func lineList(lines []int) string {
	parts := make([]string, 0, min(len(lines), 10)+1)
	for i, l := range lines {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("and %d more", len(lines)-10))
			break
		}
		parts = append(parts, strconv.Itoa(l))
	}
	return strings.Join(parts, ", ")
}

// sizeText is a size as people read it.
func sizeText(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.2f MB", float64(n)/(1<<20))
}

// maxHeadFile is the largest file ReadHead reads: it hashes the whole file.
const maxHeadFile = 8 << 20

// ReadHead reads the first max bytes of t, a text file, under the file
// tools' rules (a regular file, not a hard link to a denied one), for
// myco's own use: a project's instruction files. It returns them, the
// file's size and the SHA-256 of the whole file, hex. A file with a NUL
// byte in its first bytes is not text (ErrNotText); one over 8 MB is
// ErrTooLarge.
func ReadHead(t Target, max int) (head []byte, size int64, sum string, err error) {
	f, info, err := openRegular(t)
	if err != nil {
		return nil, 0, "", err
	}
	defer f.Close()
	if info.Size() > maxHeadFile {
		return nil, 0, "", fail(ErrTooLarge, "%s is %s, over the %s read", t.Path, sizeText(info.Size()), sizeText(maxHeadFile))
	}
	h := sha256.New()
	br := bufio.NewReader(io.TeeReader(io.LimitReader(f, maxHeadFile+1), h))
	head = make([]byte, max)
	n, err := io.ReadFull(br, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, 0, "", fmt.Errorf("read %s: %w", t.Path, err)
	}
	head = head[:n]
	if bytes.IndexByte(head[:min(n, sniffLen)], 0) >= 0 {
		return nil, 0, "", fail(ErrNotText, "%s is a binary file", t.Path)
	}
	rest, err := io.Copy(io.Discard, br)
	if err != nil {
		return nil, 0, "", fmt.Errorf("read %s: %w", t.Path, err)
	}
	return head, int64(n) + rest, hex.EncodeToString(h.Sum(nil)), nil
}
