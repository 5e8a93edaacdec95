package tools_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"myco/server/tools"
)

// target names a file in dir by its own path, as Denied.Resolve would for
// a path without links.
func target(t *testing.T, dir, name string) tools.Target {
	t.Helper()
	p := filepath.Join(dir, name)
	return tools.Target{Path: p, Real: p}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readBack(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// lines returns "line 1\n" … "line n\n".
func lines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadFileRanges(t *testing.T) {
	long := strings.Repeat("é", tools.LineMaxChars+50)
	big := strings.Repeat(strings.Repeat("x", 99)+"\n", 3000) // 300 KB, past the byte cap
	tests := []struct {
		name     string
		content  string
		in       tools.ReadInput
		want     []string // lines the answer holds
		wantNot  []string
		wantNote string
	}{
		{"whole file, numbered like cat -n", "alpha\nbeta\n", tools.ReadInput{},
			[]string{"     1\talpha\n", "     2\tbeta\n"}, []string{"["}, ""},
		{"no final newline", "alpha\nbeta", tools.ReadInput{}, []string{"     2\tbeta\n"}, nil, ""},
		{"a range, with how to read on", lines(10), tools.ReadInput{Offset: 3, Limit: 2},
			[]string{"     3\tline 3\n", "     4\tline 4\n"}, []string{"line 2\n", "line 5\n"}, "[lines 3–4 of 10 shown; read on with offset=5]"},
		{"the end of a file", lines(10), tools.ReadInput{Offset: 9},
			[]string{"    10\tline 10\n"}, []string{"line 8\n"}, "[lines 9–10 of 10 shown: the end of the file]"},
		{"2000 lines by default", lines(2500), tools.ReadInput{},
			[]string{"  2000\tline 2000\n"}, []string{"line 2001\n"}, "[lines 1–2000 of 2500 shown; read on with offset=2001]"},
		{"offset past the end", lines(3), tools.ReadInput{Offset: 7}, nil, []string{"line 1"}, "[the file has 3 lines: offset 7 is past its end]"},
		{"empty file", "", tools.ReadInput{}, nil, nil, "[the file is empty]"},
		{"a long line is cut", "short\n" + long + "\n", tools.ReadInput{},
			[]string{"     1\tshort\n", strings.Repeat("é", tools.LineMaxChars) + " … [line cut: "}, []string{strings.Repeat("é", tools.LineMaxChars+1)},
			"[lines longer than 2000 characters were cut: 2]"},
		{"the byte cap says what was left out", big, tools.ReadInput{},
			[]string{"     1\t"}, []string{"  1100\t"}, "an answer is capped at 100.0 KB; read on with offset="},
		{"CRLF endings are not shown", "a\r\nb\r\n", tools.ReadInput{},
			[]string{"     1\ta\n"}, []string{"\r"}, "[the file has Windows line endings (CRLF), not shown]"},
		{"invalid UTF-8 is replaced and said", "caf\xe9\n", tools.ReadInput{},
			[]string{"     1\tcaf\uFFFD\n"}, nil, "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tg := target(t, dir, "f.txt")
			writeFile(t, tg.Real, tt.content)
			res, err := tools.ReadFile(tg, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("answer lacks %q:\n%s", w, head(res.Text))
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(res.Text, w) {
					t.Errorf("answer has %q:\n%s", w, head(res.Text))
				}
			}
			if tt.wantNote != "" && !strings.Contains(res.Text, tt.wantNote) {
				t.Errorf("answer lacks the note %q:\n…%s", tt.wantNote, tail(res.Text))
			}
			if len(res.Text) > tools.ReadMaxBytes+1000 {
				t.Errorf("answer is %d bytes, over the cap", len(res.Text))
			}
			sum := sha256.Sum256([]byte(tt.content))
			if res.Stamp.SHA256 != hex.EncodeToString(sum[:]) || res.Stamp.Size != int64(len(tt.content)) {
				t.Errorf("stamp %+v is not of the whole content (%d bytes)", res.Stamp, len(tt.content))
			}
		})
	}
}

func head(s string) string { return s[:min(len(s), 600)] }
func tail(s string) string { return s[max(0, len(s)-300):] }

func pngBytes(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadFileImage(t *testing.T) {
	dir := t.TempDir()
	tg := target(t, dir, "shot.dat") // the content says what it is, not the name
	img := pngBytes(t)
	if err := os.WriteFile(tg.Real, img, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := tools.ReadFile(tg, tools.ReadInput{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(res.Image, img) || res.MediaType != "image/png" || !strings.Contains(res.Text, "image/png") {
		t.Errorf("got media type %q, text %q, %d bytes", res.MediaType, res.Text, len(res.Image))
	}
	if res.Stamp.Size != int64(len(img)) {
		t.Errorf("stamp %+v", res.Stamp)
	}
}

func TestReadFileRefuses(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "prog"), "\x7fELF\x02\x01\x01\x00\x00\x00binary")
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		tg      tools.Target
		wantErr error
		wantMsg string
	}{
		{"binary", target(t, dir, "prog"), tools.ErrNotText, "is a binary file"},
		{"a folder", target(t, dir, "."), tools.ErrNotFile, "is a folder"},
		{"a named pipe, without blocking", target(t, dir, "pipe"), tools.ErrNotFile, "a named pipe"},
		{"a device", tools.Target{Path: os.DevNull, Real: os.DevNull}, tools.ErrNotFile, "a device"},
		{"missing", target(t, dir, "nope"), tools.ErrNoFile, "does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tools.ReadFile(tt.tg, tools.ReadInput{})
			if !errors.Is(err, tt.wantErr) || !strings.Contains(fmt.Sprint(err), tt.wantMsg) {
				t.Errorf("err = %v; want %v saying %q", err, tt.wantErr, tt.wantMsg)
			}
		})
	}
}

func TestApplyEdits(t *testing.T) {
	src := "package main\n\nfunc main() {\n\tfmt.Println(\"hello\")\n\tfmt.Println(\"hello\")\n}\n\nfunc other() {\n\treturn\n}\n"
	tests := []struct {
		name    string
		edits   []tools.Edit
		want    string // the result, when it applies
		wantErr []string
	}{
		{"exact and unique", []tools.Edit{{OldText: "func other() {", NewText: "func other2() {"}},
			strings.Replace(src, "other()", "other2()", 1), nil},
		{"in order, each on the result of the last", []tools.Edit{
			{OldText: "func other() {", NewText: "func next() {"},
			{OldText: "func next() {\n\treturn", NewText: "func next() {\n\treturn // done"},
		}, strings.Replace(src, "func other() {\n\treturn", "func next() {\n\treturn // done", 1), nil},
		{"deleting", []tools.Edit{{OldText: "\nfunc other() {\n\treturn\n}\n", NewText: ""}}, "package main\n\nfunc main() {\n\tfmt.Println(\"hello\")\n\tfmt.Println(\"hello\")\n}\n", nil},
		{"ambiguous names every place", []tools.Edit{{OldText: "fmt.Println(\"hello\")", NewText: "x"}}, "",
			[]string{"occurs 2 times", "     4\t\tfmt.Println", "     5\t\tfmt.Println"}},
		{"not found shows the nearest lines with their numbers", []tools.Edit{{OldText: "func other() {\n\treturn nil\n}", NewText: "x"}}, "",
			[]string{"was not found", "lines 8–10", "     8\tfunc other() {", "     9\t\treturn"}},
		{"whitespace only is said", []tools.Edit{{OldText: "func other() {\n    return\n}", NewText: "x"}}, "",
			[]string{"differs only in whitespace", "     9\t\treturn"}},
		{"line numbers copied from read_file are said", []tools.Edit{{OldText: "     9\t\treturn", NewText: "x"}}, "",
			[]string{"line numbers read_file shows"}},
		{"all or nothing: the second fails, nothing applies", []tools.Edit{
			{OldText: "func other() {", NewText: "func renamed() {"},
			{OldText: "no such text at all, nowhere", NewText: "x"},
		}, "", []string{"edit 2 of 2", "not found"}},
		{"empty old_text", []tools.Edit{{OldText: "", NewText: "x"}}, "", []string{"old_text is empty"}},
		{"no change", []tools.Edit{{OldText: "return", NewText: "return"}}, "", []string{"the same"}},
		{"no edits", nil, "", []string{"edits is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tools.ApplyEdits(src, tt.edits)
			if tt.wantErr == nil {
				if err != nil || got != tt.want {
					t.Fatalf("got %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("applied: %q", got)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestApplyEditsCRLF(t *testing.T) {
	got, err := tools.ApplyEdits("one\r\ntwo\r\nthree\r\n", []tools.Edit{{OldText: "two\nthree", NewText: "2\n3"}})
	if err != nil || got != "one\r\n2\r\n3\r\n" {
		t.Errorf("got %q, %v", got, err)
	}
}

// stampOf reads path as the agent would, for its stamp.
func stampOf(t *testing.T, tg tools.Target) *tools.Stamp {
	t.Helper()
	res, err := tools.ReadFile(tg, tools.ReadInput{})
	if err != nil {
		t.Fatal(err)
	}
	return &res.Stamp
}

func TestChangesNeedAFreshRead(t *testing.T) {
	dir := t.TempDir()
	tg := target(t, dir, "f.txt")
	writeFile(t, tg.Real, "one\ntwo\n")
	edit := []tools.Edit{{OldText: "two", NewText: "TWO"}}

	if _, err := tools.PrepareEdit(tg, edit, nil); !errors.Is(err, tools.ErrNotRead) || !strings.Contains(err.Error(), "read it with read_file") {
		t.Errorf("edit without a read: %v", err)
	}
	if _, err := tools.PrepareWrite(tg, "new\n", nil); !errors.Is(err, tools.ErrNotRead) {
		t.Errorf("write over a file not read: %v", err)
	}

	read := stampOf(t, tg)
	writeFile(t, tg.Real, "one\ntwo\nthree\n") // someone else saves
	if _, err := tools.PrepareEdit(tg, edit, read); !errors.Is(err, tools.ErrStale) || !strings.Contains(err.Error(), "Read it again") {
		t.Errorf("edit after an outside change: %v", err)
	}
	if _, err := tools.PrepareWrite(tg, "x\n", read); !errors.Is(err, tools.ErrStale) {
		t.Errorf("write after an outside change: %v", err)
	}

	read = stampOf(t, tg)
	ch, err := tools.PrepareEdit(tg, edit, read)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ch.Diff, "-two\n+TWO\n") {
		t.Errorf("diff:\n%s", ch.Diff)
	}
	writeFile(t, tg.Real, "one\ntwo\nthree\nfour\n") // saved while the person looks at the diff
	if _, err := ch.Apply(); !errors.Is(err, tools.ErrStale) {
		t.Errorf("apply after a change while waiting: %v", err)
	}
	if got := readBack(t, tg.Real); got != "one\ntwo\nthree\nfour\n" {
		t.Errorf("file changed to %q", got)
	}

	read = stampOf(t, tg)
	ch, err = tools.PrepareEdit(tg, edit, read)
	if err != nil {
		t.Fatal(err)
	}
	st, err := ch.Apply()
	if err != nil {
		t.Fatal(err)
	}
	if got := readBack(t, tg.Real); got != "one\nTWO\nthree\nfour\n" {
		t.Errorf("file is %q", got)
	}
	if again := stampOf(t, tg); !again.Same(st) {
		t.Errorf("the stamp of the write %+v is not the file's %+v", st, again)
	}
	if _, err := tools.PrepareEdit(tg, []tools.Edit{{OldText: "TWO", NewText: "2"}}, &st); err != nil {
		t.Errorf("edit after the agent's own write: %v", err)
	}
}

func TestEditAllOrNothingLeavesTheFile(t *testing.T) {
	dir := t.TempDir()
	tg := target(t, dir, "f.txt")
	writeFile(t, tg.Real, "a\nb\nc\n")
	_, err := tools.PrepareEdit(tg, []tools.Edit{{OldText: "a", NewText: "A"}, {OldText: "zzz", NewText: "Z"}}, stampOf(t, tg))
	if !errors.Is(err, tools.ErrEdit) || !strings.Contains(err.Error(), "No edit was applied") {
		t.Errorf("err = %v", err)
	}
	if got := readBack(t, tg.Real); got != "a\nb\nc\n" {
		t.Errorf("file is %q", got)
	}
}

func TestWriteNewFileNeedsNoRead(t *testing.T) {
	dir := t.TempDir()
	tg := target(t, dir, "sub/dir/new.txt")
	ch, err := tools.PrepareWrite(tg, "hello\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Created || !strings.HasPrefix(ch.Diff, "--- /dev/null\n+++ "+tg.Path+"\n") {
		t.Errorf("created %v, diff:\n%s", ch.Created, ch.Diff)
	}
	if _, err := ch.Apply(); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(tg.Real)
	if err != nil {
		t.Fatal(err)
	}
	if want := os.FileMode(0o666) &^ umask(t); info.Mode().Perm() != want {
		t.Errorf("new file mode %v, want %v (0666 less the umask)", info.Mode().Perm(), want)
	}
	if got := readBack(t, tg.Real); got != "hello\n" {
		t.Errorf("file is %q", got)
	}
	// Created by someone else between the proposal and the approval.
	tg2 := target(t, dir, "race.txt")
	ch, err = tools.PrepareWrite(tg2, "mine\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, tg2.Real, "theirs\n")
	if _, err := ch.Apply(); !errors.Is(err, tools.ErrStale) || readBack(t, tg2.Real) != "theirs\n" {
		t.Errorf("apply over a file created meanwhile: %v", err)
	}
}

// umask is the process's, seen through a file it creates.
func umask(t *testing.T) os.FileMode {
	t.Helper()
	p := filepath.Join(t.TempDir(), "probe")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return 0o666 &^ info.Mode().Perm()
}

func TestWriteKeepsModeAndLinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real", "script.sh")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, real, "#!/bin/sh\necho old\n")
	if err := os.Chmod(real, 0o751); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.sh")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	tg, err := tools.NewDenied(nil, "", "").Resolve(link)
	if err != nil || tg.Real != real {
		t.Fatalf("resolve: %+v, %v", tg, err)
	}
	ch, err := tools.PrepareWrite(tg, "#!/bin/sh\necho new\n", stampOf(t, tg))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ch.Apply(); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(real)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o751 {
		t.Errorf("mode %v, want -rwxr-x--x", info.Mode().Perm())
	}
	if l, err := os.Lstat(link); err != nil || l.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", l.Mode(), err)
	}
	if got := readBack(t, link); got != "#!/bin/sh\necho new\n" {
		t.Errorf("through the link: %q", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(real))
	if len(entries) != 1 {
		t.Errorf("temp files left: %v", entries)
	}
}

func TestWriteRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tg := range []tools.Target{{Path: pipe, Real: pipe}, {Path: os.DevNull, Real: os.DevNull}, {Path: dir, Real: dir}} {
		st := &tools.Stamp{}
		if _, err := tools.PrepareWrite(tg, "x", st); !errors.Is(err, tools.ErrNotFile) {
			t.Errorf("write %s: %v", tg.Path, err)
		}
	}
}

func TestDeniedPaths(t *testing.T) {
	home := t.TempDir()
	profile := filepath.Join(home, "share", "myco", "profiles", "default")
	elsewhere := t.TempDir()
	for _, d := range []string{".ssh", ".aws-real", "work", profile} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil && !filepath.IsAbs(d) {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(profile, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, ".ssh", "id_ed25519"), "secret")
	writeFile(t, filepath.Join(elsewhere, "notes.txt"), "fine")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(home, ".ssh", "id_ed25519"), filepath.Join(home, "work", "key")))   // a link into a denied folder
	must(os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "work", "sshdir")))              // a linked folder
	must(os.Symlink(filepath.Join(home, ".aws-real"), filepath.Join(home, ".aws")))                   // a denied folder that is a link
	must(os.Symlink(filepath.Join(elsewhere, "notes.txt"), filepath.Join(home, ".ssh", "out")))       // a link out of a denied folder
	must(os.Symlink(filepath.Join(home, ".ssh", "new_key"), filepath.Join(home, "work", "dangling"))) // to a file not there yet
	d := tools.NewDenied([]string{"~/.ssh", "~/.aws", "~/.gnupg"}, home, profile)

	tests := []struct {
		name   string
		path   string
		denied string // what the error names; "" when allowed
	}{
		{"inside a denied folder", filepath.Join(home, ".ssh", "id_ed25519"), "inside ~/.ssh"},
		{"the denied folder itself", filepath.Join(home, ".ssh"), "inside ~/.ssh"},
		{"a new file in a denied folder", filepath.Join(home, ".gnupg", "new"), "inside ~/.gnupg"},
		{"a link into a denied folder", filepath.Join(home, "work", "key"), "it leads to " + filepath.Join(home, ".ssh", "id_ed25519")},
		{"a new file under a linked folder", filepath.Join(home, "work", "sshdir", "new"), "inside ~/.ssh"},
		{"a dangling link into a denied folder", filepath.Join(home, "work", "dangling"), "inside ~/.ssh"},
		{"the target of a denied link", filepath.Join(home, ".aws-real", "credentials"), "inside ~/.aws"},
		{"a link out of a denied folder is not followed", filepath.Join(home, ".ssh", "out"), "inside ~/.ssh"},
		{"the profile folder", filepath.Join(profile, "settings.json"), "myco's data folder"},
		{"another profile's token", filepath.Join(home, "share", "myco", "profiles", "work", "server.json"), "myco's data folder"},
		{"the data folder itself", filepath.Join(home, "share", "myco"), "myco's data folder"},
		{".env", filepath.Join(home, "work", ".env"), ".env file"},
		{".env.local", filepath.Join(home, "work", ".env.local"), ".env file"},
		{"a file elsewhere", filepath.Join(elsewhere, "notes.txt"), ""},
		{".envrc is not .env", filepath.Join(home, "work", ".envrc"), ""},
		{"a sibling with a denied prefix", filepath.Join(home, ".sshx", "f"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := d.Resolve(tt.path)
			if tt.denied == "" {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			var de *tools.DeniedError
			if !errors.As(err, &de) || !errors.Is(err, tools.ErrDenied) || !strings.Contains(err.Error(), tt.denied) {
				t.Errorf("err = %v; want denied naming %q", err, tt.denied)
			}
		})
	}
}

func TestAbsPath(t *testing.T) {
	tests := []struct {
		name, cwd, path, want string
		wantErr               bool
	}{
		{"relative to the session's folder", "/work/proj", "src/a.go", "/work/proj/src/a.go", false},
		{"absolute", "/work/proj", "/etc/hosts", "/etc/hosts", false},
		{"cleaned", "/work/proj", "../other/./b.go", "/work/other/b.go", false},
		{"home", "/work", "~/notes.md", "/home/ana/notes.md", false},
		{"empty", "/work", " ", "", true},
		{"relative without a folder", "", "a.go", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tools.AbsPath(tt.cwd, "/home/ana", tt.path)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("got %q, %v", got, err)
			}
		})
	}
}

func TestStamps(t *testing.T) {
	var ss tools.Stamps
	a := tools.Stamp{SHA256: "aa", Size: 2}
	b := tools.Stamp{SHA256: "bb", Size: 2}
	if _, ok := ss.Get("/f"); ok {
		t.Fatal("a stamp before any read")
	}
	ss.Read("/f", a, "0:1:2000", "toolu_1")
	if by, ok := ss.Sent("/f", a, "0:1:2000"); !ok || by != "toolu_1" {
		t.Errorf("same view of the same content: %q %v", by, ok)
	}
	if _, ok := ss.Sent("/f", a, "0:5:10"); ok {
		t.Error("another range counted as sent")
	}
	if _, ok := ss.Sent("/f", b, "0:1:2000"); ok {
		t.Error("changed content counted as sent")
	}
	ss.Wrote("/f", b)
	if st, _ := ss.Get("/f"); !st.Same(b) {
		t.Errorf("stamp after a write %+v", st)
	}
	if _, ok := ss.Sent("/f", b, "0:1:2000"); ok {
		t.Error("a view counted as sent after a write")
	}
}

func TestDiff(t *testing.T) {
	d := tools.Unified("/p/f.txt", "a\n-- b\nc\n", "a\nB\nc\nd\n", false)
	want := "--- /p/f.txt\n+++ /p/f.txt\n@@ -1,3 +1,4 @@\n a\n--- b\n+B\n c\n+d\n"
	if d != want {
		t.Errorf("diff:\n%s\nwant:\n%s", d, want)
	}
	if added, removed := tools.DiffStat(d); added != 2 || removed != 1 {
		t.Errorf("stat +%d -%d", added, removed)
	}
	big := tools.Unified("/p/big", "", strings.Repeat("0123456789\n", 40000), true)
	if len(big) > tools.DiffMax+200 || !strings.Contains(big, "[diff cut here: ") {
		t.Errorf("a long diff is %d bytes, ending %q", len(big), tail(big))
	}
}
