package session_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image/png"
	"testing"

	"myco/session"
)

// afterIHDR is where the first chunk after IHDR starts in a PNG: signature,
// then IHDR's length, type, 13 bytes of data and CRC.
const afterIHDR = 8 + 4 + 4 + 13 + 4

// benchPNG is a PNG of random noise a little over 1 MiB (noise does not
// compress) with a tEXt chunk after IHDR whose counter stamp can make each
// iteration's image different yet valid, far faster than encoding anew.
type benchPNG struct {
	buf []byte
	at  int // where the counter digits start
}

func newBenchPNG(b *testing.B) *benchPNG {
	b.Helper()
	var enc bytes.Buffer
	if err := png.Encode(&enc, noise(512, 512, 42)); err != nil {
		b.Fatal(err)
	}
	text := []byte("myco-bench\x00" + fmt.Sprintf("%020d", 0))
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(text)))
	chunk = append(append(chunk, "tEXt"...), text...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	raw := enc.Bytes()
	p := &benchPNG{
		buf: append(append(append([]byte(nil), raw[:afterIHDR]...), chunk...), raw[afterIHDR:]...),
		at:  afterIHDR + 8 + len(text) - 20,
	}
	p.stamp(1)
	if _, err := png.Decode(bytes.NewReader(p.buf)); err != nil {
		b.Fatalf("stamped PNG does not decode: %v", err)
	}
	return p
}

// stamp writes n into the tEXt chunk and fixes its CRC, in place.
func (p *benchPNG) stamp(n uint64) {
	copy(p.buf[p.at:], fmt.Sprintf("%020d", n))
	chunk := p.buf[afterIHDR+4 : p.at+20]
	binary.BigEndian.PutUint32(p.buf[p.at+20:], crc32.ChecksumIEEE(chunk))
}

func BenchmarkImagePut(b *testing.B) {
	im, err := session.OpenImages(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	p := newBenchPNG(b)
	b.SetBytes(int64(len(p.buf)))
	var n uint64
	for b.Loop() {
		n++
		p.stamp(n)
		if _, err := im.Put(p.buf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkImageRead(b *testing.B) {
	im, err := session.OpenImages(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	p := newBenchPNG(b)
	ref, err := im.Put(p.buf)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(p.buf)))
	for b.Loop() {
		if _, _, err := im.Read(ref.SHA256); err != nil {
			b.Fatal(err)
		}
	}
}
