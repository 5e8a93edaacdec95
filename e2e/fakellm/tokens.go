package fakellm

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // image.DecodeConfig reads the sizes of the formats both APIs take
	_ "image/jpeg"
	_ "image/png"
	"io"
	"strings"
)

// bytesPerToken is the fake's tokenizer: a token is 4 bytes of a block's
// canonical JSON, rounded up. Real tokenizers give about that for English
// and JSON, and a fixed ratio lets a test predict every figure.
const bytesPerToken = 4

// Image tokens follow Anthropic's published estimate, width × height / 750,
// for an image the API has scaled to at most about 1.15 megapixels, so
// never more than maxImageTokens. An image whose size cannot be read (webp,
// a URL) counts as the largest.
const (
	pixelsPerImageToken = 750
	maxImageTokens      = 1600
)

// minImageString is the shortest string canon looks at as a possible
// base64 image: shorter ones are text.
const minImageString = 64

// tokensOf estimates the tokens of canonical bytes.
func tokensOf(canonical []byte) int {
	return (len(canonical) + bytesPerToken - 1) / bytesPerToken
}

// canon returns the canonical bytes of one JSON value: compacted, object
// keys in the order they were sent (the real APIs render a tool's schema
// as sent, so a client whose key order changes between requests loses its
// cache, and the fake must see that), cache_control dropped from the top
// level when strip is set (a breakpoint marks a prefix, it is not part of
// it), and every base64 image replaced by a stand-in of 4 bytes per image
// token, so an image counts what the API charges for it, not its bytes.
func canon(raw []byte, strip bool) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out bytes.Buffer
	if err := canonValue(dec, &out, strip); err != nil {
		return nil, fmt.Errorf("canonical JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("canonical JSON: trailing data after the value")
	}
	return out.Bytes(), nil
}

func canonValue(dec *json.Decoder, out *bytes.Buffer, strip bool) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return canonObject(dec, out, strip)
		}
		return canonArray(dec, out)
	case string:
		writeString(out, imageStandIn(v))
	case json.Number:
		out.WriteString(v.String())
	case bool:
		fmt.Fprint(out, v)
	case nil:
		out.WriteString("null")
	}
	return nil
}

func canonObject(dec *json.Decoder, out *bytes.Buffer, strip bool) error {
	out.WriteByte('{')
	first := true
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if strip && key == "cache_control" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		if !first {
			out.WriteByte(',')
		}
		first = false
		writeString(out, key)
		out.WriteByte(':')
		if err := canonValue(dec, out, false); err != nil {
			return err
		}
	}
	out.WriteByte('}')
	_, err := dec.Token() // '}'
	return err
}

func canonArray(dec *json.Decoder, out *bytes.Buffer) error {
	out.WriteByte('[')
	for i := 0; dec.More(); i++ {
		if i > 0 {
			out.WriteByte(',')
		}
		if err := canonValue(dec, out, false); err != nil {
			return err
		}
	}
	out.WriteByte(']')
	_, err := dec.Token() // ']'
	return err
}

// writeString writes s as a JSON string, without the HTML escapes of
// json.Marshal: "<" is one byte on the wire of every SDK, not six.
func writeString(out *bytes.Buffer, s string) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	out.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// imageStandIn returns s, or, when s is a base64 image (Anthropic's
// source.data, or an OpenAI data:image/…;base64, URL), a stand-in that
// names the image by its digest and is as long as its tokens.
func imageStandIn(s string) string {
	if len(s) < minImageString {
		return s
	}
	data := s
	if rest, ok := strings.CutPrefix(s, "data:image/"); ok {
		_, data, ok = strings.Cut(rest, ";base64,")
		if !ok {
			return s
		}
	}
	img, err := base64.StdEncoding.DecodeString(data)
	if err != nil || !isImage(img) {
		return s
	}
	sum := sha256.Sum256(img)
	digest := "image:" + hex.EncodeToString(sum[:])
	n := imageTokens(img) * bytesPerToken
	return strings.Repeat(digest, n/len(digest)+1)[:n]
}

// isImage reports whether b starts as a PNG, JPEG, GIF or WebP file does.
func isImage(b []byte) bool {
	for _, magic := range []string{"\x89PNG", "\xff\xd8\xff", "GIF8"} {
		if bytes.HasPrefix(b, []byte(magic)) {
			return true
		}
	}
	return len(b) > 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP"
}

// imageTokens estimates what an image costs: its pixels / 750, between 1
// and maxImageTokens.
func imageTokens(img []byte) int {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		return maxImageTokens
	}
	return min(max(cfg.Width*cfg.Height/pixelsPerImageToken, 1), maxImageTokens)
}
