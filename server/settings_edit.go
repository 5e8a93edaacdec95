package server

import (
	"encoding/json"
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"

	"myco/profiles"
)

// settingsFormMarker is a hidden field of the Settings form: a post
// without it carries no checkboxes, rather than all of them unticked.
const settingsFormMarker = "settings_form"

// settingsEdit turns a post of the Settings form into changes of
// settings.json: only a value that differs from the one in force is
// written (a blank one removes the key, for the default), so the file
// keeps what the person wrote and gains no defaults.
type settingsEdit struct {
	cur  profiles.Settings
	form url.Values
	// fields maps a key's path in the file (ErrorField) to the form field
	// that set it, so a refusal shows beside that field.
	fields map[string]string
}

func newSettingsEdit(cur profiles.Settings, form url.Values) *settingsEdit {
	return &settingsEdit{cur: cur, form: form, fields: map[string]string{}}
}

// apply is the edit of profiles.EditSettings.
func (e *settingsEdit) apply(doc profiles.SettingsDoc) error {
	c := e.cur
	e.text(doc, "default_model", c.DefaultModel, "default_model")
	e.text(doc, "title_model", c.TitleModel, "title_model")
	e.text(doc, "fast_model", c.FastModel, "fast_model")
	e.text(doc, "approvals.bash", c.Approvals.Bash, "approvals", "bash")
	e.text(doc, "approvals.edit", c.Approvals.Edit, "approvals", "edit")
	e.text(doc, "approvals.memory", c.Approvals.Memory, "approvals", "memory")
	e.text(doc, "cache_ttl", c.CacheTTL, "cache_ttl")
	if err := e.number(doc, "stream_idle_timeout", strconv.Itoa(c.StreamIdleTimeout), "stream_idle_timeout"); err != nil {
		return err
	}
	if err := e.number(doc, "notify_after", strconv.Itoa(c.NotifyAfter), "notify_after"); err != nil {
		return err
	}
	if err := e.budgets(doc); err != nil {
		return err
	}
	if e.form.Has(settingsFormMarker) {
		e.check(doc, "undo", c.Undoes())
		e.check(doc, "todo", c.Todo)
		e.check(doc, "notifications", c.Notifies())
	}
	for _, name := range slices.Sorted(maps.Keys(c.Providers)) {
		field, p := profiles.KeyPath("providers", name), c.Providers[name]
		e.text(doc, field+".base_url", p.BaseURL, "providers", name, "base_url")
		e.text(doc, field+".api_key_env", p.APIKeyEnv, "providers", name, "api_key_env")
	}
	if err := e.models(doc); err != nil {
		return err
	}
	if err := e.mcpServers(doc); err != nil { // settings_mcp.go
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(c.Personalities)) {
		e.text(doc, profiles.KeyPath("personalities", name), c.Personalities[name], "personalities", name)
	}
	return e.added(doc)
}

func (e *settingsEdit) models(doc profiles.SettingsDoc) error {
	for _, name := range slices.Sorted(maps.Keys(e.cur.Models)) {
		field, m := profiles.KeyPath("models", name), e.cur.Models[name]
		window, at := "", ""
		if m.ContextWindow > 0 {
			window = strconv.Itoa(m.ContextWindow)
		}
		if m.AutoCompactAt != nil {
			at = strconv.Itoa(*m.AutoCompactAt)
		}
		if err := e.number(doc, field+".context_window", window, "models", name, "context_window"); err != nil {
			return err
		}
		if err := e.number(doc, field+".auto_compact_at", at, "models", name, "auto_compact_at"); err != nil {
			return err
		}
		if err := e.prices(doc, field, m.Price, name); err != nil {
			return err
		}
	}
	return nil
}

// prices writes a model's input and output price; cur is the price in
// force when the settings set one.
func (e *settingsEdit) prices(doc profiles.SettingsDoc, field string, cur *profiles.Price, name string) error {
	in, out := "", ""
	if cur != nil {
		in, out = decimal(cur.Input), decimal(cur.Output)
	}
	if err := e.price(doc, field+".price.input", in, "models", name, "price", "input"); err != nil {
		return err
	}
	return e.price(doc, field+".price.output", out, "models", name, "price", "output")
}

// added writes the form's new provider, model and personality, if named.
func (e *settingsEdit) added(doc profiles.SettingsDoc) error {
	if name := trimmed(e.form, "new_provider"); name != "" {
		if _, ok := e.cur.Providers[name]; ok {
			return &formError{"new_provider", "is a provider already: change it above"}
		}
		e.fields[profiles.KeyPath("providers", name)] = "new_provider"
		doc.Set(map[string]any{}, "providers", name)
		e.text(doc, "new_provider.base_url", "", "providers", name, "base_url")
		e.text(doc, "new_provider.api_key_env", "", "providers", name, "api_key_env")
	}
	if name := trimmed(e.form, "new_model"); name != "" {
		if _, ok := e.cur.Models[name]; ok {
			return &formError{"new_model", "is described already: change it above"}
		}
		e.fields[profiles.KeyPath("models", name)] = "new_model"
		doc.Set(map[string]any{}, "models", name)
		if err := e.number(doc, "new_model.context_window", "", "models", name, "context_window"); err != nil {
			return err
		}
		if err := e.number(doc, "new_model.auto_compact_at", "", "models", name, "auto_compact_at"); err != nil {
			return err
		}
		if err := e.prices(doc, "new_model", nil, name); err != nil {
			return err
		}
	}
	if name := trimmed(e.form, "new_personality"); name != "" {
		if trimmed(e.form, "new_personality.instructions") == "" {
			return &formError{"new_personality.instructions", "must say how the agent should be"}
		}
		e.fields[profiles.KeyPath("personalities", name)] = "new_personality"
		e.text(doc, "new_personality.instructions", "", "personalities", name)
	}
	return nil
}

// text writes form field's value at path when it differs from cur.
func (e *settingsEdit) text(doc profiles.SettingsDoc, field, cur string, path ...string) {
	if !e.form.Has(field) {
		return
	}
	e.fields[pathOf(path)] = field
	switch v := trimmed(e.form, field); {
	case v == cur:
	case v == "":
		doc.Delete(path...)
	default:
		doc.Set(v, path...)
	}
}

// number is text for a whole number; cur is the value as the page shows it.
func (e *settingsEdit) number(doc profiles.SettingsDoc, field, cur string, path ...string) error {
	if !e.form.Has(field) {
		return nil
	}
	e.fields[pathOf(path)] = field
	v := trimmed(e.form, field)
	switch n, err := strconv.Atoi(v); {
	case v == cur:
	case v == "":
		doc.Delete(path...)
	case err != nil:
		return &formError{field, "must be a whole number, not " + strconv.Quote(v)}
	default:
		doc.Set(json.Number(strconv.Itoa(n)), path...)
	}
	return nil
}

// price is number for a price in dollars, which may have a fraction.
func (e *settingsEdit) price(doc profiles.SettingsDoc, field, cur string, path ...string) error {
	if !e.form.Has(field) {
		return nil
	}
	e.fields[pathOf(path)] = field
	v := trimmed(e.form, field)
	switch f, err := strconv.ParseFloat(v, 64); {
	case v == cur:
	case v == "":
		doc.Delete(path...)
	case err != nil || !(f >= 0) || math.IsInf(f, 0):
		return &formError{field, "must be a price in dollars per million tokens, not " + strconv.Quote(v)}
	default:
		doc.Set(json.Number(decimal(f)), path...)
	}
	return nil
}

// check writes a checkbox when it differs from cur (an unticked box is
// absent from the form).
func (e *settingsEdit) check(doc profiles.SettingsDoc, field string, cur bool) {
	e.fields[field] = field
	if on := e.form.Has(field); on != cur {
		doc.Set(on, field)
	}
}

// pathOf is the key path of path as ErrorField names it.
func pathOf(path []string) string {
	p := ""
	for _, k := range path {
		p = profiles.KeyPath(p, k)
	}
	return p
}
