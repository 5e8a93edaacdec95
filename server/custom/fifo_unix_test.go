//go:build unix

package custom

import (
	"path/filepath"
	"syscall"
	"testing"
)

// A pipe named like a command or a SKILL.md is never opened (a read would
// wait forever): it is reported.
func TestPipeNotRead(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{".myco/commands/ok.md": "fine", ".myco/skills/p/x": ""})
	for _, p := range []string{".myco/commands/pipe.md", ".myco/skills/p/SKILL.md"} {
		if err := syscall.Mkfifo(filepath.Join(dir, p), 0o644); err != nil {
			t.Skip("no pipes here:", err)
		}
	}
	l := NewLoader(nil, nil)
	cmds := l.Commands(Places{Folder: dir})
	if c, ok := Find(cmds, "ok"); !ok || c.Body() != "fine" {
		t.Errorf("ok: %+v", c)
	}
	for _, c := range cmds {
		if c.Name == "pipe" && c.Problem != "not a regular file" {
			t.Errorf("pipe: %+v", c)
		}
	}
	sks := l.Skills(Places{Folder: dir})
	if len(sks) != 1 || sks[0].Problem != "not a regular file" {
		t.Errorf("skills %+v, want p reported", sks)
	}
}
