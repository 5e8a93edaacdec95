package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"myco/e2e/internal/mycotest"
)

// startMyco runs bin --profile p with MYCO_HOME=home in dir and waits for
// the line that carries its URL and token.
func startMyco(ctx context.Context, bin, home, p, dir string) (*mycotest.Server, error) {
	return mycotest.Start(ctx, mycotest.Config{
		Bin: bin, Home: home, Profile: p, Dir: dir,
		Env: []string{apiKeyEnv + "=load-test-key"},
	})
}

// procStatus is what /proc/PID says about the process's resources.
type procStatus struct {
	hwm, rss int64 // bytes: peak and current resident set
	threads  int
	fds      int
}

func readProc(pid int) (procStatus, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return procStatus{}, err
	}
	var st procStatus
	for line := range strings.Lines(string(data)) {
		name, value, _ := strings.Cut(line, ":")
		fields := strings.Fields(value)
		if len(fields) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(fields[0], 10, 64)
		switch name {
		case "VmHWM":
			st.hwm = n << 10
		case "VmRSS":
			st.rss = n << 10
		case "Threads":
			st.threads = int(n)
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return st, err
	}
	st.fds = len(fds)
	return st, nil
}

// clockTick is USER_HZ, 100 on every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// cpuTime is the CPU time (user + system) the process has used so far.
func cpuTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces and parentheses: fields start
	// after the last ')'. utime and stime are fields 14 and 15.
	i := bytes.LastIndexByte(data, ')')
	fields := strings.Fields(string(data[i+1:]))
	if i < 0 || len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return time.Duration(utime+stime) * clockTick, nil
}
