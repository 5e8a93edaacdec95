package custom

import (
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// frontmatter is the YAML head the peers' command and skill files share.
// Keys myco does not use are ignored.
type frontmatter struct {
	Name         string   `yaml:"name"`
	Description  string   `yaml:"description"`
	ArgumentHint wordList `yaml:"argument-hint"`
	Model        string   `yaml:"model"`
	AllowedTools toolList `yaml:"allowed-tools"`
}

// splitFrontmatter separates a leading "---" YAML block from the body and
// decodes it. A file without one is all body.
func splitFrontmatter(text string) (frontmatter, string, error) {
	var fm frontmatter
	text = strings.TrimPrefix(text, "\uFEFF")
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || strings.TrimRight(first, " \t\r") != "---" {
		return fm, text, nil
	}
	// The block ends at the next line that is "---" (or "...").
	var head strings.Builder
	for rest != "" {
		line, after, _ := strings.Cut(rest, "\n")
		rest = after
		if t := strings.TrimRight(line, " \t\r"); t == "---" || t == "..." {
			if err := yaml.Unmarshal([]byte(head.String()), &fm); err != nil {
				// Claude Code takes `argument-hint: [file] [focus]`, which
				// is no YAML: a head of plain "key: value" lines is read
				// as such.
				if lenient, ok := plainFrontmatter(head.String()); ok {
					return lenient, rest, nil
				}
				return frontmatter{}, rest, fmt.Errorf("frontmatter: %w", err)
			}
			return fm, rest, nil
		}
		head.WriteString(line)
		head.WriteByte('\n')
	}
	return frontmatter{}, text, fmt.Errorf("frontmatter: no closing ---")
}

// wordList is a value written as a string or as a YAML list: Claude
// Code's `argument-hint: [pr-number]` is a list to YAML.
type wordList string

func (w *wordList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*w = wordList(n.Value)
		return nil
	case yaml.SequenceNode:
		var parts []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: a list of words was expected", c.Line)
			}
			parts = append(parts, "["+c.Value+"]")
		}
		*w = wordList(strings.Join(parts, " "))
		return nil
	}
	return fmt.Errorf("line %d: a string was expected", n.Line)
}

// toolList is allowed-tools: a YAML list, or a string of names separated
// by commas (Claude Code: "Bash(git add:*), Read") or by spaces (Agent
// Skills: "Bash(git:*) Read"). A comma or space inside parentheses
// belongs to the pattern.
type toolList []string

func (t *toolList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*t = splitTools(n.Value)
		return nil
	case yaml.SequenceNode:
		var out []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: allowed-tools holds names", c.Line)
			}
			if s := strings.TrimSpace(c.Value); s != "" {
				out = append(out, s)
			}
		}
		*t = out
		return nil
	}
	return fmt.Errorf("line %d: allowed-tools is a list or a string", n.Line)
}

func splitTools(s string) []string {
	sep := func(r rune) bool { return r == ',' }
	if !strings.Contains(s, ",") {
		sep = func(r rune) bool { return r == ' ' || r == '\t' }
	}
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if w := strings.TrimSpace(s[start:end]); w != "" {
			out = append(out, w)
		}
	}
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && sep(r):
			flush(i)
			start = i + 1
		}
	}
	flush(len(s))
	return out
}

// plainFrontmatter reads a head whose every line is "key: value" (or
// blank, or a # comment), each value taken as written; false when a line
// is anything else.
func plainFrontmatter(head string) (frontmatter, bool) {
	var fm frontmatter
	for line := range strings.Lines(head) {
		line = strings.TrimRight(line, " \t\r\n")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		m := plainLine.FindStringSubmatch(line)
		if m == nil {
			return frontmatter{}, false
		}
		v := strings.TrimSpace(m[2])
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		switch m[1] {
		case "name":
			fm.Name = v
		case "description":
			fm.Description = v
		case "argument-hint":
			fm.ArgumentHint = wordList(v)
		case "model":
			fm.Model = v
		case "allowed-tools":
			fm.AllowedTools = splitTools(v)
		}
	}
	return fm, true
}

var plainLine = regexp.MustCompile(`^([A-Za-z0-9_-]+):(?:\s+(.*))?$`)
