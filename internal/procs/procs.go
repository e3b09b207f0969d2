// Package procs answers what the tests and steps ask about processes of
// this machine: does a pid still run, which processes name a directory on
// their command line (a browser's user-data dir), and the replaylab
// binary built once per test process. Linux only: it reads /proc.
package procs

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Running reports whether pid runs (a zombie does not).
func Running(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil || p.Signal(syscall.Signal(0)) != nil {
		return false
	}
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return err != nil || !strings.Contains(string(data), ") Z ")
}

// Naming lists the pids of the running processes whose command line
// names dir.
func Naming(dir string) []int {
	var out []int
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range cmdlines {
		data, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(data, []byte(dir)) {
			continue
		}
		if n, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil && Running(n) {
			out = append(out, n)
		}
	}
	return out
}

// built is the replaylab binary Binary builds once per process.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// Binary builds ./cmd/replaylab of the module at root, once per process,
// into a temp dir that RemoveBinary removes.
func Binary(root string) (string, error) {
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "replaylab-bin-*")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		out := filepath.Join(dir, "replaylab")
		cmd := exec.Command("go", "build", "-o", out, "./cmd/replaylab")
		cmd.Dir = root
		if msg, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("build replaylab (go build ./cmd/replaylab in %s): %w\n%s", root, err, msg)
			return
		}
		built.path = out
	})
	return built.path, built.err
}

// RemoveBinary removes what Binary built.
func RemoveBinary() {
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
}

// Stat is one process's line of /proc/PID/stat: its parent, its command
// name and its CPU times in clock ticks (USER_HZ), its own and those of
// its children that exited and were waited for.
type Stat struct {
	PPID                int
	Comm                string
	User, Sys           int64
	ChildUser, ChildSys int64
}

// Stats reads /proc/PID/stat of every process; a process that exits
// while it reads is left out.
func Stats() (map[int]Stat, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	out := map[int]Stat{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		// the fields after the command's closing parenthesis: state ppid …
		s := string(data)
		i, j := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if i < 0 || j < i {
			continue
		}
		f := strings.Fields(s[j+1:])
		if len(f) < 15 {
			continue
		}
		var st Stat
		st.PPID, _ = strconv.Atoi(f[1])
		st.Comm = s[i+1 : j]
		st.User, _ = strconv.ParseInt(f[11], 10, 64)
		st.Sys, _ = strconv.ParseInt(f[12], 10, 64)
		st.ChildUser, _ = strconv.ParseInt(f[13], 10, 64)
		st.ChildSys, _ = strconv.ParseInt(f[14], 10, 64)
		out[pid] = st
	}
	return out, nil
}

// LoadAvg is the machine's 1, 5 and 15 minute load averages as
// /proc/loadavg gives them ("0.52 0.58 0.59"), "unknown" when it cannot
// be read: the benches print it beside their figures, which a shared
// machine moves.
func LoadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
