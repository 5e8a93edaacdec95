package session_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"myco/session"
)

// openImages opens a store in a fresh folder that does not exist yet, as a
// new profile's would not.
func openImages(t *testing.T) (*session.Images, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "profile", "images")
	im, err := session.OpenImages(dir)
	if err != nil {
		t.Fatalf("OpenImages: %v", err)
	}
	return im, dir
}

// noise is a w×h image of random pixels from seed, so each seed makes
// different bytes.
func noise(w, h int, seed uint64) *image.NRGBA {
	r := rand.New(rand.NewPCG(seed, seed))
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(r.Uint32())
	}
	return img
}

func pngBytes(t testing.TB, seed uint64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, noise(4, 3, seed)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func jpegBytes(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, noise(8, 8, 1), nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gifBytes(t testing.TB) []byte {
	t.Helper()
	img := image.NewPaletted(image.Rect(0, 0, 2, 2), color.Palette{color.Black, color.White})
	img.SetColorIndex(1, 1, 1)
	var buf bytes.Buffer
	if err := gif.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func webpBytes(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "images", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func sha(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func blobPath(dir string, data []byte) string {
	s := sha(data)
	return filepath.Join(dir, s[:2], s)
}

// flipByte damages a stored blob the way bit rot would: same size, one byte
// different.
func flipByte(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// files lists the regular files under dir, relative to it.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var got []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, path)
			got = append(got, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestImagePutStoresEachFormatOnce(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"png", pngBytes(t, 1), "image/png"},
		{"jpeg", jpegBytes(t), "image/jpeg"},
		{"gif", gifBytes(t), "image/gif"},
		{"webp lossy", webpBytes(t, "lossy-1x1.webp"), "image/webp"},
		{"webp lossless", webpBytes(t, "lossless-1x1.webp"), "image/webp"},
		{"webp extended", webpBytes(t, "alpha-1x1.webp"), "image/webp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			im, dir := openImages(t)
			want := session.ImageRef{SHA256: sha(tt.data), MediaType: tt.want}
			ref, err := im.Put(tt.data)
			if err != nil {
				t.Fatalf("Put: %v", err)
			}
			if diff := cmp.Diff(want, ref); diff != "" {
				t.Errorf("Put ref (-want +got):\n%s", diff)
			}
			path := blobPath(dir, tt.data)
			first := checkStored(t, im, path, tt.data)

			again, err := im.Put(tt.data)
			if err != nil {
				t.Fatalf("second Put: %v", err)
			}
			if diff := cmp.Diff(want, again); diff != "" {
				t.Errorf("second Put ref (-want +got):\n%s", diff)
			}
			second := checkStored(t, im, path, tt.data)
			if !os.SameFile(first, second) || !first.ModTime().Equal(second.ModTime()) {
				t.Errorf("second Put rewrote the blob: %v %v, then %v %v", first.Sys(), first.ModTime(), second.Sys(), second.ModTime())
			}
		})
	}
}

// checkStored checks that the blob at path holds data with mode 0600 in a
// 0700 folder, alone there (no temp file left), and returns its FileInfo.
func checkStored(t *testing.T, im *session.Images, path string, data []byte) fs.FileInfo {
	t.Helper()
	if got, err := im.Path(sha(data)); err != nil || got != path {
		t.Errorf("Path = %q, %v; want %q", got, err, path)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("blob at %s: %d bytes, %v; want the %d bytes put", path, len(got), err, len(data))
	}
	info, _ := os.Stat(path)
	folder, _ := os.Stat(filepath.Dir(path))
	if info.Mode().Perm() != 0o600 || folder.Mode().Perm() != 0o700 {
		t.Errorf("modes: blob %v, folder %v; want 0600, 0700", info.Mode().Perm(), folder.Mode().Perm())
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("folder holds %d entries, want only the blob", len(entries))
	}
	return info
}

func TestImagePutRefusesNonImages(t *testing.T) {
	pngData := pngBytes(t, 1)
	lossy := webpBytes(t, "lossy-1x1.webp")
	zeroWidth := append([]byte(nil), lossy...)
	zeroWidth[26], zeroWidth[27] = 0, 0
	tests := []struct {
		name string
		data []byte
		want string // in the message
	}{
		{"empty", nil, "empty input"},
		{"text", []byte("hello, world\n"), "looks like text"},
		{"html", []byte("<!DOCTYPE html><html><body><img src=x onerror=alert(1)></body></html>"), "looks like html"},
		{"svg", []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), "looks like svg"},
		{"pdf", []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"), "looks like pdf"},
		{"binary", []byte{0x00, 0x01, 0x02, 0x03, 0xfe, 0xff}, "unrecognized binary data"},
		{"bare png signature", pngData[:8], "png signature but a broken header"},
		{"png cut in its header", pngData[:20], "png signature but a broken header"},
		{"png signature then html", append(pngData[:8:8], "<html><script>alert(1)</script>"...), "png signature but a broken header"},
		{"bare jpeg marker", []byte("\xff\xd8\xff\xe0"), "jpeg signature but a broken header"},
		{"bare gif header", []byte("GIF89a"), "gif signature but a broken header"},
		{"bare riff webp header", []byte("RIFF\x04\x00\x00\x00WEBP"), "webp signature but a broken header"},
		{"webp with unknown chunk", []byte("RIFF\x0c\x00\x00\x00WEBPABCD\x00\x00\x00\x00"), `first chunk is "ABCD"`},
		{"webp cut in VP8 header", lossy[:24], "VP8 chunk truncated"},
		{"webp zero width", zeroWidth, "says 0x1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			im, dir := openImages(t)
			_, err := im.Put(tt.data)
			if !errors.Is(err, session.ErrNotImage) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Put = %v; want ErrNotImage saying %q", err, tt.want)
			}
			if got := files(t, dir); len(got) != 0 {
				t.Errorf("refused bytes left files: %v", got)
			}
		})
	}
}

// countingReader is an endless body of data followed by zeros, counting
// what it hands out.
type countingReader struct {
	data []byte
	n    int64
}

func (r *countingReader) Read(p []byte) (int, error) {
	clear(p)
	copy(p, r.data[min(r.n, int64(len(r.data))):])
	r.n += int64(len(p))
	return len(p), nil
}

func TestImagePutRefusesOverSize(t *testing.T) {
	data := pngBytes(t, 1)
	limit := int64(len(data) - 1)
	im, dir := openImages(t)
	im.SetMaxSize(limit)

	_, err := im.Put(data)
	wantMsg := strconv.Itoa(len(data)) + " bytes, limit " + strconv.FormatInt(limit, 10)
	if !errors.Is(err, session.ErrImageTooLarge) || !strings.Contains(err.Error(), wantMsg) {
		t.Errorf("Put = %v; want ErrImageTooLarge saying %q", err, wantMsg)
	}
	body := &countingReader{data: data}
	_, err = im.PutReader(body)
	if !errors.Is(err, session.ErrImageTooLarge) || !strings.Contains(err.Error(), strconv.FormatInt(limit, 10)) {
		t.Errorf("PutReader = %v; want ErrImageTooLarge naming the limit", err)
	}
	if body.n > limit+1 {
		t.Errorf("PutReader read %d bytes of an endless body, limit %d", body.n, limit)
	}
	if got := files(t, dir); len(got) != 0 {
		t.Errorf("refused bytes left files: %v", got)
	}

	im.SetMaxSize(int64(len(data)))
	if _, err := im.Put(data); err != nil {
		t.Errorf("Put at exactly the limit: %v", err)
	}
	if got := im.MaxSize(); got != int64(len(data)) {
		t.Errorf("MaxSize = %d, want %d", got, len(data))
	}
	im.SetMaxSize(0)
	if got := im.MaxSize(); got != session.DefaultMaxImageSize {
		t.Errorf("MaxSize after SetMaxSize(0) = %d, want the default", got)
	}
}

func TestImagePutReader(t *testing.T) {
	data := gifBytes(t)
	im, _ := openImages(t)
	ref, err := im.PutReader(iotest.OneByteReader(bytes.NewReader(data)))
	if err != nil {
		t.Fatalf("PutReader: %v", err)
	}
	want := session.ImageRef{SHA256: sha(data), MediaType: "image/gif"}
	if diff := cmp.Diff(want, ref); diff != "" {
		t.Errorf("PutReader ref (-want +got):\n%s", diff)
	}
	broken := io.MultiReader(bytes.NewReader(data[:4]), iotest.ErrReader(io.ErrUnexpectedEOF))
	if _, err := im.PutReader(broken); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("PutReader of a broken body = %v, want its read error", err)
	}
}

func TestImageReadVerifies(t *testing.T) {
	data := pngBytes(t, 1)
	im, dir := openImages(t)
	ref, err := im.Put(data)
	if err != nil {
		t.Fatal(err)
	}
	got, gotRef, err := im.Read(ref.SHA256)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Read = %d bytes, %v; want the bytes put", len(got), err)
	}
	if diff := cmp.Diff(ref, gotRef); diff != "" {
		t.Errorf("Read ref (-want +got):\n%s", diff)
	}

	other := pngBytes(t, 2)
	flipByte(t, blobPath(dir, data))
	flipped, _ := os.ReadFile(blobPath(dir, data))
	tests := []struct {
		name    string
		data    []byte
		wantErr error
		wantMsg string
	}{
		{"missing", other, session.ErrImageMissing,
			"image sha256:" + sha(other) + " missing at " + blobPath(dir, other)},
		{"one flipped byte", data, session.ErrImageCorrupt,
			"image sha256:" + sha(data) + " corrupt at " + blobPath(dir, data) + ": content hashes to " + sha(flipped)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := im.Read(sha(tt.data))
			if got != nil || !errors.Is(err, tt.wantErr) {
				t.Fatalf("Read = %d bytes, %v; want %v", len(got), err, tt.wantErr)
			}
			var ie *session.ImageError
			if !errors.As(err, &ie) || ie.SHA256 != sha(tt.data) || ie.Path != blobPath(dir, tt.data) {
				t.Errorf("Read error = %#v; want an *ImageError naming the SHA and path", err)
			}
			if err.Error() != tt.wantMsg {
				t.Errorf("message = %q\nwant      %q", err.Error(), tt.wantMsg)
			}
		})
	}
	if _, _, err := im.Read(sha(other)); errors.Is(err, session.ErrImageCorrupt) {
		t.Error("a missing blob also reads as corrupt")
	}
}

func TestImageReadUnknownType(t *testing.T) {
	// A newer myco may store a type this one cannot sniff; its bytes are intact.
	data := []byte("a format from the future")
	im, dir := openImages(t)
	path := blobPath(dir, data)
	writeFiles(t, path)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	got, ref, err := im.Read(sha(data))
	if err != nil || !bytes.Equal(got, data) || ref.MediaType != "application/octet-stream" {
		t.Errorf("Read = %q, %+v, %v; want the bytes as application/octet-stream", got, ref, err)
	}
}

func TestImageInvalidSHA(t *testing.T) {
	valid := sha([]byte("x"))
	tests := []struct {
		name string
		sha  string
	}{
		{"empty", ""},
		{"traversal", "../etc"},
		{"traversal of full length", "../../../../../../../../../../../../../../../../../../etc/passwd00"},
		{"uppercase", strings.ToUpper(valid)},
		{"short", valid[:12]},
		{"long", valid + "0"},
		{"prefixed", "sha256:" + valid},
		{"slash inside", valid[:2] + "/" + valid[3:]},
		{"not hex", strings.Repeat("g", 64)},
		{"trailing newline", valid[:63] + "\n"},
	}
	im, _ := openImages(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if session.ValidSHA256(tt.sha) {
				t.Errorf("ValidSHA256(%q) = true", tt.sha)
			}
			if p, err := im.Path(tt.sha); !errors.Is(err, session.ErrInvalidSHA) {
				t.Errorf("Path = %q, %v; want ErrInvalidSHA", p, err)
			}
			if _, _, err := im.Read(tt.sha); !errors.Is(err, session.ErrInvalidSHA) {
				t.Errorf("Read = %v; want ErrInvalidSHA", err)
			}
			if im.Has(tt.sha) {
				t.Errorf("Has(%q) = true", tt.sha)
			}
		})
	}
	if !session.ValidSHA256(valid) {
		t.Errorf("ValidSHA256(%q) = false", valid)
	}
}

func TestImageHas(t *testing.T) {
	data := jpegBytes(t)
	im, _ := openImages(t)
	if im.Has(sha(data)) {
		t.Error("Has before Put = true")
	}
	if _, err := im.Put(data); err != nil {
		t.Fatal(err)
	}
	if !im.Has(sha(data)) {
		t.Error("Has after Put = false")
	}
}

type progressCall struct{ Done, Total int }

func TestImageVerify(t *testing.T) {
	im, dir := openImages(t)
	var blobs [][]byte
	var size int64
	for seed := range uint64(3) {
		data := pngBytes(t, seed)
		if _, err := im.Put(data); err != nil {
			t.Fatal(err)
		}
		blobs, size = append(blobs, data), size+int64(len(data))
	}
	bad := blobPath(dir, blobs[1])
	flipByte(t, bad)
	flipped, _ := os.ReadFile(bad)
	misplaced := filepath.Join(dir, otherFolder(sha(blobs[0])), sha(blobs[0]))
	strayFiles := []string{
		filepath.Join(dir, "README.txt"),
		filepath.Join(dir, sha(blobs[2])[:2], ".tmp-"+sha(blobs[2])+"-123"),
		filepath.Join(dir, sha(blobs[2])[:2], "notes"),
		misplaced,
	}
	strayDirs := []string{
		filepath.Join(dir, strings.ToUpper(sha(blobs[2])[:2])+"X"),
		filepath.Join(dir, sha(blobs[2])[:2], "sub"),
	}
	writeFiles(t, strayFiles...)
	for _, d := range strayDirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	stray := append(strayFiles, strayDirs...)

	var calls []progressCall
	referenced := map[string]bool{sha(blobs[0]): true, sha(blobs[1]): true}
	report, err := im.Verify(referenced, func(done, total int) { calls = append(calls, progressCall{done, total}) })
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	want := session.VerifyReport{
		Checked: 3,
		Bytes:   size,
		Corrupt: []session.ImageError{{SHA256: sha(blobs[1]), Path: bad, Actual: sha(flipped), Err: session.ErrImageCorrupt}},
		// blobs[0] sits in the wrong folder as well as the right one: found.
		Stray: sortedStrings(stray),
	}
	if diff := cmp.Diff(want, report, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("Verify report (-want +got):\n%s", diff)
	}
	wantCalls := []progressCall{{0, 3}, {1, 3}, {2, 3}, {3, 3}}
	if diff := cmp.Diff(wantCalls, calls); diff != "" {
		t.Errorf("progress calls (-want +got):\n%s", diff)
	}
	for _, p := range stray {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("Verify touched stray %s: %v", p, err)
		}
	}
	if _, err := im.Verify(nil, nil); err != nil {
		t.Errorf("Verify without references or progress: %v", err)
	}
}

func TestImageVerifyMissing(t *testing.T) {
	stored, gone, other := pngBytes(t, 1), pngBytes(t, 2), pngBytes(t, 3)
	tests := []struct {
		name       string
		referenced map[string]bool
		want       []session.ImageError // with Path relative to the store
	}{
		{"nothing referenced", nil, nil},
		{"all stored", map[string]bool{sha(stored): true}, nil},
		{"one missing", map[string]bool{sha(stored): true, sha(gone): true},
			[]session.ImageError{{SHA256: sha(gone), Path: rel(sha(gone)), Err: session.ErrImageMissing}}},
		{"false means not referenced", map[string]bool{sha(gone): false}, nil},
		{"sorted by name", map[string]bool{sha(gone): true, sha(other): true},
			sortedErrors([]session.ImageError{
				{SHA256: sha(gone), Path: rel(sha(gone)), Err: session.ErrImageMissing},
				{SHA256: sha(other), Path: rel(sha(other)), Err: session.ErrImageMissing},
			})},
		{"reference that names no blob", map[string]bool{"../etc/passwd": true, strings.ToUpper(sha(stored)): true},
			[]session.ImageError{
				{SHA256: "../etc/passwd", Err: session.ErrInvalidSHA},
				{SHA256: strings.ToUpper(sha(stored)), Err: session.ErrInvalidSHA},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			im, dir := openImages(t)
			if _, err := im.Put(stored); err != nil {
				t.Fatal(err)
			}
			report, err := im.Verify(tt.referenced, nil)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			for i := range tt.want {
				if tt.want[i].Path != "" {
					tt.want[i].Path = filepath.Join(dir, tt.want[i].Path)
				}
			}
			if diff := cmp.Diff(tt.want, report.Missing, cmpopts.EquateErrors(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Missing (-want +got):\n%s", diff)
			}
			if report.Checked != 1 || len(report.Corrupt) != 0 {
				t.Errorf("Checked %d, Corrupt %v; want the one stored blob, sound", report.Checked, report.Corrupt)
			}
		})
	}
}

func TestImageErrorMessages(t *testing.T) {
	tests := []struct {
		name string
		err  session.ImageError
		want string
	}{
		{"missing", session.ImageError{SHA256: "ab12", Path: "/p/ab/ab12", Err: session.ErrImageMissing},
			"image sha256:ab12 missing at /p/ab/ab12"},
		{"invalid name", session.ImageError{SHA256: "../etc", Err: session.ErrInvalidSHA},
			`image "../etc" cannot name a blob: invalid sha256`},
		{"unreadable", session.ImageError{SHA256: "ab12", Path: "/p/ab/ab12", Err: fs.ErrPermission},
			"image sha256:ab12 unreadable at /p/ab/ab12: permission denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

// rel is where blob s lives, relative to the store.
func rel(s string) string { return filepath.Join(s[:2], s) }

func sortedErrors(errs []session.ImageError) []session.ImageError {
	slices.SortFunc(errs, func(a, b session.ImageError) int { return strings.Compare(a.SHA256, b.SHA256) })
	return errs
}

func TestImageUsers(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	const shared = "ab0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd"
	const own = "cd0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd"
	image := func(sha string) session.Block {
		return session.Block{Type: session.BlockImage, SHA256: sha, MediaType: "image/png"}
	}
	a, b := newDoc(archID, t0, 2, 0), newDoc(healthyID, t0, 1, 0)
	a.Threads[0].Messages = []session.Message{{ID: "m1", Role: "user", Content: []session.Block{image(shared), image(own)}}}
	a.Threads[1].Messages = []session.Message{{ID: "m2", Role: "user", Content: []session.Block{image(shared)}}}
	b.Threads[0].Messages = []session.Message{{ID: "m3", Role: "user", Content: []session.Block{image(shared)}}}
	for _, d := range []*session.Document{a, b} {
		if err := s.Save(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Archive(archID); err != nil {
		t.Fatal(err)
	}
	d := damagedDocs[0]
	install(t, dir, d.file, d.id)

	var last progressCall
	users, damaged, err := s.ImageUsers(func(done, total int) { last = progressCall{done, total} })
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{shared: sortedStrings([]string{archID, healthyID}), own: {archID}}
	if diff := cmp.Diff(want, users); diff != "" {
		t.Errorf("users (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{d.id}, ids(damaged)); diff != "" {
		t.Errorf("damaged (-want +got):\n%s", diff)
	}
	if last != (progressCall{3, 3}) {
		t.Errorf("last progress call %v, want {3 3}", last)
	}
}

// otherFolder is an hh folder that blob sha does not belong in.
func otherFolder(sha string) string {
	if sha[:2] == "00" {
		return "01"
	}
	return "00"
}

// writeFiles creates a small file at each path, with its folder.
func writeFiles(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("stray"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func sortedStrings(s []string) []string { return slices.Sorted(slices.Values(s)) }

func TestImageCollect(t *testing.T) {
	blobs := [][]byte{pngBytes(t, 1), jpegBytes(t), gifBytes(t)}
	a, b, c := sha(blobs[0]), sha(blobs[1]), sha(blobs[2])
	size := func(i int) int64 { return int64(len(blobs[i])) }
	tests := []struct {
		name       string
		referenced map[string]bool
		dryRun     bool
		want       session.CollectReport
		wantLeft   []string
	}{
		{"dry run removes nothing", map[string]bool{a: true}, true,
			session.CollectReport{Kept: 1, Removed: sortedStrings([]string{b, c}), Bytes: size(1) + size(2), DryRun: true},
			[]string{a, b, c}},
		{"removes only unreferenced", map[string]bool{a: true, c: false}, false,
			session.CollectReport{Kept: 1, Removed: sortedStrings([]string{b, c}), Bytes: size(1) + size(2)},
			[]string{a}},
		{"all referenced", map[string]bool{a: true, b: true, c: true}, false,
			session.CollectReport{Kept: 3},
			[]string{a, b, c}},
		{"reference in capitals keeps its blob", map[string]bool{strings.ToUpper(a): true, b: true, c: true}, false,
			session.CollectReport{Kept: 3},
			[]string{a, b, c}},
		{"empty set removes all", map[string]bool{}, false,
			session.CollectReport{Removed: sortedStrings([]string{a, b, c}), Bytes: size(0) + size(1) + size(2)},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			im, dir := openImages(t)
			for _, data := range blobs {
				if _, err := im.Put(data); err != nil {
					t.Fatal(err)
				}
			}
			stray := filepath.Join(dir, a[:2], "notes")
			writeFiles(t, stray)
			var calls []progressCall
			report, err := im.Collect(tt.referenced, tt.dryRun, func(done, total int) { calls = append(calls, progressCall{done, total}) })
			if err != nil {
				t.Fatalf("Collect: %v", err)
			}
			if diff := cmp.Diff(tt.want, report, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Collect report (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(progressCall{3, 3}, calls[len(calls)-1]); diff != "" {
				t.Errorf("last progress call (-want +got):\n%s", diff)
			}
			var left []string
			for _, s := range []string{a, b, c} {
				if im.Has(s) {
					left = append(left, s)
				}
			}
			if diff := cmp.Diff(tt.wantLeft, left); diff != "" {
				t.Errorf("blobs left (-want +got):\n%s", diff)
			}
			if _, err := os.Stat(stray); err != nil {
				t.Errorf("Collect touched a stray file: %v", err)
			}
		})
	}
}

func TestImageCollectRefusesNilSet(t *testing.T) {
	data := pngBytes(t, 1)
	im, _ := openImages(t)
	if _, err := im.Put(data); err != nil {
		t.Fatal(err)
	}
	if _, err := im.Collect(nil, false, nil); err == nil {
		t.Error("Collect(nil) succeeded; want an error")
	}
	if !im.Has(sha(data)) {
		t.Error("Collect(nil) removed a blob")
	}
}

func TestImagePutReplacesCorruptBlob(t *testing.T) {
	data := pngBytes(t, 1)
	im, dir := openImages(t)
	if _, err := im.Put(data); err != nil {
		t.Fatal(err)
	}
	flipByte(t, blobPath(dir, data))
	if _, _, err := im.Read(sha(data)); !errors.Is(err, session.ErrImageCorrupt) {
		t.Fatalf("Read of the damaged blob = %v, want ErrImageCorrupt", err)
	}
	if _, err := im.Put(data); err != nil {
		t.Fatalf("Put over the damaged blob: %v", err)
	}
	got, _, err := im.Read(sha(data))
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("Read after Put = %d bytes, %v; want the good bytes", len(got), err)
	}
	checkStored(t, im, blobPath(dir, data), data)
}

func TestOpenImages(t *testing.T) {
	im, dir := openImages(t)
	if im.Dir() != dir {
		t.Errorf("Dir = %q, want %q", im.Dir(), dir)
	}
	if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("store folder: %v, %v; want mode 0700", info, err)
	}
	data := pngBytes(t, 1)
	if _, err := im.Put(data); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Dir(blobPath(dir, data))
	old := filepath.Join(folder, ".tmp-"+sha(data)+"-crashed")
	fresh := filepath.Join(folder, ".tmp-"+sha(data)+"-writing")
	writeFiles(t, old, fresh)
	long := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(old, long, long); err != nil {
		t.Fatal(err)
	}

	if _, err := session.OpenImages(dir); err != nil {
		t.Fatalf("reopen: %v", err)
	}
	want := []string{
		filepath.Join(filepath.Base(folder), ".tmp-"+sha(data)+"-writing"),
		filepath.Join(filepath.Base(folder), sha(data)),
	}
	if diff := cmp.Diff(want, files(t, dir)); diff != "" {
		t.Errorf("files after reopen (-want +got):\n%s", diff)
	}

	file := filepath.Join(t.TempDir(), "file")
	writeFiles(t, file)
	if _, err := session.OpenImages(file); err == nil {
		t.Error("OpenImages on a file succeeded")
	}
}
