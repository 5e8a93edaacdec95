package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"myco/schedule"
)

// Without a server the schedule commands work on schedules.json: add
// (session prefixes resolved), list, history, rm; run-now says it needs
// the running myco; a bad when is refused with the parser's reason.
func TestScheduleWithoutServer(t *testing.T) {
	c := newCLI(t)
	inbox := c.create("default", "inbox")
	out, errOut, code := c.run("schedule", "add", "--deliver-to", inbox[:8], "--missed", "skip", "morning", "0 9 * * 1-5", "check the build")
	if code != 0 || !strings.Contains(out, "added") || !strings.Contains(out, "next run") {
		t.Fatalf("add: %d %q %q", code, out, errOut)
	}
	out, _, code = c.run("schedule", "list", "--json")
	var list []struct {
		schedule.Schedule
		NextRun *string `json:"next_run"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("list --json: %d %q", code, out)
	}
	sc := list[0]
	if sc.DeliverTo != inbox || sc.Missed != schedule.MissedSkip || sc.Session != schedule.NewSession || !sc.Enabled || sc.NextRun == nil {
		t.Errorf("listed %+v", sc)
	}
	if out, _, _ := c.run("schedule", "list"); !strings.Contains(out, "morning") || !strings.Contains(out, "0 9 * * 1-5") {
		t.Errorf("list: %q", out)
	}
	if out, _, code := c.run("schedule", "history", "morning"); code != 0 || !strings.Contains(out, "has not run yet") {
		t.Errorf("history by name: %d %q", code, out)
	}
	if _, errOut, code := c.run("schedule", "run-now", sc.ID[:6]); code != 1 || !strings.Contains(errOut, "needs the running myco") {
		t.Errorf("run-now without a server: %d %q", code, errOut)
	}
	if _, errOut, code := c.run("schedule", "add", "x", "every day", "hi"); code != 1 || !strings.Contains(errOut, "expected exactly 5 fields") {
		t.Errorf("bad when: %d %q", code, errOut)
	}
	if _, _, code := c.run("schedule", "add", "only-a-name"); code != 2 {
		t.Errorf("add with one argument: exit %d, want 2", code)
	}
	if out, errOut, code := c.run("schedule", "rm", sc.ID); code != 0 || !strings.Contains(out, "removed") {
		t.Fatalf("rm: %d %q %q", code, out, errOut)
	}
	if out, _, _ := c.run("schedule", "list"); !strings.Contains(out, "no schedules") {
		t.Errorf("after rm: %q", out)
	}
}

// While the server runs, the commands go through its API: what add
// writes, the server's loop and page see; run-now starts a run there.
func TestScheduleThroughServer(t *testing.T) {
	c := newCLI(t)
	inbox := c.create("default", "inbox")
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	getenv := func(k string) string {
		if k == "MYCO_HOME" {
			return c.home
		}
		return ""
	}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"--no-open"}, getenv, nil, &out, &errOut) }()
	waitURL(t, &out, done)

	if out, errOut, code := c.run("schedule", "add", "--deliver-to", "@last", "--disabled", "digest", "@every 2h", "sum up"); code != 0 || !strings.Contains(out, "next run none (disabled)") {
		t.Fatalf("add through the server: %d %q %q", code, out, errOut)
	}
	out1, _, _ := c.run("schedule", "list", "--json")
	var list []schedule.Schedule
	if err := json.Unmarshal([]byte(out1), &list); err != nil || len(list) != 1 || list[0].DeliverTo != inbox || list[0].Enabled {
		t.Fatalf("list through the server: %v %q", err, out1)
	}
	if out, errOut, code := c.run("schedule", "run-now", "digest"); code != 0 || !strings.Contains(out, "started") {
		t.Fatalf("run-now: %d %q %q", code, out, errOut)
	}
	hist, _, code := c.run("schedule", "history", "--json", "digest")
	var runs []schedule.Run
	if err := json.Unmarshal([]byte(hist), &runs); code != 0 || err != nil || len(runs) != 1 || runs[0].Trigger != schedule.TriggerNow {
		t.Fatalf("history: %d %v %q", code, err, hist)
	}
	if out, errOut, code := c.run("schedule", "rm", list[0].ID[:8]); code != 0 || !strings.Contains(out, "removed") {
		t.Fatalf("rm: %d %q %q", code, out, errOut)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
	if out, _, _ := c.run("schedule", "list"); !strings.Contains(out, "no schedules") {
		t.Errorf("after rm, on disk: %q", out)
	}
}
