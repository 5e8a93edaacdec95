package web

import (
	"crypto/sha256"
	"encoding/base64"
)

// openAtBottom is the one inline script of a session page, right after
// its conversation: it scrolls to the newest message while the page is
// parsed, before the first paint, so the page is not drawn at its top and
// then moved by the page's script (a module, which runs only after parsing, and on a
// long session later still). A #hash is a link into the page
// (static/highlight.js) and is left to it.
const openAtBottom = `if(!location.hash)window.scrollTo(0,document.scrollingElement.scrollHeight)`

// InlineScriptHashes is the CSP source of the page's inline script
// ('sha256-…'): the CSP allows it, and no other inline script.
var InlineScriptHashes = "'sha256-" + scriptHash(openAtBottom) + "'"

func scriptHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.StdEncoding.EncodeToString(sum[:])
}
