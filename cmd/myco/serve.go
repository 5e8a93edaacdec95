package main

import (
	"context"
	"errors"
	"os"
	"syscall"

	"myco/profiles"
)

type serveOptions struct {
	profile, addr, resume string
	noOpen                bool
}

func serve(ctx context.Context, e env, opts serveOptions) error {
	return errors.New("the server is not built yet (see the browser-app issue)")
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
