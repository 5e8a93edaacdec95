package custom

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// skillFile is the file that makes a folder a skill.
const skillFile = "SKILL.md"

// Skill is a folder with a SKILL.md: its name and description are shown
// to the agent up front, its body and files only when it loads it.
type Skill struct {
	// Name is the folder's name (Claude Code's rule; the frontmatter's
	// name is only a label).
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Dir is the skill's folder, Path its SKILL.md; Origin and Scope as a
	// Command's.
	Dir    string `json:"dir"`
	Path   string `json:"path"`
	Origin string `json:"origin"`
	Scope  string `json:"scope"`
	// Problem and ShadowedBy as a Command's.
	Problem    string `json:"problem,omitempty"`
	ShadowedBy string `json:"shadowed_by,omitempty"`
}

// Usable reports whether the agent is offered the skill.
func (s Skill) Usable() bool { return s.Problem == "" && s.ShadowedBy == "" }

// Skills are the skills found for p: the ones offered first (in name
// order), then the shadowed and damaged ones.
func (l *Loader) Skills(p Places) []Skill {
	var all []Skill
	won := map[string]string{}
	for _, d := range p.skillDirs() {
		ents, err := readDir(d.path)
		if err != nil {
			all = append(all, Skill{Dir: d.path, Origin: origin(d, p), Scope: d.scope, Problem: "folder not readable: " + err.Error()})
			continue
		}
		for i, e := range ents {
			if i >= maxPerFolder {
				break
			}
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			sk, ok := l.skill(d, p, filepath.Join(d.path, e.Name()))
			if !ok {
				continue
			}
			if sk.Problem == "" {
				if first, ok := won[sk.Name]; ok {
					sk.ShadowedBy = first
				} else {
					won[sk.Name] = sk.Path
				}
			}
			all = append(all, sk)
		}
	}
	byUsableName := func(a, b Skill) int {
		if a.Usable() != b.Usable() {
			if a.Usable() {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	}
	slices.SortStableFunc(all, byUsableName)
	// Every request carries the list: past maxSkillList bytes the rest
	// are not offered, and say so.
	listed := 0
	for i := range all {
		if !all[i].Usable() {
			break
		}
		listed += len(all[i].Name) + len(all[i].Description) + 4
		if listed > maxSkillList {
			all[i].Problem = fmt.Sprintf("not offered: the skills listed before it fill the %d KB the list may take", maxSkillList>>10)
		}
	}
	slices.SortStableFunc(all, byUsableName)
	return all
}

// skill reads the skill in folder skillDir; false when it is no skill (no
// SKILL.md in it).
func (l *Loader) skill(d dir, p Places, skillDir string) (Skill, bool) {
	path := filepath.Join(skillDir, skillFile)
	info, err := os.Stat(path)
	if err != nil {
		return Skill{}, false
	}
	name := strings.ToLower(filepath.Base(skillDir))
	sk := Skill{Name: name, Dir: skillDir, Path: path, Origin: origin(d, p), Scope: d.scope}
	if !namePart.MatchString(name) {
		sk.Problem = "its folder's name is not a skill name: use letters, digits, - and _"
		return sk, true
	}
	f := l.read(path, info, maxSkillFile, true)
	if f.err != "" {
		sk.Problem = f.err
		return sk, true
	}
	sk.Description = oneLine(f.fm.Description, maxDescription)
	if sk.Description == "" {
		sk.Description = oneLine(firstLine(f.body), 200)
	}
	if sk.Description == "" {
		sk.Problem = "it has no description: the agent could not tell when to use it"
	}
	return sk, true
}

// Loaded is what the agent is given when it loads a skill.
type Loaded struct {
	Body string
	// Cut says the body was cut to its first maxSkillBody bytes; Size is
	// the SKILL.md's.
	Cut  bool
	Size int64
	// Files are the other files in the skill's folder (absolute paths, at
	// most maxSkillFiles), for the agent to read when the body says to;
	// More says how many were left out.
	Files []string
	More  int
}

// Load reads skill sk's body and lists its files, as they are now.
func (l *Loader) Load(sk Skill) (Loaded, error) {
	info, err := os.Stat(sk.Path)
	if err != nil {
		return Loaded{}, fmt.Errorf("skill %s: %w", sk.Name, err)
	}
	text, err := l.readText(sk.Path, info, maxSkillFile, true)
	if err != nil {
		return Loaded{}, fmt.Errorf("skill %s: %w", sk.Name, err)
	}
	_, body, err := splitFrontmatter(text)
	if err != nil {
		return Loaded{}, fmt.Errorf("skill %s: %w", sk.Name, err)
	}
	out := Loaded{Body: strings.TrimSpace(body), Size: info.Size()}
	if len(out.Body) > maxSkillBody || info.Size() > maxSkillFile {
		out.Body = strings.ToValidUTF8(out.Body[:min(len(out.Body), maxSkillBody)], "")
		out.Cut = true
	}
	n := 0
	err = filepath.WalkDir(sk.Dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable subfolder is left out
		}
		if strings.HasPrefix(e.Name(), ".") && path != sk.Dir {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if e.IsDir() || path == sk.Path {
			return nil
		}
		n++
		if n > maxSkillWalk {
			return filepath.SkipAll // a skill holding a whole tree (node_modules) is not walked whole
		}
		if len(out.Files) < maxSkillFiles {
			out.Files = append(out.Files, path)
		}
		return nil
	})
	out.More = min(n, maxSkillWalk) - len(out.Files)
	return out, err
}

// maxSkillList bounds the names and descriptions the agent is given, in
// bytes: they are in every request.
const maxSkillList = 16 << 10

// maxSkillWalk bounds the files counted in a skill's folder.
const maxSkillWalk = 10000
