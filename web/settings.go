package web

import (
	"context"
	"strconv"
	"strings"
	"unicode"
)

// SettingsURL is the Settings page; the form posts to it, and a stored
// key's form to SettingsKeyURL.
const (
	SettingsURL    = "/settings"
	SettingsKeyURL = "/settings/key"
)

// SettingsView is the Settings page: the profile's settings as the form
// shows them (the values the person typed, after a refused save), and
// what is wrong with them.
type SettingsView struct {
	Profile string
	Path    string // the settings file, named on the page
	Saved   bool   // the page after a save
	// Errors are the refused values' messages, by the name of the field
	// they are about; Error is one about no single field.
	Errors map[string]string
	Error  string

	DefaultModel, TitleModel string
	FastModel                string
	Providers                []ProviderView
	NewProvider              ProviderView
	Bash, Edit, Memory       string // "ask" or "allow"
	CacheTTL                 string // "5m" or "1h"
	Models                   []ModelView
	NewModel                 ModelView
	StreamIdle               string // seconds
	NotifyAfter              string // seconds
	Undo, Todo, Notify       bool
	Personalities            []PersonaView
	NewPersona               PersonaView
	Budgets                  BudgetSettingsView
	// MCP are the MCP servers, each as its JSON in the file (settings_mcp.go).
	MCP    []MCPSettingView
	NewMCP MCPSettingView
}

// BudgetSettingsView is the form's budgets and turn guard, each as the
// page shows it ("" for no limit: a blank field is the default).
type BudgetSettingsView struct {
	MaxModelCalls                 string
	SessionCostUSD, SessionTokens string
	DayCostUSD, DayTokens         string
}

// ProviderView is one provider's row. Field is the prefix of its fields'
// names (providers.anthropic); the key itself is never on the page, only
// whether one is stored or its variable is set.
type ProviderView struct {
	Field, Name, BaseURL, KeyEnv string
	EnvSet, Stored               bool
}

// ModelView is one model's limits and price (US dollars per million
// tokens); blank fields mean the default (the catalogue's price).
type ModelView struct {
	Field, Name, ContextWindow, AutoCompactAt string
	PriceInput, PriceOutput                   string
}

// PersonaView is one personality: its name and instructions.
type PersonaView struct {
	Field, Name, Instructions string
}

// Err is the message of the field named name, "" when it is fine.
func (v SettingsView) Err(name string) string { return v.Errors[name] }

// fieldID is the element ID of the field named name: names hold quotes
// and brackets (models["openai/gpt-4.1"].context_window).
func fieldID(name string) string {
	return "f-" + strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return '_'
		}
		return r
	}, name)
}

// SettingsNotice is what is wrong with settings.json now, shown on every
// page until it is fixed: Error when the file cannot be used (the last
// good settings stay in force), and its warnings.
type SettingsNotice struct {
	File         string
	Line, Column int
	Error        string
	Warnings     []string
}

// Empty reports whether there is nothing to say.
func (n SettingsNotice) Empty() bool { return n.Error == "" && len(n.Warnings) == 0 }

// Where is the file's name with the line and column, as an editor reads it.
func (n SettingsNotice) Where() string {
	if n.Line == 0 {
		return n.File
	}
	return n.File + ":" + strconv.Itoa(n.Line) + ":" + strconv.Itoa(n.Column)
}

type noticeKey struct{}

// WithSettingsNotice returns ctx carrying n, which Layout shows on every
// page rendered with it.
func WithSettingsNotice(ctx context.Context, n SettingsNotice) context.Context {
	return context.WithValue(ctx, noticeKey{}, n)
}

func settingsNotice(ctx context.Context) SettingsNotice {
	n, _ := ctx.Value(noticeKey{}).(SettingsNotice)
	return n
}

func storedWord(stored bool) string {
	if stored {
		return "(stored)"
	}
	return "(not stored)"
}
