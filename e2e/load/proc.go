package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

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
	var st procStatus
	err := eachStatus(pid, func(name string, n int64) {
		switch name {
		case "VmHWM":
			st.hwm = n << 10
		case "VmRSS":
			st.rss = n << 10
		case "Threads":
			st.threads = int(n)
		}
	})
	if err != nil {
		return procStatus{}, err
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

// residentPeak is the most a process held resident in anonymous memory
// (its heap, stacks and runtime) and in file-backed pages (its binary's
// text and data), each at its own peak, sampled every few milliseconds:
// VmHWM is their sum at one instant and cannot say which grew. The
// file-backed part depends on the kernel's page cache as much as on myco
// (see evictBinary), the anonymous part on myco alone.
type residentPeak struct {
	anon, file atomic.Int64 // bytes
}

// watch samples pid until stop is called.
func (p *residentPeak) watch(pid int) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			if anon, file, err := readResident(pid); err == nil {
				maxInto(&p.anon, anon)
				maxInto(&p.file, file)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}

func maxInto(v *atomic.Int64, n int64) {
	for {
		old := v.Load()
		if n <= old || v.CompareAndSwap(old, n) {
			return
		}
	}
}

// readResident is RssAnon and RssFile of /proc/PID/status, in bytes.
func readResident(pid int) (anon, file int64, err error) {
	err = eachStatus(pid, func(name string, n int64) {
		switch name {
		case "RssAnon":
			anon = n << 10
		case "RssFile":
			file = n << 10
		}
	})
	return anon, file, err
}

// eachStatus calls fn with each line of /proc/PID/status that starts with
// a number: its name and that number (kB for the sizes).
func eachStatus(pid int, fn func(name string, n int64)) error {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return err
	}
	for line := range strings.Lines(string(data)) {
		name, value, _ := strings.Cut(line, ":")
		fields := strings.Fields(value)
		if len(fields) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(fields[0], 10, 64)
		fn(name, n)
	}
	return nil
}

// evictBinary drops the binary's pages from the page cache, so that a
// run maps them as a start from disk does. A binary just written by
// go build sits in the cache as the writes left it, and the kernel maps
// a faulted page's whole folio: one build touched 26 MB of its own
// pages, another of the same code 34 MB, for the same start.
func evictBinary(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}
