// Package lexers holds chroma's lexers for the languages people fence code
// in most (the set is gen's want), and registers them at the first code
// block rather than at start-up.
//
// chroma's own lexers package parses all of its 279 XML definitions in its
// package initialisation, which every start of myco paid (30-55 ms) before
// it could serve a page. These are the same definitions, copied from the
// pinned chroma module by go generate (embedded/, chroma's licence in
// embedded/COPYING), and the two lexers chroma writes in Go (Go and
// Markdown) copied in go.go and markdown.go. A language outside the set
// has no lexer here: its code is shown plain. docs/PERFORMANCE.md ("Issue
// 21: start-up") says which languages are in and why.
package lexers

import (
	"embed"
	"fmt"
	"io/fs"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:generate go run ./gen

//go:embed embedded/*.xml
var embedded embed.FS

// Registry holds the lexers. Its zero value is ready: the lexers are
// registered at the first Get.
type Registry struct {
	once sync.Once
	reg  *chroma.LexerRegistry
}

// Get finds a lexer by name, alias or file extension, as chroma's
// lexers.Get does among the lexers of the set, or returns nil.
func (r *Registry) Get(name string) chroma.Lexer {
	r.once.Do(func() { r.reg = newRegistry() })
	return r.reg.Get(name)
}

// newRegistry registers every lexer of the set. A lexer's configuration is
// read here; its rules are compiled by chroma at its first use. The
// definitions are part of the binary and a test registers them all, so a
// failure here is a build's mistake: it panics, as chroma's own does.
func newRegistry() *chroma.LexerRegistry {
	reg := chroma.NewLexerRegistry()
	paths, err := fs.Glob(embedded, "embedded/*.xml")
	if err != nil {
		panic(fmt.Errorf("lexers: %w", err))
	}
	for _, p := range paths {
		reg.Register(chroma.MustNewXMLLexer(embedded, p))
	}
	registerGo(reg)
	registerMarkdown(reg)
	return reg
}
