package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"myco/profiles"
	"myco/server/event"
	"myco/web"
)

// settingsNotice puts what is wrong with settings.json into every
// request's context, for Layout's banner: every page says it until the
// file is fixed.
func (s *Server) settingsNotice(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if n := s.notice(); !n.Empty() {
			r := c.Request()
			c.SetRequest(r.WithContext(web.WithSettingsNotice(r.Context(), n)))
		}
		return next(c)
	}
}

func (s *Server) notice() web.SettingsNotice {
	warnings, err := s.opts.Settings.Problems()
	var n web.SettingsNotice
	for _, w := range warnings {
		n.Warnings = append(n.Warnings, w.String())
	}
	if err == nil {
		return n
	}
	n.Error, n.File = err.Error(), s.opts.Settings.Path()
	if se := (*profiles.SettingsError)(nil); errors.As(err, &se) {
		n.File, n.Line, n.Column, n.Error = se.Path, se.Line, se.Column, se.Err.Error()
	}
	return n
}

// tellSettings sends every open tab of the profile the banner of the
// settings file as it is now: a tab left open learns that an edit broke
// the file, or fixed it, without a reload.
func (s *Server) tellSettings() {
	var b strings.Builder
	if err := web.SettingsBanner(s.notice()).Render(context.Background(), &b); err != nil {
		s.log.Warn("settings banner not rendered", "err", err)
		return
	}
	s.events.Publish(profileStream, event.SettingsChanged{HTML: b.String()})
}

// settingsPage shows the settings as a form.
func (s *Server) settingsPage(c echo.Context) error {
	v := s.settingsView(s.settings())
	v.Saved = c.QueryParam("saved") == "1"
	return render(c, http.StatusOK, web.SettingsPage(v))
}

// settingsView is the form of settings st, every field as st has it.
func (s *Server) settingsView(st profiles.Settings) web.SettingsView {
	v := web.SettingsView{
		Profile: s.opts.Profile, Path: s.opts.Settings.Path(),
		DefaultModel: st.DefaultModel, TitleModel: st.TitleModel, FastModel: st.FastModel,
		Bash: st.Approvals.Bash, Edit: st.Approvals.Edit, Memory: st.Approvals.Memory, CacheTTL: st.CacheTTL,
		StreamIdle: strconv.Itoa(st.StreamIdleTimeout), NotifyAfter: strconv.Itoa(st.NotifyAfter),
		Undo: st.Undoes(), Todo: st.Todo, Notify: st.Notifies(),
		Budgets: budgetSettingsView(st),
	}
	for _, name := range slices.Sorted(maps.Keys(st.Providers)) {
		p := st.Providers[name]
		v.Providers = append(v.Providers, web.ProviderView{
			Field: profiles.KeyPath("providers", name), Name: name, BaseURL: p.BaseURL, KeyEnv: p.APIKeyEnv,
			EnvSet: p.APIKeyEnv != "" && s.getenv(p.APIKeyEnv) != "", Stored: s.keyStored(name),
		})
	}
	for _, name := range slices.Sorted(maps.Keys(st.Models)) {
		m := st.Models[name]
		mv := web.ModelView{Field: profiles.KeyPath("models", name), Name: name}
		if m.ContextWindow > 0 {
			mv.ContextWindow = strconv.Itoa(m.ContextWindow)
		}
		if m.AutoCompactAt != nil {
			mv.AutoCompactAt = strconv.Itoa(*m.AutoCompactAt)
		}
		if m.Price != nil {
			mv.PriceInput, mv.PriceOutput = decimal(m.Price.Input), decimal(m.Price.Output)
		}
		v.Models = append(v.Models, mv)
	}
	for _, name := range slices.Sorted(maps.Keys(st.Personalities)) {
		v.Personalities = append(v.Personalities, web.PersonaView{
			Field: profiles.KeyPath("personalities", name), Name: name, Instructions: st.Personalities[name],
		})
	}
	v.MCP = s.mcpSettingsViews(st) // settings_mcp.go
	return v
}

func (s *Server) getenv(name string) string {
	if s.opts.Getenv == nil {
		return ""
	}
	return s.opts.Getenv(name)
}

func (s *Server) keyStored(provider string) bool {
	if s.opts.ProfileDir == "" {
		return false
	}
	path, err := profiles.KeyFilePath(s.opts.ProfileDir, provider)
	if err != nil {
		return false
	}
	_, err = os.Stat(path)
	return err == nil
}

// saveSettings writes what the form changed into settings.json and
// applies it at once; a refused value comes back on the page beside its
// field, with everything the person typed.
func (s *Server) saveSettings(c echo.Context) error {
	form, err := c.FormParams()
	if err != nil {
		return fmt.Errorf("%w: %w", errBadInput, err)
	}
	if s.opts.Settings.Path() == "" {
		return fmt.Errorf("%w: this server has no settings file", errBadInput)
	}
	cur := s.settings()
	ed := newSettingsEdit(cur, form)
	_, err = profiles.EditSettings(s.opts.Settings.Path(), ed.apply)
	if err == nil {
		err = s.opts.Settings.Reload()
	}
	if err != nil {
		return s.refuseSettings(c, cur, form, ed, err)
	}
	return c.Redirect(http.StatusSeeOther, web.SettingsURL+"?saved=1")
}

// refuseSettings answers a save that was refused: the page again, with
// the form as it was sent and the reason beside the field it is about.
func (s *Server) refuseSettings(c echo.Context, cur profiles.Settings, form url.Values, ed *settingsEdit, err error) error {
	v := s.settingsView(cur)
	fillForm(&v, form)
	v.Errors = map[string]string{}
	switch path, msg, ok := profiles.ErrorField(err); {
	case ok && ed.fields[path] != "":
		v.Errors[ed.fields[path]] = msg
	case ok:
		v.Error = path + " " + msg
	default:
		if fe := (*formError)(nil); errors.As(err, &fe) {
			v.Errors[fe.field] = fe.msg
		} else {
			s.log.Warn("settings not saved", "err", err)
			v.Error = "Not saved: " + err.Error()
		}
	}
	return render(c, http.StatusUnprocessableEntity, web.SettingsPage(v))
}

// formError is a value of the form that is not even of the right kind (a
// number field holding words), named by its field.
type formError struct{ field, msg string }

func (e *formError) Error() string { return e.field + ": " + e.msg }

// fillForm puts the values the person sent back into the form's fields.
func fillForm(v *web.SettingsView, form url.Values) {
	get := func(name string, into *string) {
		if vals, ok := form[name]; ok && len(vals) > 0 {
			*into = vals[0]
		}
	}
	get("default_model", &v.DefaultModel)
	get("title_model", &v.TitleModel)
	get("fast_model", &v.FastModel)
	get("approvals.bash", &v.Bash)
	get("approvals.edit", &v.Edit)
	get("approvals.memory", &v.Memory)
	get("cache_ttl", &v.CacheTTL)
	get("stream_idle_timeout", &v.StreamIdle)
	get("notify_after", &v.NotifyAfter)
	fillBudgets(&v.Budgets, get)
	v.Undo, v.Todo, v.Notify = form.Has("undo"), form.Has("todo"), form.Has("notifications")
	for i := range v.Providers {
		p := &v.Providers[i]
		get(p.Field+".base_url", &p.BaseURL)
		get(p.Field+".api_key_env", &p.KeyEnv)
	}
	for i := range v.Models {
		m := &v.Models[i]
		get(m.Field+".context_window", &m.ContextWindow)
		get(m.Field+".auto_compact_at", &m.AutoCompactAt)
		get(m.Field+".price.input", &m.PriceInput)
		get(m.Field+".price.output", &m.PriceOutput)
	}
	for i := range v.Personalities {
		get(v.Personalities[i].Field, &v.Personalities[i].Instructions)
	}
	get("new_provider", &v.NewProvider.Name)
	get("new_provider.base_url", &v.NewProvider.BaseURL)
	get("new_provider.api_key_env", &v.NewProvider.KeyEnv)
	get("new_model", &v.NewModel.Name)
	get("new_model.context_window", &v.NewModel.ContextWindow)
	get("new_model.auto_compact_at", &v.NewModel.AutoCompactAt)
	get("new_model.price.input", &v.NewModel.PriceInput)
	get("new_model.price.output", &v.NewModel.PriceOutput)
	get("new_personality", &v.NewPersona.Name)
	get("new_personality.instructions", &v.NewPersona.Instructions)
	fillMCP(v, get) // settings_mcp.go
}

// saveKey stores or removes a provider's key in the profile, then reloads
// the settings so the model clients take it at once.
func (s *Server) saveKey(c echo.Context) error {
	provider := c.FormValue("provider")
	cur := s.settings()
	if _, ok := cur.Providers[provider]; !ok || s.opts.ProfileDir == "" {
		return fmt.Errorf("%w: no provider %q in the settings", errBadInput, provider)
	}
	var err error
	if c.FormValue("action") == "remove" {
		err = profiles.RemoveKey(s.opts.ProfileDir, provider)
	} else {
		err = profiles.SaveKey(s.opts.ProfileDir, provider, c.FormValue("key"))
	}
	if err == nil {
		err = s.opts.Settings.Reload()
	}
	if err != nil {
		v := s.settingsView(cur)
		v.Errors = map[string]string{"key." + provider: err.Error()}
		return render(c, http.StatusUnprocessableEntity, web.SettingsPage(v))
	}
	return c.Redirect(http.StatusSeeOther, web.SettingsURL+"?saved=1")
}

// settingsJSON is GET /api/settings: the settings in force (no key ever),
// which providers have a key, and what is wrong with the file.
func (s *Server) settingsJSON(c echo.Context) error {
	st := s.settings()
	keys := map[string]map[string]any{}
	for name, p := range st.Providers {
		keys[name] = map[string]any{
			"stored": s.keyStored(name), "api_key_env": p.APIKeyEnv,
			"env_set": p.APIKeyEnv != "" && s.getenv(p.APIKeyEnv) != "",
		}
	}
	n := s.notice()
	problem := map[string]any{"error": n.Error, "file": n.File, "line": n.Line, "column": n.Column, "warnings": n.Warnings}
	raw, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{
		"path": s.opts.Settings.Path(), "settings": json.RawMessage(raw), "keys": keys, "problem": problem,
	})
}

// decimal writes a price as the page shows it: no trailing zeros.
func decimal(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// trimmed is the form's value of name without surrounding space.
func trimmed(form url.Values, name string) string { return strings.TrimSpace(form.Get(name)) }
