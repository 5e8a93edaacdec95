package web_test

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"myco/static"
	"myco/web"
)

// keyModules are the tab's modules that listen for keys, and the lines of
// the shortcut sheet that say what each one's keys do. A module that
// starts listening fails TestShortcutSheetCoversEveryKeyHandler until its
// keys are in web.Shortcuts and here: the sheet says every key the app has.
var keyModules = map[string][]string{
	"messagekeys.js": {"Home"},          // ↑ ↓ PageUp PageDown Home End on a message
	"newsession.js":  {"Ctrl-Shift-O"},  // the New session dialog
	"organise.js":    {"Home", "Enter"}, // a row's ⋯ menu, naming a tag
	"versions.js":    {"Enter", "Esc"},  // editing a message, the regenerate-with menu
	"page-home.js":   {"/", "j"},        // rows.js's onKey, wired by the entry
	"rows.js":        {"/", "j"},        // search, j and k
	"palette.js":     {"Ctrl-K"},        // the palette
	"panel.js":       {"Ctrl-Enter"},    // the scratchpad
	"paneldrawer.js": {"Esc"},           // the details drawer
	"plan.js":        {"Alt-P"},         // plan mode
	"queued.js":      {"Enter"},         // a queued message being edited
	"search.js":      {"↓"},             // the search field (Esc empties it, as a search field does)
	"send.js":        {"Enter", "Tab"},  // the message box, the / menu, Esc
	"shortcuts.js":   {"?", "Alt-`"},    // the sheet, the previous session
	"sidebar.js":     {"Esc"},           // the sessions drawer
	"scroll.js":      nil,               // keys that scroll, watched to follow the person's reading, not shortcuts
}

var keydownRE = regexp.MustCompile(`['"]keydown['"]`)

// Every module that listens for keys has its keys in the sheet.
func TestShortcutSheetCoversEveryKeyHandler(t *testing.T) {
	names, err := fs.Glob(static.FS, "*.js")
	if err != nil {
		t.Fatal(err)
	}
	var listening []string
	for _, n := range names {
		b, err := fs.ReadFile(static.FS, n)
		if err != nil {
			t.Fatal(err)
		}
		if keydownRE.Match(b) {
			listening = append(listening, n)
		}
	}
	for _, n := range listening {
		if _, ok := keyModules[n]; !ok {
			t.Errorf("static/%s listens for keys: put its shortcuts in web.Shortcuts and in keyModules", n)
		}
	}
	for n := range keyModules {
		if !slices.Contains(listening, n) {
			t.Errorf("keyModules names static/%s, which listens for no key any more: take it (and its lines in web.Shortcuts) out", n)
		}
	}
	var keys []string
	for _, g := range web.Shortcuts {
		for _, s := range g.Keys {
			keys = append(keys, s.Keys...)
		}
	}
	for n, want := range keyModules {
		for _, k := range want {
			if !slices.Contains(keys, k) {
				t.Errorf("static/%s's %q is not in the shortcut sheet", n, k)
			}
		}
	}
}

// The sheet shows every shortcut with its keys, in a dialog.
func TestShortcutSheetRenders(t *testing.T) {
	d := parseHTML(t, render(t, web.ShortcutSheet()))
	sheet := byTestID(d, "shortcut-sheet")
	if sheet.Length() != 1 || sheet.Nodes[0].Data != "dialog" {
		t.Fatal("no shortcut-sheet dialog")
	}
	n := 0
	for _, g := range web.Shortcuts {
		n += len(g.Keys)
	}
	if got := sheet.Find(".shortcut").Length(); got != n {
		t.Errorf("%d shortcuts shown, want %d", got, n)
	}
	if !strings.Contains(sheet.Find("kbd").Text(), "Ctrl-K") {
		t.Error("Ctrl-K is not in the sheet")
	}
}
