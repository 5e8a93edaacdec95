package server_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myco/e2e/fakellm"
	"myco/server/custom"
	"myco/session"
)

// writeFiles writes files (path below dir → text), making their folders.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runCommand runs a custom command through the API.
func (cs *chatServer) runCommand(id, name, args string) *http.Response {
	cs.t.Helper()
	body, _ := json.Marshal(map[string]string{"name": name, "args": args})
	return cs.post("POST", id, "/commands/run", string(body))
}

// turnEnd waits for the turn's end, failing on a turn error.
func turnEnd(t *testing.T, st *stream) []sseEvent {
	t.Helper()
	evs := st.until("turn.end")
	for _, ev := range evs {
		if ev.name == "turn.error" {
			t.Fatalf("turn failed: %s", ev.data)
		}
	}
	return evs
}

// A custom command's text, its arguments put in, is sent as the person's
// message: the model's request holds the expansion, the document the
// command as typed beside it, and the page shows the command.
func TestCustomCommandExpandedAndSent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".myco/commands/review.md": "---\ndescription: Review a file\nargument-hint: [file] [focus]\n---\nReview $1 for $2.\nAll of it: $ARGUMENTS\n",
	})
	fake := fakellm.Start(t)
	cs := startChatServer(t, dir, fake, "anthropic")
	id := cs.create("commands").ID
	st := cs.stream(t, id)

	wantStatus(t, cs.runCommand(id, "review", `main.go "error handling"`), http.StatusAccepted)
	turnEnd(t, st)

	reqs := agentCalls(t, fake)
	if len(reqs) != 1 {
		t.Fatalf("%d agent calls, want 1", len(reqs))
	}
	want := `Review main.go for error handling.\nAll of it: main.go \"error handling\"`
	if last := reqs[0].msgs[len(reqs[0].msgs)-1]; !strings.Contains(last, want) {
		t.Errorf("the request's message %s, want the expansion %s", last, want)
	}
	m := lastHuman(t, cs.sessions, id)
	if m.Command == nil || m.Command.Name != "review" || m.Command.Args != `main.go "error handling"` || !strings.HasSuffix(m.Command.Path, filepath.Join(".myco", "commands", "review.md")) {
		t.Errorf("the message's command %+v, want /review with its arguments and file", m.Command)
	}

	// The page lists it in /help with its description, and shows the
	// message as the command typed.
	resp := cs.do("GET", "/s/"+id, nil)
	wantStatus(t, resp, http.StatusOK)
	page := decodeRaw(t, resp)
	for _, want := range []string{`data-command="review"`, "Review a file", `/review main.go &#34;error handling&#34;`, "What the command sent"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}

	// An unknown command, and one while a turn runs, are refused.
	wantStatus(t, cs.runCommand(id, "nothing-here", ""), http.StatusNotFound)
	wantStatus(t, cs.send(id, "[[delay:200ms]] [[text:3]]"), http.StatusAccepted)
	wantStatus(t, cs.runCommand(id, "review", "x"), http.StatusConflict)
	turnEnd(t, st)
}

// lastHuman is the last message a person sent.
func lastHuman(t *testing.T, ss *session.Store, id string) session.Message {
	t.Helper()
	doc, err := ss.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	msgs := doc.Threads[len(doc.Threads)-1].Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Human {
			return msgs[i]
		}
	}
	t.Fatal("no message of the person")
	return session.Message{}
}

// A command's model runs its turn only; its allowed-tools run without
// asking in its turn only.
func TestCustomCommandModelAndAllowedTools(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".myco/commands/fast.md":  "---\nmodel: anthropic/fake-fast\n---\nAnswer quickly: $ARGUMENTS",
		".claude/commands/say.md": "---\nallowed-tools: Bash(echo:*), Read\n---\n[[tool:bash {\"command\":\"echo $1\"}]]",
		".myco/commands/far.md":   "---\nmodel: nowhere/none\n---\nHello",
	})
	fake := fakellm.Start(t)
	cs := startChatServer(t, dir, fake, "anthropic")
	id := cs.create("grants").ID
	st := cs.stream(t, id)

	wantStatus(t, cs.runCommand(id, "fast", "now"), http.StatusAccepted)
	turnEnd(t, st)
	cs.turn(st, id, "and then")
	reqs := fake.Requests()
	var models []string
	for _, r := range reqs {
		if r.JSON != nil && r.JSON["tools"] != nil {
			models = append(models, r.JSON["model"].(string))
		}
	}
	if len(models) != 2 || models[0] != "fake-fast" || models[1] != "fake-model" {
		t.Errorf("models %v, want the command's turn on fake-fast, the next on the session's fake-model", models)
	}

	doc, err := cs.sessions.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	var answers []string
	for _, m := range doc.Threads[len(doc.Threads)-1].Messages {
		if m.Role == "assistant" {
			answers = append(answers, m.Model)
		}
	}
	if strings.Join(answers, " ") != "anthropic/fake-fast anthropic/fake-model" {
		t.Errorf("the answers record the models %v, want the command's then the session's (their cost is figured from it)", answers)
	}

	// A model myco cannot reach is refused before anything is sent.
	wantStatus(t, cs.runCommand(id, "far", ""), http.StatusBadRequest)

	// Bash(echo:*) runs echo without asking in the command's turn.
	wantStatus(t, cs.runCommand(id, "say", "granted-words"), http.StatusAccepted)
	evs := turnEnd(t, st)
	for _, ev := range evs {
		if ev.name == "tool.approval" {
			t.Fatal("asked for approval of a call the command allows")
		}
	}
	if _, text := deltas(evs, t); !strings.Contains(text, "granted-words") {
		t.Errorf("the answer %q does not quote the command's output", text)
	}
	// The same call in an ordinary message asks.
	wantStatus(t, cs.send(id, `[[tool:bash {"command":"echo ungranted"}]]`), http.StatusAccepted)
	evs = st.until("tool.approval")
	ap := data(t, evs[len(evs)-1])
	wantStatus(t, cs.do("POST", "/api/sessions/"+id+"/approvals/"+ap["tool_use_id"].(string), strings.NewReader(`{"decision":"deny"}`)), http.StatusOK)
	turnEnd(t, st)
}

// GET …/commands lists every command found: subfolders namespace them,
// a built-in's name moves aside, a damaged file is reported, and a
// command of the same name farther away is shadowed.
func TestCustomCommandsListed(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "app")
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, map[string]string{
		"app/.myco/commands/frontend/test.md": "---\ndescription: Run the frontend tests\n---\nRun them",
		"app/.claude/commands/help.md":        "My own help",
		"app/.myco/commands/broken.md":        "---\ndescription: no end\nbody",
		"app/.myco/commands/deploy.md":        "Deploy from app",
		".claude/commands/deploy.md":          "Deploy from the root",
		".opencode/commands/lint.md":          "Lint",
	})
	cs := startChatServer(t, dir, fakellm.Start(t), "anthropic")
	id := cs.create("listing").ID
	resp := cs.do("GET", "/api/sessions/"+id+"/commands", nil)
	wantStatus(t, resp, http.StatusOK)
	got := decode[struct{ Commands []custom.Command }](t, resp)
	by := map[string][]custom.Command{}
	for _, c := range got.Commands {
		by[c.Name] = append(by[c.Name], c)
	}
	tests := []struct {
		name, desc, problem, builtin string
		usable                       bool
	}{
		{name: "frontend:test", desc: "Run the frontend tests", usable: true},
		{name: "project:help", desc: "My own help", builtin: "help", usable: true},
		{name: "broken", problem: "no closing ---", usable: false},
		{name: "lint", desc: "Lint", usable: true},
	}
	for _, tt := range tests {
		cs, ok := by[tt.name]
		if !ok {
			t.Errorf("no command %s in %+v", tt.name, got.Commands)
			continue
		}
		c := cs[0]
		if c.Description != tt.desc || c.Usable() != tt.usable || !strings.Contains(c.Problem, tt.problem) || c.Builtin != tt.builtin {
			t.Errorf("%s: %+v", tt.name, c)
		}
	}
	if d := by["deploy"]; len(d) != 2 || d[0].Description != "Deploy from app" || !d[0].Usable() || d[1].ShadowedBy != d[0].Path {
		t.Errorf("deploy: %+v, want app's winning, the root's shadowed by it", d)
	}
}

// A skill costs the agent a line until it loads it: the first request
// holds its name and description only; the skill tool's result holds its
// body and files.
func TestSkillLoadedOnlyWhenUsed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".myco/skills/deploy/SKILL.md":   "---\nname: deploy\ndescription: Deploy the app to staging\n---\nSecret steps: run BODY-MARKER-7 first.\n",
		".myco/skills/deploy/run.sh":     "echo deploy",
		".claude/skills/broken/SKILL.md": "---\ndescription: x\n  indented: [\n---\nx",
	})
	fake := fakellm.Start(t)
	cs := startChatServer(t, dir, fake, "anthropic")
	id := cs.create("skills").ID
	st := cs.stream(t, id)
	wantStatus(t, cs.send(id, `[[tool:skill {"name":"deploy"}]]`), http.StatusAccepted)
	turnEnd(t, st)

	reqs := agentCalls(t, fake)
	if len(reqs) != 2 {
		t.Fatalf("%d agent calls, want 2", len(reqs))
	}
	first := reqs[0]
	if !strings.Contains(first.tools, `deploy: Deploy the app to staging`) {
		t.Errorf("the first request's tools do not offer the skill: %s", first.tools)
	}
	if strings.Contains(first.tools+first.system+strings.Join(first.msgs, ""), "BODY-MARKER-7") {
		t.Error("the first request holds the skill's body")
	}
	if strings.Contains(first.tools, "broken") {
		t.Error("a damaged skill is offered")
	}
	result := reqs[1].msgs[len(reqs[1].msgs)-1]
	for _, want := range []string{"BODY-MARKER-7", "run.sh"} {
		if !strings.Contains(result, want) {
			t.Errorf("the skill's result lacks %s: %s", want, result)
		}
	}
	// A name not offered is an error the agent can act on.
	wantStatus(t, cs.send(id, `[[tool:skill {"name":"broken"}]]`), http.StatusAccepted)
	turnEnd(t, st)
	reqs = agentCalls(t, fake)
	if last := reqs[len(reqs)-1].msgs[len(reqs[len(reqs)-1].msgs)-1]; !strings.Contains(last, `There is no skill \"broken\". The skills are: deploy.`) {
		t.Errorf("the result for a skill not offered: %s", last)
	}
	doc := decode[session.Document](t, cs.do("GET", "/api/sessions/"+id, nil))
	if len(doc.Skills) != 2 || doc.Skills[0].Name != "deploy" || doc.Skills[0].Problem != "" || doc.Skills[1].Problem == "" {
		t.Errorf("the document's skills %+v, want deploy offered and broken reported", doc.Skills)
	}
}

// The skill tool is fixed when the session opens: a changed skill does
// not change the next request's tools (the cached prefix holds) until
// /init reload.
func TestSkillsKeepTheRequestByteStable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".myco/skills/alpha/SKILL.md": "---\ndescription: First description\n---\nbody",
		".myco/skills/beta/SKILL.md":  "---\ndescription: Beta\n---\nbody",
	})
	fake := fakellm.Start(t)
	cs := startChatServer(t, dir, fake, "anthropic")
	id := cs.create("stable").ID
	st := cs.stream(t, id)
	cs.turn(st, id, "one")
	writeFiles(t, dir, map[string]string{".myco/skills/alpha/SKILL.md": "---\ndescription: Changed description\n---\nbody"})
	cs.turn(st, id, "two")
	reqs := agentCalls(t, fake)
	if len(reqs) != 2 {
		t.Fatalf("%d agent calls, want 2", len(reqs))
	}
	if why := extends(reqs[0], reqs[1]); why != "" {
		t.Errorf("the second request does not extend the first: %s", why)
	}
	if !strings.Contains(reqs[0].tools, "alpha: First description") {
		t.Errorf("tools %s", reqs[0].tools)
	}
	wantStatus(t, cs.do("POST", "/api/sessions/"+id+"/instructions/reload", nil), http.StatusOK)
	cs.turn(st, id, "three")
	reqs = agentCalls(t, fake)
	if !strings.Contains(reqs[2].tools, "alpha: Changed description") {
		t.Errorf("after a reload the tools %s, want the changed description", reqs[2].tools)
	}
}
