package profiles

// fileSettings is settings.json as written: pointers tell a key that is
// absent (take the default) from one set to a zero value ("" or 0 or false).
type fileSettings struct {
	DefaultModel  *string                 `json:"default_model"`
	TitleModel    *string                 `json:"title_model"`
	FastModel     *string                 `json:"fast_model"`
	Providers     map[string]fileProvider `json:"providers"`
	Models        map[string]fileModel    `json:"models"`
	Approvals     fileApprovals           `json:"approvals"`
	DeniedPaths   *[]string               `json:"denied_paths"`
	RedactSecrets *bool                   `json:"redact_secrets"`
	Notifications *bool                   `json:"notifications"`
	Undo          *bool                   `json:"undo"`
	Think         *string                 `json:"think"`
	Personalities map[string]string       `json:"personalities"`
	Todo          *bool                   `json:"todo"`
	ShellEnvDrop  *[]string               `json:"shell_env_drop"`
	ShellEnvKeep  *[]string               `json:"shell_env_keep"`
	// StreamIdleTimeout is seconds.
	StreamIdleTimeout *int `json:"stream_idle_timeout"`
	// NotifyAfter is seconds.
	NotifyAfter *int    `json:"notify_after"`
	CacheTTL    *string `json:"cache_ttl"`
	Subagents   struct {
		MaxDepth   *int `json:"max_depth"`
		MaxRunning *int `json:"max_running"`
	} `json:"subagents"`
	WebFetch struct {
		AllowedHosts *[]string `json:"allowed_hosts"`
	} `json:"web_fetch"`
	MaxModelCalls *int                 `json:"max_model_calls_per_turn"`
	Budgets       *fileBudgets         `json:"budgets"`
	MCPServers    map[string]MCPServer `json:"mcp_servers"`
}

type fileProvider struct {
	BaseURL   *string `json:"base_url"`
	APIKeyEnv *string `json:"api_key_env"`
}

type fileModel struct {
	ContextWindow *int       `json:"context_window"`
	AutoCompactAt *int       `json:"auto_compact_at"`
	Thinking      *bool      `json:"thinking"`
	Price         *filePrice `json:"price"`
}

// filePrice is a model's price as written; a field left out is taken
// from the catalogue's price of the model (see over).
type filePrice struct {
	Input        *float64 `json:"input"`
	Output       *float64 `json:"output"`
	CacheRead    *float64 `json:"cache_read"`
	CacheWrite   *float64 `json:"cache_write"`
	CacheWrite1h *float64 `json:"cache_write_1h"`
}

type fileApprovals struct {
	Bash   *string `json:"bash"`
	Edit   *string `json:"edit"`
	Memory *string `json:"memory"`
}

// over returns s with every key the file sets. Providers and models merge key
// by key, so a file that sets only a provider's api_key_env keeps its
// default base_url. A denied_paths list replaces the default one whole: the
// user must be able to remove an entry. s must come from DefaultSettings.
func (f fileSettings) over(s Settings) Settings {
	set(&s.DefaultModel, f.DefaultModel)
	set(&s.TitleModel, f.TitleModel)
	set(&s.FastModel, f.FastModel)
	for name, fp := range f.Providers {
		s.Providers[name] = fp.over(s.Providers[name])
	}
	for name, fm := range f.Models {
		s.Models[name] = fm.over(name, s.Models[name])
	}
	set(&s.Approvals.Bash, f.Approvals.Bash)
	set(&s.Approvals.Edit, f.Approvals.Edit)
	set(&s.Approvals.Memory, f.Approvals.Memory)
	set(&s.DeniedPaths, f.DeniedPaths)
	if f.RedactSecrets != nil {
		s.RedactSecrets = f.RedactSecrets
	}
	if f.Undo != nil {
		s.Undo = f.Undo
	}
	if f.Notifications != nil {
		s.Notifications = f.Notifications
	}
	set(&s.Think, f.Think)
	set(&s.Todo, f.Todo)
	// Personas merge by name, as models do.
	for name, text := range f.Personalities {
		s.Personalities[name] = text
	}
	// Lists replace the default whole, as denied_paths: a person must be
	// able to remove "@secrets".
	set(&s.ShellEnvDrop, f.ShellEnvDrop)
	set(&s.ShellEnvKeep, f.ShellEnvKeep)
	set(&s.StreamIdleTimeout, f.StreamIdleTimeout)
	set(&s.NotifyAfter, f.NotifyAfter)
	set(&s.CacheTTL, f.CacheTTL)
	set(&s.MaxModelCalls, f.MaxModelCalls)
	s.Budgets = f.Budgets.over(s.Budgets)
	set(&s.Subagents.MaxDepth, f.Subagents.MaxDepth)
	set(&s.Subagents.MaxRunning, f.Subagents.MaxRunning)
	set(&s.WebFetch.AllowedHosts, f.WebFetch.AllowedHosts) // a list, replaced whole
	if f.MCPServers != nil {
		s.MCPServers = f.MCPServers
	}
	return s
}

func (f fileProvider) over(p Provider) Provider {
	set(&p.BaseURL, f.BaseURL)
	set(&p.APIKeyEnv, f.APIKeyEnv)
	return p
}

func (f fileModel) over(name string, m Model) Model {
	set(&m.ContextWindow, f.ContextWindow)
	if f.Price != nil {
		p := f.Price.over(name, m.Price)
		m.Price = &p
	}
	if f.AutoCompactAt != nil {
		m.AutoCompactAt = f.AutoCompactAt
	}
	if f.Thinking != nil {
		m.Thinking = f.Thinking
	}
	return m
}

// over returns the price the file gives model name. A field it leaves out
// comes from the price already set, else the catalogue's, else (a model
// the catalogue lacks) from the input price: no cache discount is
// assumed that nobody stated.
func (f filePrice) over(name string, base *Price) Price {
	var p Price
	known := base != nil
	if known {
		p = *base
	} else if c, ok := LookupCatalog(modelID(name)); ok {
		p, known = c.Price, true
	}
	set(&p.Input, f.Input)
	set(&p.Output, f.Output)
	if !known {
		p.CacheRead, p.CacheWrite, p.CacheWrite1h = p.Input, p.Input, p.Input
	}
	set(&p.CacheRead, f.CacheRead)
	set(&p.CacheWrite, f.CacheWrite)
	set(&p.CacheWrite1h, f.CacheWrite1h)
	return p
}

func set[T any](dst, src *T) {
	if src != nil {
		*dst = *src
	}
}
