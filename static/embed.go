// Package static holds the tab's stylesheets and script, embedded so the
// binary needs nothing beside it. chroma.css is generated (go run
// ./web/chromacss > static/chroma.css); the other CSS and JS files are
// written by hand and have no dependencies; favicon.svg is the tab's icon.
package static

import "embed"

// FS holds the assets, served under /static/.
//
//go:embed *.css *.js *.svg
var FS embed.FS
