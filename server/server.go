// Package server is myco's HTTP side: echo routes, authentication and the
// local-only safety checks, the JSON API, the pages and the event streams.
package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"myco/profiles"
	"myco/schedule"
	"myco/server/filepick"
	"myco/server/live"
	"myco/server/lsp"
	"myco/server/mcphost"
	"myco/server/tools"
	"myco/server/webfetch"
	"myco/session"
	"myco/snapshot"
	"myco/web"
)

// Options are what a Server is built from. Sessions, Images and Token are
// required; the rest have defaults.
type Options struct {
	Profile  string
	Sessions *session.Store
	Images   *session.Images
	// Token authenticates every request (cookie, bearer or ?token= once).
	Token string
	// Cwd is recorded in new sessions: the agent's shell starts there.
	Cwd string
	// DefaultModel, when set, replaces the settings' default_model: the
	// model recorded in new sessions that name none.
	DefaultModel string
	// Models gives model clients. Settings are the profile's settings,
	// read when a value is needed, so an edit reaches the next request and
	// the next turn; nil: the zero Settings.
	Models   live.Models
	Settings *profiles.LiveSettings
	// ProfileDir is the profile's folder, which the agent's file tools
	// never read or change.
	ProfileDir string
	// PersonalInstructions is the person's own instruction file, read into
	// every session's system prompt (profiles.PersonalInstructions); ""
	// reads none.
	PersonalInstructions string
	// UserHome is the person's home folder, where ~/.claude/commands and
	// ~/.claude/skills are looked for; "" looks in none.
	UserHome string
	// Getenv reads myco's environment, for the Settings page to say
	// whether a provider's key variable is set; nil reads nothing.
	Getenv func(string) string
	Logger *slog.Logger
	Now    func() time.Time
	// WatchInterval is how often open sessions' files are checked for
	// changes made by other processes (the CLI, an editor); 0 means 2s.
	WatchInterval time.Duration
	// Heartbeat is how often event streams get a comment line to stay
	// alive through proxies and client timeouts; 0 means 15 s.
	Heartbeat time.Duration
	// RetryDelays are the waits before retrying a transient model failure.
	RetryDelays []time.Duration
	// MaxUpload limits an image upload's body; 0 means the image store's limit.
	MaxUpload int64
	// HeaderTimeout bounds a request's headers, BodyTimeout its whole
	// body, IdleTimeout a keep-alive connection between requests; 0 means
	// 10 s, 60 s and 60 s. Event streams have no body and set their own
	// write deadlines, so none of these ends them (timeouts.go).
	HeaderTimeout, BodyTimeout, IdleTimeout time.Duration
	// Schedules are the profile's scheduled tasks; nil: those of
	// ProfileDir (none without one). ScheduleLock
	// is the profile's server lock: schedules run only while this
	// process holds it; nil, they are kept and shown but never run here.
	// Location is the person's time zone, which their cron fields are
	// read in (time.Local).
	Schedules    *schedule.Store
	ScheduleLock schedule.Locker
	Location     *time.Location
	// WebFetcher fetches the agent's web_fetch pages; nil: one with the
	// defaults (live.Options.WebFetcher).
	WebFetcher *webfetch.Fetcher
	// LanguageServers finds the installed language servers when a session
	// opens; nil: PATH and ~/go/bin (live.Options.LanguageServers).
	LanguageServers func() []lsp.Found
}

// Server serves one profile on one loopback port.
type Server struct {
	opts   Options
	echo   *echo.Echo
	events *Hub
	http   *http.Server
	port   string
	log    *slog.Logger
	told   told
	live   *live.Manager
	feed   *feed
	snaps  *snapshot.Store // nil with undo off
	served *servedCache    // what each provider serves (/model)
	seen   *seenTracker    // when the person last looked at each session (the board)
	picker *filepick.Index // each session folder's files, for the @ picker (api_paths.go)
	// nameMu serialises the moves of session names (releaseName).
	nameMu sync.Mutex

	schedules *schedule.Store
	sched     *schedule.Scheduler
	imports   importJobs      // imports from other agents (api_import.go)
	runCtx    context.Context // Serve's: runs now end with it

	mcp     *mcphost.Host // the profile's MCP servers (mcp.go)
	mcpDone chan struct{} // closed at shutdown: settings stop reaching mcp
}

// New builds the server for the listener's address. The Host check needs
// the port, so the listener comes first.
func New(opts Options, ln net.Listener) (*Server, error) {
	if opts.Sessions == nil || opts.Images == nil || opts.Token == "" || opts.Models == nil {
		return nil, errors.New("server: sessions, images, models and token are required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Settings == nil {
		opts.Settings = profiles.NewLiveSettings(profiles.Settings{})
	}
	if opts.Heartbeat == 0 {
		opts.Heartbeat = 15 * time.Second
	}
	if opts.WatchInterval == 0 {
		opts.WatchInterval = 2 * time.Second
	}
	if opts.MaxUpload == 0 {
		opts.MaxUpload = opts.Images.MaxSize()
	}
	opts.HeaderTimeout = cmp.Or(opts.HeaderTimeout, 10*time.Second)
	opts.BodyTimeout = cmp.Or(opts.BodyTimeout, 60*time.Second)
	opts.IdleTimeout = cmp.Or(opts.IdleTimeout, 60*time.Second)
	tcp, ok := ln.Addr().(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() {
		return nil, fmt.Errorf("server: refusing to listen on %s: loopback only", ln.Addr())
	}
	s := &Server{opts: opts, log: opts.Logger, port: strconv.Itoa(tcp.Port), told: told{state: map[string]watched{}}}
	s.events = newHub(s.snapshot, opts.Logger)
	s.feed = newFeed(opts.Sessions, s.events, opts.Logger, opts.WatchInterval)
	s.events.observe = s.feed.observe
	opts.Settings.OnReload(s.tellSettings)
	s.snaps = snapshotStore(opts)
	s.served = newServedCache(opts.Now)
	s.picker = filepick.New(filepick.Options{})
	seenPath := ""
	if opts.ProfileDir != "" {
		seenPath = filepath.Join(opts.ProfileDir, seenFile)
	}
	s.seen = loadSeen(seenPath, opts.Now, opts.Logger)
	s.startMCP()
	s.live = live.NewManager(live.Options{
		Store: opts.Sessions, Images: opts.Images, Models: opts.Models,
		Events: hubPublisher{s.events}, Render: renderMessage,
		RenderPanel:     func(d *session.Document) (string, error) { return web.RenderPanel(d, false, s.price) },
		RenderTurnUsage: func(d *session.Document) (string, error) { return web.RenderTurnUsage(d, s.price) },
		StreamRenderer:  func() live.StreamRenderer { return web.NewStreamRenderer() },
		RenderToolCall:  web.ToolCallHTML, RenderToolResult: web.ToolResultHTML, RenderApproval: web.ApprovalHTML, RenderNote: web.NoteHTML, SendNote: s.leaveNote,
		RenderQueue: web.QueuedHTML,
		RenderGoal:  web.GoalHTML, OwnerURL: s.URL(), RenderContext: renderContext,
		RenderPlanReady: web.PlanReadyHTML, Settings: opts.Settings, RenderSubagent: web.SubagentHTML,
		DefaultCwd: opts.Cwd, DefaultModel: opts.DefaultModel, ProfileDir: opts.ProfileDir,
		PersonalInstructions: opts.PersonalInstructions,
		WebFetcher:           opts.WebFetcher,
		LanguageServers:      opts.LanguageServers,
		Logger:               opts.Logger, Now: opts.Now, RetryDelays: opts.RetryDelays,
		UserHome: opts.UserHome, BuiltinCommands: builtinCommandNames(), // custom commands and skills (api_custom.go)
		Limits: func(model string) live.Limits {
			m := opts.Settings.Current().ModelLimits(model)
			return live.Limits{ContextWindow: m.ContextWindow, CompactAt: m.CompactAt()}
		},
		Snapshots: s.snaps,
		Price:     s.price, // a budget charges what /usage shows
		MCP:       s.mcp,
	})
	s.newScheduler()
	s.echo = s.routes()
	s.http = &http.Server{
		Handler:           bodyDeadline(s.echo, opts.BodyTimeout),
		ReadHeaderTimeout: opts.HeaderTimeout,
		IdleTimeout:       opts.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(opts.Logger.Handler(), slog.LevelWarn),
	}
	return s, nil
}

// settings are the profile's settings now (Options.Settings).
func (s *Server) settings() profiles.Settings { return s.opts.Settings.Current() }

// defaultModel is the model of a session that names none.
func (s *Server) defaultModel() string {
	return cmp.Or(s.opts.DefaultModel, s.settings().DefaultModel)
}

// URL is the address a browser opens, without the token.
func (s *Server) URL() string { return "http://127.0.0.1:" + s.port }

// Serve answers requests on ln until Shutdown. It watches open sessions'
// files for changes by other processes meanwhile.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	go s.watch(ctx)
	// The feed's first look waits for the first tab that subscribes to
	// the profile's stream, not the first requests: with 10,000 sessions
	// it is a listing of both folders, which the home page does not need.
	// No tab hears of the profile's changes before it (profileEvents waits
	// for it), and its snapshot tells it of those made before.
	go s.feed.run(ctx)
	go s.live.RunIdle(ctx)
	go s.collectSnapshots(ctx)
	go s.events.heartbeat(ctx, s.opts.Heartbeat)
	s.runCtx = ctx
	if s.sched != nil && s.opts.ScheduleLock != nil {
		go s.sched.Run(ctx)
	}
	err := s.http.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Busy reports whether a session open in this server runs a turn, a retry
// or a compaction, or waits for an approval (live.Manager.Busy).
func (s *Server) Busy() bool { return s.live.Busy() }

// Shutdown ends the event streams first, then the server: an open stream
// would otherwise hold http.Server.Shutdown for its whole timeout. The hub
// lets every tab's r3labs handler return before it closes r3labs, whose
// Close with a client still connected leaks that client's goroutine.
func (s *Server) Shutdown(ctx context.Context) error {
	s.waitScheduledRuns(ctx)
	s.live.Close()
	s.stopMCP()
	s.events.close()
	err := s.http.Shutdown(ctx)
	s.seen.close() // after the tabs' streams: their last looks are in
	return err
}

// snapshotStore is the profile's snapshot store for /undo, /redo and
// /diff; nil when there is no profile. It is opened whatever the settings
// say of undo, which live reads at each turn, so turning undo on applies
// without a restart.
func snapshotStore(opts Options) *snapshot.Store {
	if opts.ProfileDir == "" {
		return nil
	}
	// The file tools' denied-path rule: no secret and none of myco's data
	// (every profile, this one's snapshots among them) is ever copied into
	// the store, shown by /diff or restored by /undo.
	deny := &liveDenied{settings: opts.Settings, profileDir: opts.ProfileDir}
	return snapshot.Open(filepath.Join(opts.ProfileDir, "snapshots"), deny)
}

// liveDenied is the denied-path rule of the settings in force: an edit of
// denied_paths reaches the next snapshot. The rule is built again only
// when the list changed (it resolves each entry's links).
type liveDenied struct {
	settings   *profiles.LiveSettings
	profileDir string

	mu    sync.Mutex
	paths []string
	rule  *tools.Denied
}

var _ snapshot.Rule = (*liveDenied)(nil)

func (d *liveDenied) current() *tools.Denied {
	paths := d.settings.Current().DeniedPaths
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.rule == nil || !slices.Equal(paths, d.paths) {
		d.paths, d.rule = paths, tools.DeniedRule(paths, d.profileDir)
	}
	return d.rule
}

// Denies is the current rule's.
func (d *liveDenied) Denies(abs string) bool { return d.current().Denies(abs) }

// Twins is the current rule's.
func (d *liveDenied) Twins() func(fs.FileInfo) bool { return d.current().Twins() }
