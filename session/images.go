package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"myco/internal/errkind"
)

// DefaultMaxImageSize is the largest image Put accepts unless SetMaxSize
// says otherwise.
const DefaultMaxImageSize = 20 << 20

// octetStream is the media type Read gives a verified blob it cannot sniff:
// a newer myco may store types this one does not know, and its bytes are
// still intact.
const octetStream = "application/octet-stream"

var (
	// ErrImageMissing means no blob is stored under the SHA-256 asked for.
	ErrImageMissing = errkind.New(errkind.NotFound, "image missing")
	// ErrImageCorrupt means a blob's bytes no longer hash to its name.
	ErrImageCorrupt = errkind.New(errkind.Damaged, "image corrupt")
	// ErrNotImage means the bytes are not a png, jpeg, gif or webp image.
	ErrNotImage = errkind.New(errkind.Invalid, "not a png, jpeg, gif or webp image")
	// ErrImageTooLarge means the bytes are over the store's size limit.
	ErrImageTooLarge = errkind.New(errkind.TooLarge, "image too large")
	// ErrInvalidSHA means a blob name is not 64 lowercase hex digits.
	ErrInvalidSHA = errkind.New(errkind.Invalid, "invalid sha256")
)

// Images is the content-addressed blob store of a profile:
// images/<hh>/<sha256-hex>, hh being the first two hex digits, so no folder
// grows too large. A blob is named by the SHA-256 of its bytes: it is stored
// once and verified on every read. An Images is safe for concurrent use once
// SetMaxSize, if wanted, has been called.
type Images struct {
	dir     string
	maxSize int64
}

// ImageRef names a stored image as a document's image block does.
type ImageRef struct {
	SHA256    string `json:"sha256"`
	MediaType string `json:"media_type"`
}

// ImageError is a blob that cannot be read as stored. Err is ErrImageMissing,
// ErrImageCorrupt (then Actual is what the bytes hash to), or the I/O error
// that stopped the read.
type ImageError struct {
	SHA256 string
	Path   string
	Actual string
	Err    error
}

// Error names the blob and where it should be, so a user can go and look.
func (e *ImageError) Error() string {
	switch {
	case errors.Is(e.Err, ErrImageMissing):
		return fmt.Sprintf("image sha256:%s missing at %s", e.SHA256, e.Path)
	case errors.Is(e.Err, ErrImageCorrupt):
		return fmt.Sprintf("image sha256:%s corrupt at %s: content hashes to %s", e.SHA256, e.Path, e.Actual)
	case errors.Is(e.Err, ErrInvalidSHA):
		return fmt.Sprintf("image %.80q cannot name a blob: %v", e.SHA256, ErrInvalidSHA)
	}
	return fmt.Sprintf("image sha256:%s unreadable at %s: %v", e.SHA256, e.Path, e.Err)
}

// Unwrap lets errors.Is see ErrImageMissing or ErrImageCorrupt.
func (e *ImageError) Unwrap() error { return e.Err }

// OpenImages opens the store in dir, creating it (mode 0700) if absent, and
// removes the temp files that writes cut short by a crash left behind. It
// does so at open rather than on each Put, so a Put costs no folder listing.
func OpenImages(dir string) (*Images, error) {
	if err := makePrivateDir(dir); err != nil {
		return nil, fmt.Errorf("open images: %w", err)
	}
	im := &Images{dir: dir, maxSize: DefaultMaxImageSize}
	if err := im.sweep(); err != nil {
		return nil, fmt.Errorf("open images: %w", err)
	}
	return im, nil
}

// SetMaxSize sets the largest image Put and PutReader accept; n <= 0 restores
// DefaultMaxImageSize. Call it before the store is shared.
func (im *Images) SetMaxSize(n int64) {
	if n <= 0 {
		n = DefaultMaxImageSize
	}
	im.maxSize = n
}

// MaxSize returns the largest image Put accepts, so a caller can refuse a
// larger upload before reading it.
func (im *Images) MaxSize() int64 { return im.maxSize }

// Dir returns the folder the store lives in.
func (im *Images) Dir() string { return im.dir }

// ValidSHA256 reports whether s can name a blob: 64 lowercase hex digits.
func ValidSHA256(s string) bool {
	return len(s) == 2*sha256.Size && isLowerHex(s)
}

// Path returns where blob sha lives. sha must be 64 lowercase hex digits;
// anything else is ErrInvalidSHA, so a name taken from a request can never
// point outside the store.
func (im *Images) Path(sha string) (string, error) {
	if !ValidSHA256(sha) {
		return "", fmt.Errorf("%w: %.80q", ErrInvalidSHA, sha)
	}
	return filepath.Join(im.dir, sha[:2], sha), nil
}

// Has reports whether blob sha is stored. It does not read the bytes: Read
// verifies them.
func (im *Images) Has(sha string) bool {
	path, err := im.Path(sha)
	if err != nil {
		return false
	}
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

// Put stores data once, named by its SHA-256, as a file of mode 0600 in a
// folder of mode 0700. The media type comes from the bytes alone: only png,
// jpeg, gif and webp are accepted (else ErrNotImage), up to the size limit
// (else ErrImageTooLarge). A blob already stored with these bytes is left
// untouched; one whose bytes went bad is replaced.
func (im *Images) Put(data []byte) (ImageRef, error) {
	if int64(len(data)) > im.maxSize {
		return ImageRef{}, fmt.Errorf("%w: %d bytes, limit %d bytes", ErrImageTooLarge, len(data), im.maxSize)
	}
	mediaType, err := sniffImage(data)
	if err != nil {
		return ImageRef{}, err
	}
	sum := sha256.Sum256(data)
	ref := ImageRef{SHA256: hex.EncodeToString(sum[:]), MediaType: mediaType}
	if err := im.store(ref.SHA256, data); err != nil {
		return ImageRef{}, fmt.Errorf("store image sha256:%s: %w", ref.SHA256, err)
	}
	return ref, nil
}

// PutReader reads an image from r and stores it as Put does. It reads at most
// one byte past the size limit, so a huge or endless body costs no more
// memory than the largest image allowed.
func (im *Images) PutReader(r io.Reader) (ImageRef, error) {
	data, err := io.ReadAll(io.LimitReader(r, im.maxSize+1))
	if err != nil {
		return ImageRef{}, fmt.Errorf("read image: %w", err)
	}
	if int64(len(data)) > im.maxSize {
		return ImageRef{}, fmt.Errorf("%w: over the limit of %d bytes", ErrImageTooLarge, im.maxSize)
	}
	return im.Put(data)
}

// store writes data as blob sha unless the very same bytes are there already,
// so a repeated upload costs one read instead of a write and two fsyncs.
func (im *Images) store(sha string, data []byte) error {
	folder := filepath.Join(im.dir, sha[:2])
	same, err := sameContent(filepath.Join(folder, sha), data)
	if err != nil || same {
		return err
	}
	if err := makePrivateDir(folder); err != nil {
		return err
	}
	return writeFileAtomic(folder, sha, data, 0o600)
}

// sameContent reports whether the file at path holds exactly data. A missing
// file is not the same; neither is a damaged one, which Put then replaces.
func sameContent(path string, data []byte) (bool, error) {
	got, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil && bytes.Equal(got, data), err
}

// Read returns the bytes of blob sha after checking that they hash to sha. A
// missing blob is an *ImageError wrapping ErrImageMissing; bytes that hash to
// something else, one wrapping ErrImageCorrupt. The media type is sniffed
// from the bytes; a type this version does not know reads as
// application/octet-stream rather than failing, since the bytes are intact.
func (im *Images) Read(sha string) ([]byte, ImageRef, error) {
	path, err := im.Path(sha)
	if err != nil {
		return nil, ImageRef{}, fmt.Errorf("read image: %w", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, ImageRef{}, readError(sha, path, err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != sha {
		return nil, ImageRef{}, &ImageError{SHA256: sha, Path: path, Actual: got, Err: ErrImageCorrupt}
	}
	mediaType, err := sniffImage(data)
	if err != nil {
		mediaType = octetStream
	}
	return data, ImageRef{SHA256: sha, MediaType: mediaType}, nil
}

// readError turns a failed read of blob sha into an *ImageError, with
// ErrImageMissing standing for the many ways the OS says "not there".
func readError(sha, path string, err error) *ImageError {
	if errors.Is(err, fs.ErrNotExist) {
		err = ErrImageMissing
	}
	return &ImageError{SHA256: sha, Path: path, Err: err}
}

// VerifyReport is what Verify found: how many blobs and bytes it hashed,
// the blobs that are corrupt or unreadable, the referenced blobs that are
// not stored, and the paths of stray entries (temp files, files or folders
// not named like blobs), which it never deletes. A Missing entry wraps
// ErrImageMissing, or ErrInvalidSHA when the reference cannot name a blob
// at all (Read refuses it just the same).
type VerifyReport struct {
	Checked int
	Bytes   int64
	Corrupt []ImageError
	Missing []ImageError
	Stray   []string
}

// Verify hashes every blob and reports those whose bytes do not match their
// name, then looks for every blob that is true in referenced: one that is
// not stored is Missing. A missing blob is the worse damage (a page shows
// a hole where the image was), and hashing alone cannot see it, since there
// is nothing to hash. progress, if not nil, is called with (0, total) before
// the first blob and after each one, so a CLI can show how far along it is.
func (im *Images) Verify(referenced map[string]bool, progress func(done, total int)) (VerifyReport, error) {
	blobs, stray, err := im.scan()
	if err != nil {
		return VerifyReport{}, fmt.Errorf("verify images: %w", err)
	}
	report := VerifyReport{Stray: stray}
	progress = imageProgress(progress)
	progress(0, len(blobs))
	stored := make(map[string]bool, len(blobs))
	for i, b := range blobs {
		stored[b.sha] = true
		report.check(b)
		progress(i+1, len(blobs))
	}
	for _, sha := range slices.Sorted(maps.Keys(referenced)) {
		if referenced[sha] && !stored[sha] {
			report.lookFor(im, sha)
		}
	}
	return report, nil
}

// lookFor records referenced blob sha as missing unless it was stored after
// the scan.
func (r *VerifyReport) lookFor(im *Images, sha string) {
	path, err := im.Path(sha)
	switch {
	case err != nil:
		r.Missing = append(r.Missing, ImageError{SHA256: sha, Err: ErrInvalidSHA})
	case !im.Has(sha):
		r.Missing = append(r.Missing, ImageError{SHA256: sha, Path: path, Err: ErrImageMissing})
	}
}

// check hashes one blob into the report. A blob gone since the scan was
// collected meanwhile: nothing is wrong with it, and nothing is left to check.
func (r *VerifyReport) check(b blob) {
	got, n, err := hashFile(b.path)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	r.Checked++
	r.Bytes += n
	switch {
	case err != nil:
		r.Corrupt = append(r.Corrupt, ImageError{SHA256: b.sha, Path: b.path, Err: err})
	case got != b.sha:
		r.Corrupt = append(r.Corrupt, ImageError{SHA256: b.sha, Path: b.path, Actual: got, Err: ErrImageCorrupt})
	}
}

// hashFile streams the file at path through SHA-256, so verifying a large
// store does not hold a whole blob in memory.
func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", n, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// CollectReport is what Collect removed or, with DryRun, would remove:
// Removed holds the SHA-256 of each such blob and Bytes their total size;
// Kept counts the blobs still referenced.
type CollectReport struct {
	Kept    int
	Removed []string
	Bytes   int64
	DryRun  bool
}

// Collect removes every blob whose SHA-256 is not true in referenced. It is
// the only way a blob goes away: nothing is collected on its own. With dryRun
// it removes nothing and reports what would go. Stray files are left alone.
// Keys match regardless of case, so a hand-edited reference in capitals
// still keeps its blob. A nil referenced is refused, as it would remove
// every blob; pass an empty map to mean that. A blob put after referenced
// was gathered, and not yet in a saved document, is removed too: run it when
// no upload is pending. On an error, the report says what was removed
// before it.
func (im *Images) Collect(referenced map[string]bool, dryRun bool, progress func(done, total int)) (CollectReport, error) {
	report := CollectReport{DryRun: dryRun}
	if referenced == nil {
		return report, errors.New("collect images: referenced set is nil")
	}
	keep := lowerKeys(referenced)
	blobs, _, err := im.scan()
	if err != nil {
		return report, fmt.Errorf("collect images: %w", err)
	}
	progress = imageProgress(progress)
	progress(0, len(blobs))
	for i, b := range blobs {
		if keep[b.sha] {
			report.Kept++
		} else if err := report.remove(b); err != nil {
			return report, fmt.Errorf("collect images: %w", err)
		}
		progress(i+1, len(blobs))
	}
	return report, nil
}

// lowerKeys returns the keys that are true in set, in lowercase as blob
// names are.
func lowerKeys(set map[string]bool) map[string]bool {
	lower := make(map[string]bool, len(set))
	for k, ok := range set {
		if ok {
			lower[strings.ToLower(k)] = true
		}
	}
	return lower
}

// remove deletes one blob, or only counts it on a dry run. Its hh folder
// stays, even empty: removing it could race a Put that has just made it.
func (r *CollectReport) remove(b blob) error {
	info, err := os.Stat(b.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !r.DryRun {
		if err := os.Remove(b.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	r.Removed = append(r.Removed, b.sha)
	r.Bytes += info.Size()
	return nil
}

// imageProgress returns progress, or a no-op when the caller wants none.
func imageProgress(progress func(done, total int)) func(done, total int) {
	if progress == nil {
		return func(int, int) {}
	}
	return progress
}

// blob is a regular file in the store named like a blob, in the hh folder
// its name says.
type blob struct{ sha, path string }

// scan lists the blobs of the store and, apart, the paths of every other
// entry: temp files, stray files, folders that have no business there.
func (im *Images) scan() ([]blob, []string, error) {
	folders, err := os.ReadDir(im.dir)
	if err != nil {
		return nil, nil, err
	}
	var blobs []blob
	var stray []string
	for _, f := range folders {
		path := filepath.Join(im.dir, f.Name())
		if !f.IsDir() || !isFanout(f.Name()) {
			stray = append(stray, path)
			continue
		}
		b, s, err := scanFolder(path, f.Name())
		if err != nil {
			return nil, nil, err
		}
		blobs, stray = append(blobs, b...), append(stray, s...)
	}
	slices.Sort(stray)
	return blobs, stray, nil
}

// scanFolder sorts the entries of one hh folder into blobs and strays. A blob
// in the wrong folder is a stray: Read would never find it.
func scanFolder(dir, hh string) ([]blob, []string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var blobs []blob
	var stray []string
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if e.Type().IsRegular() && ValidSHA256(e.Name()) && e.Name()[:2] == hh {
			blobs = append(blobs, blob{sha: e.Name(), path: path})
		} else {
			stray = append(stray, path)
		}
	}
	return blobs, stray, nil
}

// sweep removes leftover temp files from the hh folders. sweepTemp leaves
// young ones, which may belong to another process's write in progress.
func (im *Images) sweep() error {
	folders, err := os.ReadDir(im.dir)
	if err != nil {
		return err
	}
	for _, f := range folders {
		if f.IsDir() && isFanout(f.Name()) {
			if err := sweepTemp(filepath.Join(im.dir, f.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// makePrivateDir creates dir with mode 0700, and its parents if need be,
// then syncs the parent: a blob made durable in a folder whose own entry was
// lost in a crash would be lost with it.
func makePrivateDir(dir string) error {
	err := os.Mkdir(dir, 0o700)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			return err
		}
		err = os.Mkdir(dir, 0o700)
	}
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return syncDir(filepath.Dir(dir))
}

// isFanout reports whether name can be an hh folder: two lowercase hex digits.
func isFanout(name string) bool { return len(name) == 2 && isLowerHex(name) }

// isLowerHex reports whether s holds only the digits 0-9 and a-f.
func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// imageFormat is one accepted image type: magic recognises its signature,
// header checks that a decodable header follows it.
type imageFormat struct {
	name, mediaType string
	magic           func(data []byte) bool
	header          func(data []byte) error
}

// imageFormats are the types Put accepts. An allow-list rather than
// http.DetectContentType (which session may not import anyway): SVG and HTML
// can carry scripts and must never be stored as images.
var imageFormats = []imageFormat{
	{"png", "image/png", magicPrefix("\x89PNG\r\n\x1a\n"), decodeHeader(png.DecodeConfig)},
	{"jpeg", "image/jpeg", magicPrefix("\xff\xd8\xff"), decodeHeader(jpeg.DecodeConfig)},
	{"gif", "image/gif", magicPrefix("GIF87a", "GIF89a"), decodeHeader(gif.DecodeConfig)},
	{"webp", "image/webp", isRIFFWebP, webpHeader},
}

// sniffImage returns the media type of data, judged from the bytes alone:
// the signature, then the header behind it, so a bare signature is refused.
func sniffImage(data []byte) (string, error) {
	for _, f := range imageFormats {
		if !f.magic(data) {
			continue
		}
		if err := f.header(data); err != nil {
			return "", fmt.Errorf("%w: %s signature but a broken header: %w", ErrNotImage, f.name, err)
		}
		return f.mediaType, nil
	}
	return "", fmt.Errorf("%w: %s", ErrNotImage, describeNonImage(data))
}

// magicPrefix matches data that starts with any of prefixes.
func magicPrefix(prefixes ...string) func([]byte) bool {
	return func(data []byte) bool {
		return slices.ContainsFunc(prefixes, func(p string) bool { return bytes.HasPrefix(data, []byte(p)) })
	}
}

// decodeHeader adapts a standard library DecodeConfig, which reads the
// header only, to check bytes held in memory.
func decodeHeader(decodeConfig func(io.Reader) (image.Config, error)) func([]byte) error {
	return func(data []byte) error {
		_, err := decodeConfig(bytes.NewReader(data))
		return err
	}
}

// isRIFFWebP matches the RIFF container of a webp file, whatever its size.
func isRIFFWebP(data []byte) bool {
	return len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP"
}

// webpHeader checks the first chunk of a RIFF WEBP file as DecodeConfig
// checks the other formats: it must be VP8, VP8L or VP8X and give a nonzero
// width and height. The standard library has no webp decoder, hence these.
func webpHeader(data []byte) error {
	if len(data) < 20 {
		return errors.New("no chunk after the riff header")
	}
	kind, payload := string(data[12:16]), data[20:]
	if size := binary.LittleEndian.Uint32(data[16:20]); uint64(size) < uint64(len(payload)) {
		payload = payload[:size]
	}
	sizeOf, ok := webpChunks[kind]
	if !ok {
		return fmt.Errorf("first chunk is %q, not VP8, VP8L or VP8X", kind)
	}
	w, h, err := sizeOf(payload)
	if err == nil && (w == 0 || h == 0) {
		err = fmt.Errorf("%q chunk says %dx%d", kind, w, h)
	}
	return err
}

// webpChunks read the canvas size from the payload of each first chunk a
// webp file may start with.
var webpChunks = map[string]func(p []byte) (w, h int, err error){
	"VP8 ": vp8Size,
	"VP8L": vp8lSize,
	"VP8X": vp8xSize,
}

// vp8Size reads a lossy key frame header: frame tag, start code, sizes.
func vp8Size(p []byte) (int, int, error) {
	if len(p) < 10 {
		return 0, 0, errors.New("VP8 chunk truncated")
	}
	if p[0]&1 != 0 || !bytes.Equal(p[3:6], []byte{0x9d, 0x01, 0x2a}) {
		return 0, 0, errors.New("VP8 chunk does not start with a key frame")
	}
	w := binary.LittleEndian.Uint16(p[6:8]) & 0x3fff
	h := binary.LittleEndian.Uint16(p[8:10]) & 0x3fff
	return int(w), int(h), nil
}

// vp8lSize reads a lossless header: signature byte, then 14-bit sizes minus
// one and a 3-bit version that must be 0.
func vp8lSize(p []byte) (int, int, error) {
	if len(p) < 5 || p[0] != 0x2f {
		return 0, 0, errors.New("VP8L chunk lacks its signature")
	}
	bits := binary.LittleEndian.Uint32(p[1:5])
	if bits>>29 != 0 {
		return 0, 0, fmt.Errorf("VP8L version %d", bits>>29)
	}
	return int(bits&0x3fff) + 1, int(bits>>14&0x3fff) + 1, nil
}

// vp8xSize reads an extended header: flags, then 24-bit canvas sizes minus one.
func vp8xSize(p []byte) (int, int, error) {
	if len(p) < 10 {
		return 0, 0, errors.New("VP8X chunk truncated")
	}
	le24 := func(b []byte) int { return int(b[0]) | int(b[1])<<8 | int(b[2])<<16 }
	return le24(p[4:7]) + 1, le24(p[7:10]) + 1, nil
}

// otherSignatures name common files that are not accepted images, so the
// refusal can say what was sent instead.
var otherSignatures = []struct{ magic, what string }{
	{"%PDF-", "pdf"},
	{"PK\x03\x04", "a zip archive"},
	{"\x1f\x8b", "gzip data"},
	{"BM", "bmp"},
	{"II*\x00", "tiff"},
	{"MM\x00*", "tiff"},
	{"\x00\x00\x01\x00", "ico"},
	{"\xff\x0a", "jpeg xl"},
	{"\x00\x00\x00\x0cJXL ", "jpeg xl"},
	{"RIFF", "a riff file that is not webp"},
}

// describeNonImage says what data looks like, for the ErrNotImage message.
// It is a hint for the user, never a decision: only sniffImage decides.
func describeNonImage(data []byte) string {
	if len(data) == 0 {
		return "empty input"
	}
	if what := describeMarkup(data); what != "" {
		return "looks like " + what
	}
	if looksLikeText(data[:min(len(data), 512)]) {
		return "looks like text"
	}
	for _, s := range otherSignatures {
		if bytes.HasPrefix(data, []byte(s.magic)) {
			return "looks like " + s.what
		}
	}
	if len(data) >= 12 && string(data[4:8]) == "ftyp" {
		return fmt.Sprintf("looks like iso media, brand %q (avif, heic, mp4 or the like)", data[8:12])
	}
	return "unrecognized binary data"
}

// describeMarkup tells svg, html and other xml apart; svg comes first since
// it may open with an xml declaration or a doctype.
func describeMarkup(data []byte) string {
	head := bytes.TrimLeft(bytes.TrimPrefix(data[:min(len(data), 1024)], []byte("\xef\xbb\xbf")), " \t\r\n")
	head = bytes.ToLower(head)
	switch {
	case !bytes.HasPrefix(head, []byte("<")):
		return ""
	case bytes.Contains(head, []byte("<svg")):
		return "svg"
	case bytes.HasPrefix(head, []byte("<!doctype html")), bytes.Contains(head, []byte("<html")),
		bytes.Contains(head, []byte("<head")), bytes.Contains(head, []byte("<body")),
		bytes.Contains(head, []byte("<script")):
		return "html"
	case bytes.HasPrefix(head, []byte("<?xml")):
		return "xml"
	}
	return ""
}

// looksLikeText reports whether sample is printable UTF-8; a rune cut off at
// the end of the sample does not count against it.
func looksLikeText(sample []byte) bool {
	for len(sample) > 0 {
		if !utf8.FullRune(sample) {
			return true
		}
		r, n := utf8.DecodeRune(sample)
		if r == utf8.RuneError && n == 1 || r == 0x7f || r < 0x20 && !strings.ContainsRune("\t\n\r\f", r) {
			return false
		}
		sample = sample[n:]
	}
	return true
}

// ImageUsers maps the SHA-256 of every image that a document, active or
// archived, refers to onto the IDs of the sessions that do, sorted: a
// missing or corrupt blob is only mended by knowing whose image it was.
// Damaged documents cannot say what they refer to: they are returned apart.
func (s *Store) ImageUsers(progress func(done, total int)) (map[string][]string, []Summary, error) {
	type entry struct{ dir, id string }
	var docs []entry
	for _, dir := range []string{s.dir, s.archivedDir} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, nil, fmt.Errorf("collect image users: %w", err)
		}
		for _, e := range entries {
			if id, ok := docID(e); ok {
				docs = append(docs, entry{dir, id})
			}
		}
	}
	progress = imageProgress(progress)
	users := map[string][]string{}
	var damaged []Summary
	for i, d := range docs {
		progress(i, len(docs))
		doc, err := s.read(d.dir, d.id)
		switch {
		case errors.Is(err, ErrNotFound): // archived or restored meanwhile
		case errors.Is(err, ErrDamaged):
			damaged = append(damaged, Summary{ID: d.id, Damaged: err.Error()})
		case err != nil:
			return nil, nil, err
		default:
			doc.ImageRefs(func(sha string) { users[sha] = append(users[sha], d.id) })
		}
	}
	progress(len(docs), len(docs))
	// A session that names an image many times, or is read twice (caught
	// between the folders by an archive cut short), is one user.
	for sha, ids := range users {
		slices.Sort(ids)
		users[sha] = slices.Compact(ids)
	}
	return users, damaged, nil
}
