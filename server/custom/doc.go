// Package custom reads the person's and the project's custom commands and
// skills: Markdown files other agents share (Claude Code's .claude/
// commands and .claude/skills, opencode's .opencode/commands, the Agent
// Skills standard's .agents/skills) and myco's own .myco/commands and
// .myco/skills, with ~/.config/myco/commands and ~/.config/myco/skills
// for the person.
//
// The rules (README "Custom commands and skills" says them for people):
//
//   - Project folders are looked for in the session's folder and each
//     folder above it up to the repository's root (the nearest folder
//     holding .git; without one, the session's folder alone), nearest
//     first; then the person's folders. Within a folder .myco comes
//     first, then .claude, then .opencode (.agents for skills). The first
//     file of a name wins; the others are listed as shadowed by it.
//   - A command's name is its file's path below the commands folder
//     without .md, folders joined with ":" (frontend/test.md →
//     frontend:test), lower-cased; a skill's name is its folder's name.
//   - A command named like a built-in one keeps the built-in: it is
//     reached as /project:NAME or /user:NAME instead.
//   - A file that cannot be used (damaged frontmatter, a name myco cannot
//     type, too large) is listed with the reason and never stops the rest.
//
// Reading is cheap enough for every page render: a Loader keeps what it
// parsed by path, size and modification time and reads only what changed.
package custom
