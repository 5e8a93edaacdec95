package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"myco/internal/errkind"
)

// Documents attached to a person's message: text and source files and
// PDFs. Their bytes live in the same content-addressed store as images
// (images/<hh>/<sha256-hex>), once whatever their name; the message keeps
// a file block naming them, so a fork or an export refers to the same blob.

// BlockFile is a document attached to a person's message:
// {"type":"file","sha256":…,"name":…,"media_type":…,"size":…}.
const BlockFile = "file"

// Media types a file block may carry.
const (
	MediaPDF  = "application/pdf"
	MediaText = "text/plain"
)

// Size limits of attached files. A PDF up to what Anthropic takes in one
// request; a text file up to 1 MiB, some 250,000 tokens, already more than
// most context windows hold; all the files of one message together up to
// the PDF limit, so that one message still fits in one request.
const (
	MaxPDFSize          = 32 << 20
	MaxTextFileSize     = 1 << 20
	MaxFilesPerMessage  = 32 << 20
	maxFileNameBytes    = 255
	defaultFileNameStem = "file"
)

var (
	// ErrFileType means the bytes are neither text (UTF-8) nor a PDF.
	ErrFileType = errkind.New(errkind.Invalid, "not a text file or a PDF")
	// ErrFileTooLarge means a file, or a message's files together, are
	// over their limit.
	ErrFileTooLarge = errkind.New(errkind.TooLarge, "file too large")
	// ErrFileMissing means a file a message names is not in the store.
	ErrFileMissing = errkind.New(errkind.NotFound, "file missing")
)

// FileRef names a stored file as a document's file block does.
type FileRef struct {
	SHA256    string `json:"sha256"`
	Name      string `json:"name"`
	MediaType string `json:"media_type"`
	Size      int64  `json:"size"`
}

// Block is the file block of a person's message that refers to f.
func (f FileRef) Block() Block {
	return Block{Type: BlockFile, SHA256: f.SHA256, Name: f.Name, MediaType: f.MediaType, Size: f.Size}
}

// FileRefOf reads a file block back as a FileRef.
func FileRefOf(b Block) FileRef {
	return FileRef{SHA256: b.SHA256, Name: b.Name, MediaType: b.MediaType, Size: b.Size}
}

// FileMarker names a file block without its bytes, as transcripts and
// search show it: [file main.go text/plain 1234 bytes sha256:<hex>].
func (b Block) FileMarker() string {
	return fmt.Sprintf("[file %s %s %d bytes sha256:%s]", b.Name, b.MediaType, b.Size, b.SHA256)
}

// SniffFile returns the media type of an attached file, judged from the
// bytes alone (the name and the declared type are never trusted): a PDF by
// its signature, text when it is valid UTF-8 without control characters
// other than white space. Anything else, images included (they have their
// own route), is ErrFileType naming what it looks like. The size limit of
// the type found is checked too.
func SniffFile(name string, data []byte) (string, error) {
	switch {
	case bytes.HasPrefix(data, []byte("%PDF-")):
		if len(data) > MaxPDFSize {
			return "", fmt.Errorf("%w: %s is %s, PDFs may be up to %s", ErrFileTooLarge, name, HumanSize(int64(len(data))), HumanSize(MaxPDFSize))
		}
		return MediaPDF, nil
	case len(data) == 0:
		return "", fmt.Errorf("%w: %s is empty", ErrFileType, name)
	case isText(data):
		if len(data) > MaxTextFileSize {
			return "", fmt.Errorf("%w: %s is %s, text files may be up to %s", ErrFileTooLarge, name, HumanSize(int64(len(data))), HumanSize(MaxTextFileSize))
		}
		return MediaText, nil
	}
	what := "binary data"
	if _, err := sniffImage(data); err == nil {
		what = "an image (attach it as an image)"
	} else if d := describeNonImage(data); strings.HasPrefix(d, "looks like ") {
		what = strings.TrimPrefix(d, "looks like ")
	}
	return "", fmt.Errorf("%w: %s is %s; myco attaches text and source files and PDFs", ErrFileType, name, what)
}

// isText is looksLikeText over the whole file: one NUL or stray control
// byte anywhere makes a binary file.
func isText(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	return utf8.Valid(data) && looksLikeText(data)
}

// CleanFileName keeps the last element of a name a browser sent, without
// control characters or path separators, at most 255 bytes; an empty one
// becomes "file".
func CleanFileName(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	name = path.Base(strings.TrimSpace(name))
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '/' || r == utf8.RuneError {
			return -1
		}
		return r
	}, name)
	if name == "." || name == ".." || name == "" {
		name = defaultFileNameStem
	}
	for len(name) > maxFileNameBytes {
		_, n := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-n]
	}
	return name
}

// PutFile stores an attached file once, beside the images, named by the
// SHA-256 of its bytes, after SniffFile accepted it. name is only carried
// into the ref, cleaned.
func (im *Images) PutFile(name string, data []byte) (FileRef, error) {
	name = CleanFileName(name)
	mediaType, err := SniffFile(name, data)
	if err != nil {
		return FileRef{}, err
	}
	sum := sha256.Sum256(data)
	ref := FileRef{SHA256: hex.EncodeToString(sum[:]), Name: name, MediaType: mediaType, Size: int64(len(data))}
	if err := im.store(ref.SHA256, data); err != nil {
		return FileRef{}, fmt.Errorf("store file %s sha256:%s: %w", name, ref.SHA256, err)
	}
	return ref, nil
}

// ReadFile returns the verified bytes of a stored file and its ref under
// name: a missing blob is ErrFileMissing naming the file, so a message
// that names one is refused with words a person can act on.
func (im *Images) ReadFile(sha, name string) ([]byte, FileRef, error) {
	data, _, err := im.Read(sha)
	if errors.Is(err, ErrImageMissing) {
		return nil, FileRef{}, fmt.Errorf("%w: %s (sha256:%s) is not in the store; attach it again", ErrFileMissing, name, sha)
	}
	if err != nil {
		return nil, FileRef{}, fmt.Errorf("file %s: %w", name, err)
	}
	mediaType, err := SniffFile(name, data)
	if err != nil && !errors.Is(err, ErrFileTooLarge) {
		return nil, FileRef{}, err
	}
	if mediaType == "" { // too large for its type now: still what it is
		mediaType = MediaText
		if bytes.HasPrefix(data, []byte("%PDF-")) {
			mediaType = MediaPDF
		}
	}
	return data, FileRef{SHA256: sha, Name: CleanFileName(name), MediaType: mediaType, Size: int64(len(data))}, nil
}

// HumanSize writes n bytes as a person reads them: 512 B, 3.4 KB, 12 MB.
func HumanSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
