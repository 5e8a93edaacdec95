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
//
// "The bottom" is the page's bottom, unless the side panel is the taller
// column (beside a short conversation): then it is the conversation's end
// at the viewport's bottom, as static/scroll.js has it (bottomTop), since
// the page's bottom hid the title to show the panel's last lines.
// scrollTo clamps what is past either end.
const openAtBottom = `if(!location.hash){var s=document.scrollingElement,c=document.querySelector('.conversation'),d=document.querySelector('.side'),y=s.scrollHeight;if(c&&d&&d.offsetHeight>c.offsetHeight)y=c.getBoundingClientRect().bottom+s.scrollTop-s.clientHeight;window.scrollTo(0,y)}`

// InlineScriptHashes is the CSP source of the page's inline script
// ('sha256-…'): the CSP allows it, and no other inline script.
var InlineScriptHashes = "'sha256-" + scriptHash(openAtBottom) + "' 'sha256-" + scriptHash(applyTheme) + "'"

func scriptHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.StdEncoding.EncodeToString(sum[:])
}
