package server_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myco/profiles"
)

// TestFileToolsThroughTheProviders drives read_file and edit_file as the
// model calls them, through the real SDK clients, with the settings the
// server was given: edits allowed, ~/.ssh denied.
func TestFileToolsThroughTheProviders(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"anthropic", "openai"} {
		t.Run(provider, func(t *testing.T) {
			cs := newChatServer(t, provider, func(s *profiles.Settings) {
				s.Approvals.Edit = profiles.ApprovalAllow
				s.DeniedPaths = []string{"~/.ssh"}
			})
			s := cs.create("files")
			st := cs.stream(t, s.ID)
			file := filepath.Join(cs.dir, "a.txt")
			if err := os.WriteFile(file, []byte("one\ntwo\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			wantStatus(t, cs.send(s.ID, `[[steps: tool:read_file {"path":"a.txt"} ;; `+
				`tool:edit_file {"path":"a.txt","edits":[{"old_text":"two","new_text":"TWO"}]} ;; say:done]]`), http.StatusAccepted)
			evs := st.until("turn.end")
			var outs []string
			for _, ev := range evs {
				switch ev.name {
				case "tool.approval":
					t.Error("asked although settings allow edits")
				case "tool.end":
					outs = append(outs, data(t, ev)["output"].(string))
				}
			}
			if len(outs) != 2 || !strings.Contains(outs[0], "     2\ttwo") || !strings.Contains(outs[1], "Edited "+file) {
				t.Errorf("outcomes %q", outs)
			}
			if got, _ := os.ReadFile(file); string(got) != "one\nTWO\n" {
				t.Errorf("file is %q", got)
			}
			reqs := cs.fake.Requests()
			if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, "Edited ") {
				t.Errorf("the edit's outcome did not reach the model: %s", body)
			}

			if err := os.WriteFile(filepath.Join(cs.dir, "shot.png"), pngBytes(t), 0o644); err != nil {
				t.Fatal(err)
			}
			cs.fake.Reset()
			wantStatus(t, cs.send(s.ID, `look [[tool:read_file {"path":"shot.png"}]]`), http.StatusAccepted)
			st.until("turn.end")
			reqs = cs.fake.Requests()
			body := string(reqs[len(reqs)-1].Body)
			wantImage := map[string]string{"anthropic": `"media_type":"image/png"`, "openai": `data:image/png;base64,`}[provider]
			if !strings.Contains(body, wantImage) {
				t.Errorf("the image read did not reach the model as an image: %s", body)
			}

			wantStatus(t, cs.send(s.ID, `[[tool:read_file {"path":"~/.ssh/id_ed25519"}]]`), http.StatusAccepted)
			for _, ev := range st.until("turn.end") {
				if ev.name == "tool.end" {
					if d := data(t, ev); d["is_error"] != true || !strings.Contains(d["output"].(string), "is denied") {
						t.Errorf("tool.end %v", d)
					}
				}
			}
		})
	}
}
