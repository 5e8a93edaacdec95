package lexers

import (
	"slices"
	"testing"

	"github.com/alecthomas/chroma/v2"
	chromalexers "github.com/alecthomas/chroma/v2/lexers"
)

// fences are the languages written after ``` most, in the spellings
// people and models use.
var fences = []string{
	"go", "golang", "python", "py", "python3", "js", "javascript", "ts", "typescript", "tsx", "jsx",
	"bash", "sh", "shell", "zsh", "console", "shell-session", "powershell", "ps1", "bat", "cmd", "fish",
	"json", "yaml", "yml", "toml", "ini", "xml", "html", "css", "scss", "csv", "properties",
	"sql", "postgresql", "postgres", "graphql", "proto", "protobuf",
	"c", "h", "cpp", "c++", "hpp", "cc", "csharp", "cs", "c#", "objc", "objective-c", "java", "kotlin", "kt",
	"scala", "groovy", "gradle", "swift", "dart", "rust", "rs", "zig", "ruby", "rb", "perl", "pl", "php",
	"lua", "r", "haskell", "hs", "ocaml", "ml", "elixir", "ex", "exs", "erlang", "erl", "clojure", "clj", "awk",
	"diff", "patch", "makefile", "make", "mk", "cmake", "dockerfile", "docker", "nix", "hcl", "terraform", "tf",
	"nginx", "systemd", "vim", "viml", "tex", "latex", "go-html-template", "go-text-template", "templ",
	"markdown", "md", "vue", "text", "plaintext", "txt",
	"Go", "Python", "JSON", "YAML", "Bash",
}

// TestSameLexerAsChroma checks that each fence finds the lexer chroma's
// own registry finds, for every name and alias of the set and the common
// spellings above, so moving off chroma's registry changed no block's
// language; and that a fence chroma knows but the set does not finds none.
func TestSameLexerAsChroma(t *testing.T) {
	var r Registry
	names := slices.Clone(fences)
	r.Get("") // registers the set
	for _, l := range r.reg.Lexers {
		names = append(names, l.Config().Name)
		names = append(names, l.Config().Aliases...)
	}
	for _, name := range names {
		want, got := chromalexers.Get(name), r.Get(name)
		switch {
		case got == nil && want == nil:
		case got == nil:
			t.Errorf("Get(%q) = nil, chroma's is %q", name, want.Config().Name)
		case want == nil:
			t.Errorf("Get(%q) = %q, chroma has none", name, got.Config().Name)
		case got.Config().Name != want.Config().Name:
			t.Errorf("Get(%q) = %q, chroma's is %q", name, got.Config().Name, want.Config().Name)
		}
	}
}

// TestSameTokensAsChroma tokenises a sample with each lexer of the set
// and with chroma's of the same name: the same definitions must give the
// same tokens, including text handed to another lexer (HTML's CSS and
// JavaScript, Markdown's fenced code, Go's raw strings).
func TestSameTokensAsChroma(t *testing.T) {
	samples := map[string]string{
		"Go": "package main\n\nimport \"fmt\"\n\n/* block */\n// main says hi.\nfunc main() {\n\tconst k = iota\n\tvar e error = nil\n\tx := `{{.Name}}`\n" +
			"\tif ok := true; ok && len(x) >= 0x1F {\n\t\tfmt.Println(x, 1.5e3, 'c', 0b101, 07, 2i, e, k, make([]int, 3))\n\t}\n}\n",
		"HTML":         "<!doctype html>\n<style>p { color: red }</style>\n<script>let a = 1 + 2;</script>\n<p class=\"x\">hi &amp; bye</p>\n",
		"markdown":     "---\ntitle: x\n---\n# Title\n\n- item *em*\n\n```python\nprint('hi')\n```\n",
		"Templ":        "package web\n\ntempl Hello(name string) {\n\t<p>{ name }</p>\n}\n",
		"Docker":       "FROM golang:1.26\nRUN go build ./...\nCMD [\"myco\"]\n",
		"Bash Session": "$ ls -la\ntotal 0\n$ echo \"$HOME\"\n/root\n",
	}
	var r Registry
	r.Get("")
	for _, l := range r.reg.Lexers {
		name := l.Config().Name
		text, ok := samples[name]
		if !ok {
			text = "a = 1\n# comment\n\"string\" 'x' 42 { b(c); }\n<tag attr=\"v\">x</tag>\n"
		}
		t.Run(name, func(t *testing.T) {
			want := tokens(t, chromalexers.Get(name), text)
			got := tokens(t, l, text)
			if !slices.Equal(got, want) {
				t.Errorf("tokens differ from chroma's:\n got %v\nwant %v", got, want)
			}
		})
	}
}

func tokens(t *testing.T, l chroma.Lexer, text string) []chroma.Token {
	t.Helper()
	if l == nil {
		t.Fatal("no lexer")
	}
	it, err := chroma.Coalesce(l).Tokenise(nil, text)
	if err != nil {
		t.Fatal(err)
	}
	return it.Tokens()
}

// BenchmarkFirstBlock is what the first code block after a start pays to
// register the set, and to compile and run the Go lexer on a small block.
func BenchmarkFirstBlock(b *testing.B) {
	for b.Loop() {
		var r Registry
		it, err := chroma.Coalesce(r.Get("go")).Tokenise(nil, "package main\n\nfunc main() {}\n")
		if err != nil {
			b.Fatal(err)
		}
		_ = it.Tokens()
	}
}
