// Package static holds the tab's stylesheets and script, embedded so the
// binary needs nothing beside it. chroma.css is generated (go run
// ./web/chromacss > static/chroma.css); style.css, app.js and chat.js are
// written by hand and have no dependencies.
package static

import "embed"

// FS holds the assets, served under /static/.
//
//go:embed style.css chroma.css app.js chat.js
var FS embed.FS
