package profiles

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"myco/internal/atomicfile"
)

// ServerInfo is server.json: how to reach the profile's running server.
type ServerInfo struct {
	PID       int       `json:"pid"`
	URL       string    `json:"url"`
	Token     string    `json:"token"`
	StartedAt time.Time `json:"started_at"`
	// Headless: the server serves a headless run (`myco run`) and stops
	// when the run ends and no turn runs in it; a `myco` that finds it
	// serves the profile after it.
	Headless bool `json:"headless,omitempty"`
}

// WriteServerInfo writes info to path atomically with mode 0600: the token
// in it opens the agent's shell. It is not synced: the file describes the
// running process, which a reader checks by asking it (its token
// answers), so after a crash it is stale whether it reached the disk or
// not; and the two fsyncs delayed every start's first page.
func WriteServerInfo(path string, info ServerInfo) error {
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return fmt.Errorf("write server info: %w", err)
	}
	if err := atomicfile.Write(path, append(data, '\n'), atomicfile.Options{Perm: fileMode, Volatile: true}); err != nil {
		return fmt.Errorf("write server info %s: %w", path, err)
	}
	return nil
}

// ReadServerInfo reads server.json at path. The error wraps fs.ErrNotExist
// when no server has written one.
func ReadServerInfo(path string) (ServerInfo, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return ServerInfo{}, fmt.Errorf("read server info: %w", err)
	}
	info, err := parseServerInfo(data)
	if err != nil {
		return ServerInfo{}, fmt.Errorf("server info %s is malformed: %w", path, err)
	}
	return info, nil
}

func parseServerInfo(data []byte) (ServerInfo, error) {
	var info ServerInfo
	if err := json.Unmarshal(data, &info); err != nil {
		return ServerInfo{}, err
	}
	if info.PID <= 0 || info.URL == "" || info.Token == "" {
		return ServerInfo{}, errors.New("it needs a pid, a url and a token")
	}
	return info, nil
}

// RemoveServerInfo removes server.json at path if it still names pid. A file
// naming another pid, or one that does not parse, is left alone: another
// server may have started since. Between the read and the removal a new
// server could still replace the file; the window is a few syscalls wide and
// the cost is a stale record that the next start checks anyway.
func RemoveServerInfo(path string, pid int) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove server info: %w", err)
	}
	if info, err := parseServerInfo(data); err != nil || info.PID != pid {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove server info: %w", err)
	}
	return nil
}
