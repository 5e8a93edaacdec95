package redact

import (
	"regexp"
	"testing"
)

// TestRulesCompile compiles every rule's expressions, which the package
// compiles only when first used.
func TestRulesCompile(t *testing.T) {
	for _, ru := range rules {
		for _, l := range []*lazyRE{ru.re, ru.textRe} {
			if l == nil {
				continue
			}
			if _, err := regexp.Compile(l.src); err != nil {
				t.Errorf("rule %s: %v", ru.kind, err)
			}
		}
	}
}
