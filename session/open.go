package session

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxDocumentSize bounds what is read of one document (and of one journal):
// 256 MiB. The largest real documents are a few MiB of text plus inline
// images, which live as blobs beside the document, so a document near the
// bound is already unusual; past it a read could exhaust memory (a link to
// /dev/zero, a runaway file), so such a file is listed as damaged instead.
// Decoding holds about twice the file in memory, which keeps a worst-case
// read well under a gigabyte.
const MaxDocumentSize = 256 << 20

// openRegular opens path for reading when, and only when, it is a regular
// file. The check is made on the opened descriptor (O_NOFOLLOW refuses a
// link, O_NONBLOCK keeps a FIFO from blocking the open, fstat says what was
// opened), never on the path before opening it, which another process
// could swap between the check and the open. Anything else is a
// *DamagedError whose reason says what the entry is; a missing file is an
// error matching fs.ErrNotExist.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, nil, &DamagedError{Path: path, Reason: "a link, not a file"}
		}
		if errors.Is(err, syscall.ENXIO) { // a socket, or a device without its driver
			return nil, nil, &DamagedError{Path: path, Reason: "a special file, not a file"}
		}
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if reason := notRegular(info.Mode()); reason != "" {
		f.Close()
		return nil, nil, &DamagedError{Path: path, Reason: reason}
	}
	return f, info, nil
}

// notRegular says what a file that is not a regular file is, or "".
func notRegular(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "a folder, not a file"
	case m&fs.ModeSymlink != 0:
		return "a link, not a file"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO), not a file"
	case m&fs.ModeSocket != 0:
		return "a socket, not a file"
	case m&fs.ModeDevice != 0:
		return "a device, not a file"
	}
	return "a special file, not a file"
}

// readBounded reads all of f, up to max bytes: a longer file is a
// *DamagedError, and at most max+1 bytes are ever read, whatever the file
// claims to hold.
func readBounded(f *os.File, info fs.FileInfo, path string, max int64) ([]byte, error) {
	if info.Size() > max {
		return nil, tooLarge(path, max)
	}
	data := make([]byte, 0, info.Size()+1)
	data, err := readAllInto(data, io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, tooLarge(path, max)
	}
	return data, nil
}

func tooLarge(path string, max int64) error {
	return &DamagedError{Path: path, Reason: fmt.Sprintf("larger than the maximum document size (%d MiB)", max>>20)}
}

// readAllInto is io.ReadAll appending to buf.
func readAllInto(buf []byte, r io.Reader) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// readRegular reads the regular file at path, at most max bytes.
func readRegular(path string, max int64) ([]byte, error) {
	f, info, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readBounded(f, info, path, max)
}

// boundedReader is what a streaming decoder reads: the file, cut at max+1
// bytes, with Over saying whether it went past max.
type boundedReader struct {
	r   io.Reader
	n   int64
	max int64
}

func newBoundedReader(r io.Reader, max int64) *boundedReader {
	return &boundedReader{r: io.LimitReader(r, max+1), max: max}
}

func (b *boundedReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.n += int64(n)
	return n, err
}

// Over reports whether more than max bytes were seen.
func (b *boundedReader) Over() bool { return b.n > b.max }
