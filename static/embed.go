// Package static holds the tab's stylesheets and script, embedded so the
// binary needs nothing beside it. chroma.css is generated (go run
// ./web/chromacss > static/chroma.css); the other CSS and JS files are
// written by hand and have no dependencies; favicon.svg is the tab's icon.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"sync"
)

// FS holds the assets, served under /static/.
//
//go:embed *.css *.js *.svg *.png
var FS embed.FS

// Version names this build's assets: a hash of every file's name and
// bytes. Pages link them under /static/{Version}/, which the server marks
// immutable, so a tab keeps them until the binary's assets change. One
// version for all rather than one per file: the modules import each other
// by relative name ('./dom.js'), which then resolves under the same
// prefix with no rewriting of their text, and the assets only ever change
// together, with the binary.
var Version = sync.OnceValue(func() string {
	h := sha256.New()
	err := fs.WalkDir(FS, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(FS, name)
		if err != nil {
			return err
		}
		h.Write([]byte(name + "\x00"))
		h.Write(b)
		return nil
	})
	if err != nil {
		panic("static: the embedded files cannot be read: " + err.Error())
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
})

// URL is where the asset name is served under this build's version.
func URL(name string) string { return "/static/" + Version() + "/" + name }
