package redact

import (
	"regexp"
	"sync"
)

// lazyRE is a regular expression compiled at its first use rather than at
// package initialisation: the rules' ~35 expressions cost a few ms that
// every start of myco paid, though the first secret to look for comes
// with the first write. TestRulesCompile compiles every one.
type lazyRE struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

func lazyRegexp(src string) *lazyRE { return &lazyRE{src: src} }

func (l *lazyRE) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

// FindSubmatchIndex is regexp.Regexp's.
func (l *lazyRE) FindSubmatchIndex(b []byte) []int { return l.get().FindSubmatchIndex(b) }
