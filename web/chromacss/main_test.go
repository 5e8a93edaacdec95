package main

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite static/chroma.css")

// TestHighlightCSSUpToDate keeps static/chroma.css the output of
// highlightCSS; -update rewrites it.
func TestHighlightCSSUpToDate(t *testing.T) {
	var buf bytes.Buffer
	if err := highlightCSS(&buf); err != nil {
		t.Fatal(err)
	}
	const path = "../../static/chroma.css"
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Errorf("%s is stale: run go run ./web/chromacss > static/chroma.css (or go test ./web/chromacss -update)", path)
	}
	for _, want := range []string{".hl-chroma .hl-k ", "(prefers-color-scheme: dark)"} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("%s lacks %q", path, want)
		}
	}
}
