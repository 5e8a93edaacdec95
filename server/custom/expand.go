package custom

import (
	"strings"
)

// Expand is the command's text with its arguments put in: $ARGUMENTS is
// all of args, $1 … $9 its words (1-based, as Codex's prompts and Claude
// Code's older commands count; quotes group words), $$ a dollar sign.
// A text that uses none of them gets the arguments after it, on a line
// "ARGUMENTS: …", as Claude Code does, so nothing typed is lost.
func (c Command) Expand(args string) string {
	return expand(c.body, strings.TrimSpace(args))
}

func expand(body, args string) string {
	words := splitArgs(args)
	var b strings.Builder
	used := false
	for i := 0; i < len(body); i++ {
		ch := body[i]
		if ch != '$' || i+1 >= len(body) {
			b.WriteByte(ch)
			continue
		}
		next := body[i+1]
		switch {
		case next == '$':
			b.WriteByte('$')
			i++
		case next >= '1' && next <= '9':
			n := int(next - '1')
			if n < len(words) {
				b.WriteString(words[n])
			}
			used = true
			i++
		case strings.HasPrefix(body[i+1:], "ARGUMENTS"):
			b.WriteString(args)
			used = true
			i += len("ARGUMENTS")
		default:
			b.WriteByte(ch)
		}
	}
	out := strings.TrimRight(b.String(), " \t\r\n")
	if !used && args != "" {
		out += "\n\nARGUMENTS: " + args
	}
	return out
}

// splitArgs splits args into words as a shell would, only as far as
// quotes go: "two words" and 'two words' are one.
func splitArgs(args string) []string {
	var out []string
	var w strings.Builder
	inWord := false
	var quote rune
	for _, r := range args {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				w.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inWord {
				out = append(out, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, w.String())
	}
	return out
}
