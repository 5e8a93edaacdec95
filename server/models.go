package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"myco/internal/errkind"
	"myco/profiles"
	"myco/server/llm"
	"myco/web"
)

// modelDefault, as a session's model, means the profile's default: the
// session stores no model and follows default_model.
const modelDefault = "default"

// maxNamed bounds the choices an error lists; /model shows them all.
const maxNamed = 12

// modelMenu is what /model offers: the models each configured provider
// serves, merged with settings.models, and each listing that failed.
type modelMenu struct {
	choices   []web.ModelChoice
	providers []web.ModelProvider
	served    map[string]map[string]bool // provider → IDs it listed
	failed    map[string]error           // provider → why its listing failed
}

// modelMenu asks every configured provider what it serves (through the
// cache, all at once) and merges that with settings.models and the
// default model, leaving out models of providers that cannot be called.
func (s *Server) modelMenu(ctx context.Context) modelMenu {
	m := modelMenu{served: map[string]map[string]bool{}, failed: map[string]error{}}
	st, def := s.settings(), s.defaultModel()
	listed := s.listProviders(ctx, st)
	byName := map[string]*web.ModelChoice{}
	add := func(name string) *web.ModelChoice {
		if c, ok := byName[name]; ok {
			return c
		}
		provider, id, err := profiles.SplitModel(name)
		if err != nil || !s.callable(name) {
			return nil
		}
		c := choice(st, def, name, provider, id)
		byName[name] = &c
		return &c
	}
	for _, l := range listed {
		p := web.ModelProvider{Name: l.provider, Models: len(l.models)}
		if l.err != nil {
			p.Error = l.err.Error()
			m.failed[l.provider] = l.err
		}
		m.providers = append(m.providers, p)
		m.served[l.provider] = map[string]bool{}
		for _, sm := range l.models {
			m.served[l.provider][sm.ID] = true
			if c := add(l.provider + "/" + sm.ID); c != nil {
				c.Served = true
			}
		}
	}
	for name := range st.Models {
		if c := add(name); c != nil {
			c.InSettings = true
		}
	}
	add(def)
	for _, c := range byName {
		m.choices = append(m.choices, *c)
	}
	slices.SortFunc(m.choices, func(a, b web.ModelChoice) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.ID, b.ID))
	})
	return m
}

// choice is model name as the list shows it, under settings st whose
// default model is def.
func choice(st profiles.Settings, def, name, provider, id string) web.ModelChoice {
	c := web.ModelChoice{
		Name: name, Provider: provider, ID: id,
		ContextWindow: st.ModelLimits(name).ContextWindow,
		Local:         st.IsLocal(provider),
		Default:       name == def,
	}
	if p, ok := st.Price(name); ok {
		c.Price = &p
	}
	return c
}

// callable reports whether model's provider is configured and usable.
func (s *Server) callable(model string) bool {
	_, _, err := s.opts.Models.Client(model)
	return err == nil
}

// listing is one provider's answer to "which models do you serve?".
type listing struct {
	provider string
	models   []llm.ServedModel
	err      error
}

// listProviders lists every configured provider's models at once, sorted
// by provider. Without a lister (a test's fake) there is nothing to ask.
func (s *Server) listProviders(ctx context.Context, st profiles.Settings) []listing {
	l, ok := s.opts.Models.(modelLister)
	if !ok {
		return nil
	}
	providers := l.Providers()
	out := make([]listing, len(providers))
	var wg sync.WaitGroup
	for i, p := range providers {
		wg.Go(func() {
			models, err := s.served.get(ctx, l, p, p+"\x00"+st.Providers[p].BaseURL)
			out[i] = listing{provider: p, models: models, err: err}
		})
	}
	wg.Wait()
	return out
}

// listModels answers GET /api/models: the menu as data and as the panel's
// HTML.
func (s *Server) listModels(c echo.Context) error {
	m := s.modelMenu(c.Request().Context())
	v := web.ModelListView{Choices: m.choices, Providers: m.providers, AsOf: profiles.CatalogAsOf}
	if !s.opts.Models.Configured() {
		v.Help = s.opts.Models.Help()
	}
	html, err := web.ModelListHTML(v)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{
		"configured": s.opts.Models.Configured(), "default": s.defaultModel(),
		"models": nonNil(m.choices), "providers": nonNil(m.providers), "help": s.opts.Models.Help(),
		"as_of": profiles.CatalogAsOf, "html": html,
	})
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// modelError is a model a person picked that myco refuses: a 400 whose
// message says why and what can be picked instead.
type modelError struct{ msg string }

func (e *modelError) Error() string      { return e.msg }
func (e *modelError) Kind() errkind.Kind { return errkind.Invalid }

// resolveModel checks the model a person picks for a session and returns
// what the session stores: "" for "default" (it then follows the
// profile's default_model). A model must be provider/model-id of a
// configured provider, and one that provider serves or settings.models
// names (or the default model). When the provider could not list its
// models, a well-formed model of it is taken as written, and notice says
// so.
func (s *Server) resolveModel(ctx context.Context, typed string) (stored, notice string, err error) {
	name := strings.TrimSpace(typed)
	if name == "" || strings.EqualFold(name, modelDefault) {
		return "", "", nil
	}
	provider, id, err := profiles.SplitModel(name)
	if err != nil {
		return "", "", s.refuseModel(ctx, fmt.Sprintf("model %q is not of the form provider/model-id", name), "")
	}
	if _, _, err := s.opts.Models.Client(name); errors.Is(err, llm.ErrNoProvider) {
		return "", "", s.refuseModel(ctx, fmt.Sprintf("provider %q is not configured, so %s cannot be used", provider, name), "")
	}
	if _, ok := s.settings().Models[name]; ok || name == s.defaultModel() {
		return name, "", nil
	}
	m := s.modelMenu(ctx)
	if err, failed := m.failed[provider]; failed {
		return name, fmt.Sprintf("%s did not list its models (%v), so %s is taken as written", provider, err, name), nil
	}
	served, listed := m.served[provider]
	if !listed || served[id] {
		return name, "", nil
	}
	return "", "", s.refuseModelIn(m, fmt.Sprintf("%s does not serve %q", provider, id), provider)
}

// refuseModel is the refusal of a model, naming the valid choices (those
// of provider when it is not "").
func (s *Server) refuseModel(ctx context.Context, why, provider string) error {
	return s.refuseModelIn(s.modelMenu(ctx), why, provider)
}

func (s *Server) refuseModelIn(m modelMenu, why, provider string) error {
	var names []string
	for _, c := range m.choices {
		if provider == "" || c.Provider == provider {
			names = append(names, c.Name)
		}
	}
	msg := why + "; "
	switch {
	case len(names) == 0:
		msg += `no model can be used: configure a provider (see /help/providers), or pick "default"`
	case len(names) > maxNamed:
		msg += fmt.Sprintf(`choose one of %s and %d more (/model lists them all), or "default"`, strings.Join(names[:maxNamed], ", "), len(names)-maxNamed)
	default:
		msg += fmt.Sprintf(`choose one of %s, or "default"`, strings.Join(names, ", "))
	}
	return &modelError{msg: msg}
}
