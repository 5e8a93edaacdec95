package fakellm

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"strings"
	"testing"
)

func pngOf(t *testing.T, w, h int) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

func TestCanon(t *testing.T) {
	small, big := pngOf(t, 750, 100), pngOf(t, 3000, 3000)
	notImage := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("plain text, not an image. ", 4)))
	tests := []struct {
		name  string
		in    string
		strip bool
		want  string
	}{
		{name: "keys stay in their order, space goes", in: `{ "b": 1, "a": [true, null, 2.50] }`, want: `{"b":1,"a":[true,null,2.50]}`},
		{name: "top-level cache_control dropped", in: `{"type":"text","cache_control":{"type":"ephemeral"},"text":"x"}`, strip: true, want: `{"type":"text","text":"x"}`},
		{name: "nested cache_control kept", in: `{"input":{"cache_control":1}}`, strip: true, want: `{"input":{"cache_control":1}}`},
		{name: "kept without strip", in: `{"cache_control":1}`, want: `{"cache_control":1}`},
		{name: "no HTML escapes", in: `{"text":"a < b && c > d"}`, want: `{"text":"a < b && c > d"}`},
		{name: "escapes normalised", in: `{"text":"\u00e9\n"}`, want: `{"text":"é\n"}`},
		{name: "base64 that is no image stays", in: `{"data":"` + notImage + `"}`, want: `{"data":"` + notImage + `"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := canon([]byte(tt.in), tt.strip)
			if err != nil || string(got) != tt.want {
				t.Errorf("canon(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
			}
		})
	}

	// An image counts its pixels / 750 tokens, at most 1,600, whatever its
	// bytes; the same image is the same stand-in, another one another.
	for _, tt := range []struct {
		name, data string
		tokens     int
	}{
		{"750×100 PNG", small, 100},
		{"3000×3000 PNG", big, maxImageTokens},
		{"as a data URL", "data:image/png;base64," + small, 100},
	} {
		got, err := canon([]byte(`"`+tt.data+`"`), false)
		if err != nil || len(got) != tt.tokens*bytesPerToken+2 || !strings.HasPrefix(string(got), `"image:`) {
			t.Errorf("%s: %d bytes %.40s…, %v; want %d tokens", tt.name, len(got), got, err, tt.tokens)
		}
	}
	a, _ := canon([]byte(`"`+small+`"`), false)
	b, _ := canon([]byte(`"`+pngOf(t, 100, 750)+`"`), false)
	if bytes.Equal(a, b) || len(a) != len(b) {
		t.Errorf("two images of the same size: equal stand-ins %v, lengths %d %d", bytes.Equal(a, b), len(a), len(b))
	}
}
