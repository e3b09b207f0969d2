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
