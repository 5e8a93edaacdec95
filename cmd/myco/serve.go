package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/cli/browser"
	"github.com/gofrs/flock"

	"myco/profiles"
	"myco/schedule"
	"myco/server"
	"myco/server/llm"
)

type serveOptions struct {
	profile, addr, resume string
	noOpen                bool
	// headless is set for a server started in process by `myco run`
	// (runcmd.go): nothing on stdout, no browser, warnings only in the log.
	headless *headless
}

// headless is how `myco run` drives the server it started for its turn.
type headless struct {
	// ready is told the server's address and token once it serves.
	ready func(profiles.ServerInfo)
	// release is closed when the run is done with the server: it stops
	// once no turn runs in it (another run's, or one a tab started).
	release <-chan struct{}
}

// serve starts the profile's server, or opens the page on the one already
// running, and waits for Ctrl-C or SIGTERM.
func serve(ctx context.Context, e env, opts serveOptions) error {
	st, err := openStores(e, opts.profile, true)
	if err != nil {
		return err
	}
	settings, err := profiles.LoadLiveSettings(st.profile.SettingsPath(), e.getenv)
	if err != nil {
		return err
	}
	// Where a settings error is told, before anything else: a key myco
	// ignores is most often a typo the person wants to hear of.
	warnings, _ := settings.Problems()
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "myco: warning: %s\n", w)
	}
	page := "/"
	if opts.resume != "" {
		id, err := st.resolve(e, opts.resume)
		if err != nil {
			return err
		}
		page = "/s/" + id
	}
	// One server per profile: the first to take server.lock serves, the
	// others open the page on it.
	serverLock := profileLock(st.profile)
	locked, err := serverLock.TryLock()
	if err != nil {
		return fmt.Errorf("lock profile %q: %w", st.profile.Name, err)
	}
	if !locked {
		info, err := openRunning(e, st.profile, page, opts.noOpen)
		if err != nil || !info.Headless {
			return err
		}
		// A headless run's server stops when the run ends: this myco
		// takes over then, on the same address and token, so the tab just
		// opened on it reconnects.
		fmt.Fprintf(e.stdout, "it serves a headless run (myco run); this myco serves the profile when that run ends\n")
		if err := waitLock(ctx, serverLock); err != nil {
			return nil // stopped while waiting: nothing was served
		}
		opts.noOpen = true
	}
	defer serverLock.Unlock()
	return serveLocked(ctx, e, st, settings, page, opts, serverLock)
}

// waitLock takes lock once its holder lets it go, or fails when ctx ends.
func waitLock(ctx context.Context, lock *flock.Flock) error {
	t := time.NewTicker(idlePoll)
	defer t.Stop()
	for {
		locked, err := lock.TryLock()
		if err != nil || locked {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// profileLock is the lock whose holder serves the profile.
func profileLock(p *profiles.Profile) *flock.Flock {
	return flock.New(filepath.Join(p.Dir, "server.lock"))
}

// serveLocked serves the profile, whose lock the caller holds, until ctx
// ends (or, headless, until the run releases it). schedules is that lock
// when this server runs the profile's schedules; nil for a headless run's
// server, which serves one turn (a slot due meanwhile runs at the next
// start, as its schedule's missed choice says).
func serveLocked(ctx context.Context, e env, st *stores, settings *profiles.LiveSettings, page string, opts serveOptions, schedules *flock.Flock) error {
	recoverJournals(e, st)
	// Archives a crash cut short are finished while the server starts: its
	// first page need not wait for the stat of every document that
	// finding them takes, and until then such a session is listed with the
	// archived ones. Once they are, the start's listing is checked: keep
	// it for the next start, and again at the end (saveListing), before
	// the profile's lock is let go.
	started := make(chan struct{})
	go func() {
		defer close(started)
		migrate(e, st)
		saveListing(e, st)
	}()
	defer func() {
		<-started
		saveListing(e, st)
	}()
	return runServer(ctx, e, st, settings, page, opts, schedules)
}

// saveListing writes the listing cache (session.ListingCacheName), so the
// next start reads it instead of every document. Failing costs only that.
func saveListing(e env, st *stores) {
	if err := st.sessions.SaveListingCache(); err != nil {
		fmt.Fprintf(e.stderr, "myco: %v; the next start reads every session\n", err)
	}
}

// openRunning opens page on the profile's live server, and returns what
// server.json says of it.
func openRunning(e env, p *profiles.Profile, page string, noOpen bool) (profiles.ServerInfo, error) {
	info, err := waitServerInfo(p)
	if err != nil {
		return info, err
	}
	link := info.URL + page + "?token=" + info.Token
	fmt.Fprintf(e.stdout, "myco is already running for profile %q (pid %d): %s\n", p.Name, info.PID, link)
	if !noOpen {
		openBrowser(e, link)
	}
	return info, nil
}

// waitServerInfo reads server.json of a server that holds the profile lock;
// it may be a moment before a server that just started writes it.
func waitServerInfo(p *profiles.Profile) (profiles.ServerInfo, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		info, err := profiles.ReadServerInfo(p.ServerPath())
		if err == nil && answers(info) {
			return info, nil
		}
		if time.Now().After(deadline) {
			return info, fmt.Errorf("another myco holds profile %q but does not answer (server.json: %v)", p.Name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// answers reports whether the server in info is up and is the one the file
// names (PIDs get reused; the token proves it).
func answers(info profiles.ServerInfo) bool {
	req, err := http.NewRequest(http.MethodGet, info.URL+"/healthz", nil)
	if err != nil {
		return false
	}
	req.Header.Set("Authorization", "Bearer "+info.Token)
	client := http.Client{Timeout: 2 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// migrate finishes archives that a crash cut short.
func migrate(e env, st *stores) {
	p := newProgress(e.stderr, "moving archived sessions")
	rep, err := st.sessions.MigrateArchived(p.update)
	p.done()
	if err != nil {
		fmt.Fprintf(e.stderr, "myco: moving archived sessions: %v\n", err)
	}
	if len(rep.Moved) > 0 {
		fmt.Fprintf(e.stderr, "myco: moved %d archived sessions into the archive\n", len(rep.Moved))
	}
	for _, le := range rep.Locked {
		fmt.Fprintf(e.stderr, "myco: left %v\n", le)
	}
}

// recoverJournals folds the journals a crash left into their documents,
// so every session is whole on disk before anything is served.
func recoverJournals(e env, st *stores) {
	p := newProgress(e.stderr, "recovering sessions")
	rep, err := st.sessions.Recover(p.update)
	p.done()
	if err != nil {
		fmt.Fprintf(e.stderr, "myco: recovering sessions: %v\n", err)
	}
	if len(rep.Recovered) > 0 {
		fmt.Fprintf(e.stderr, "myco: recovered %d sessions that were open when myco last stopped\n", len(rep.Recovered))
	}
	for _, le := range rep.Locked {
		fmt.Fprintf(e.stderr, "myco: not recovered, its holder folds it: %v\n", le)
	}
	for _, err := range rep.Damaged {
		fmt.Fprintf(e.stderr, "myco: left as it is: %v\n", err)
	}
}

// lock is the profile's server lock, held: the schedules run in the
// process that holds it.
func runServer(ctx context.Context, e env, st *stores, settings *profiles.LiveSettings, page string, opts serveOptions, lock *flock.Flock) error {
	ln, token, err := listenRemembered(e, st.profile, opts.addr)
	if err != nil {
		return err
	}
	cwd, _ := os.Getwd()
	// A nil lock must stay a nil Locker: an interface holding a nil
	// *flock.Flock would run the schedules with no lock.
	var schedules schedule.Locker
	if lock != nil {
		schedules = lock
	}
	level := slog.LevelInfo
	if opts.headless != nil {
		level = slog.LevelWarn // stderr is the run's tool activity
	}
	srv, err := server.New(server.Options{
		Profile: st.profile.Name, Sessions: st.sessions, Images: st.images, Token: token,
		Cwd: cwd, Settings: settings, ProfileDir: st.profile.Dir, Getenv: e.getenv, ScheduleLock: schedules,
		PersonalInstructions: profiles.PersonalInstructions(e.getenv), UserHome: e.getenv("HOME"),
		WebFetcher: webFetcher(e.getenv), // webfetch_release.go; the e2e build's reaches its test site
		Models: llm.NewLiveRegistry(settings, func(s profiles.Settings) *llm.Registry {
			return llm.NewProfileRegistry(s, e.getenv, st.images, st.profile.Dir).WithSettingsPath(st.profile.SettingsPath())
		}),
		Logger: slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level})),
	}, ln)
	if err != nil {
		ln.Close()
		return err
	}
	info := profiles.ServerInfo{PID: os.Getpid(), URL: srv.URL(), Token: token, StartedAt: time.Now().UTC(), Headless: opts.headless != nil}
	if err := profiles.WriteServerInfo(st.profile.ServerPath(), info); err != nil {
		ln.Close()
		return err
	}
	defer profiles.RemoveServerInfo(st.profile.ServerPath(), info.PID)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ctx, ln) }()
	go watchSettings(ctx, e, settings)
	if h := opts.headless; h != nil {
		h.ready(info)
		select {
		case err := <-serveErr:
			return err
		case <-ctx.Done():
		case <-h.release:
			waitIdle(ctx, e, srv)
		}
		return shutdown(srv)
	}
	link := srv.URL() + page + "?token=" + token
	fmt.Fprintf(e.stdout, "myco is serving profile %q at %s\n", st.profile.Name, link)
	if e.started != nil {
		e.started()
	}
	if !opts.noOpen {
		openBrowser(e, link)
	}
	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	return shutdown(srv)
}

// shutdown stops the server, waiting a few seconds for its requests.
func shutdown(srv *server.Server) error {
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}

// anyPort is where a profile with no remembered address listens.
const anyPort = "127.0.0.1:0"

// listenRemembered listens where the profile's server listened last, with
// the same token (address.json), so that a tab left open reconnects after
// a restart and a bookmark keeps working. flagAddr (--addr) overrides the
// place, not the token. A remembered port that another program took falls
// back to a new one, said on stderr.
func listenRemembered(e env, p *profiles.Profile, flagAddr string) (net.Listener, string, error) {
	saved, err := profiles.ReadAddress(p.AddressPath())
	if err != nil {
		fmt.Fprintf(e.stderr, "myco: %v; taking a new address and token\n", err)
	}
	token := saved.Token
	if token == "" {
		if token, err = newToken(); err != nil {
			return nil, "", err
		}
	}
	addr := cmp.Or(flagAddr, saved.Addr, anyPort)
	ln, err := listenLoopback(addr)
	if err != nil && flagAddr == "" && saved.Addr != "" {
		fmt.Fprintf(e.stderr, "myco: the profile's address %s is taken (%v): listening on a new port; tabs open on the old one must be opened again\n", saved.Addr, err)
		ln, err = listenLoopback(anyPort)
	}
	if err != nil {
		return nil, "", err
	}
	// Written only when it changed: a restart on the same address and
	// token would otherwise pay a durable write (two fsyncs) before its
	// first page.
	if now := (profiles.Address{Addr: ln.Addr().String(), Token: token}); now != saved {
		if err := profiles.WriteAddress(p.AddressPath(), now); err != nil {
			fmt.Fprintf(e.stderr, "myco: %v; the next start takes a new address\n", err)
		}
	}
	return ln, token, nil
}

// watchSettings reloads settings.json as it changes and says so on
// stderr; the pages say it too (a banner) while the file is broken.
func watchSettings(ctx context.Context, e env, settings *profiles.LiveSettings) {
	first := true // the watch's first read: serve told its warnings
	err := settings.Watch(ctx, func(err error) {
		wasFirst := first
		first = false
		if err != nil {
			fmt.Fprintf(e.stderr, "myco: %v (the last good settings stay in force)\n", err)
			return
		}
		if wasFirst {
			return
		}
		fmt.Fprintf(e.stderr, "myco: settings read from %s\n", settings.Path())
		warnings, _ := settings.Problems()
		for _, w := range warnings {
			fmt.Fprintf(e.stderr, "myco: warning: %s\n", w)
		}
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "myco: %v: edits of the file need a restart\n", err)
	}
}

// listenLoopback listens on addr, which must be a loopback address: the
// agent's shell must never be reachable from the network.
func listenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--addr %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("--addr %q: myco listens on a loopback address only (127.0.0.1)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return ln, nil
}

func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

func openBrowser(e env, link string) {
	browser.Stdout, browser.Stderr = io.Discard, io.Discard
	if err := browser.OpenURL(link); err != nil {
		fmt.Fprintf(e.stderr, "myco: could not open a browser (%v); open the URL above\n", err)
	}
}

// liveServer reads the profile's server.json and reports it when the
// process it names is alive.
func liveServer(p *profiles.Profile) (profiles.ServerInfo, bool) {
	info, err := profiles.ReadServerInfo(p.ServerPath())
	if err != nil {
		return profiles.ServerInfo{}, false
	}
	return info, processAlive(info.PID)
}

func processAlive(pid int) bool {
	proc, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = proc.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// idlePoll is how often a headless server looks whether a turn still runs
// in it before it stops.
const idlePoll = 50 * time.Millisecond

// waitIdle waits until no turn runs in srv (one another `myco run` or a
// tab started on it while the run that started it ran), or ctx ends.
func waitIdle(ctx context.Context, e env, srv *server.Server) {
	if !srv.Busy() {
		return
	}
	fmt.Fprintf(e.stderr, "myco: waiting for the turns other runs or tabs started on this server (pid %d) before it stops\n", os.Getpid())
	t := time.NewTicker(idlePoll)
	defer t.Stop()
	for srv.Busy() {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
