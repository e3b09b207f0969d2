// Command livecpu runs a command (the live suite) and reports its wall
// time and the CPU time of it and every process under it, split into
// Chromium's processes by kind (browser, renderer, GPU, utility) and the
// rest. It is not part of go test.
//
//	go build -o /tmp/replaylab ./cmd/replaylab
//	go run ./bench/livecpu -- /tmp/replaylab run --driver browser --concurrency 8
//
// It polls /proc every --poll for the command's descendants and keeps,
// per process, the last user + system time seen and its kind (a Chromium
// process's --type= switch; none: the browser process); a process's CPU
// after its last poll is not counted, so the figures are lower bounds.
// It also prints the command's rusage (wait4: its CPU and that of every
// descendant that was waited for), which misses processes orphaned before
// they were reaped (Chromium's zygotes, and the renderers they reaped,
// when the browser exits first).
package main

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/replaylab/replaylab/internal/procs"
)

// clockTick is the unit of /proc/PID/stat's times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

type proc struct {
	kind string
	cpu  int64 // ticks, last seen
}

func main() {
	poll := flag.Duration("poll", 100*time.Millisecond, "how often /proc is read")
	scenarios := flag.Int("scenarios", 234, "scenarios the command runs (for the per-scenario figures)")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "livecpu: want a command after the flags (livecpu -- replaylab run --driver browser)")
		os.Exit(2)
	}
	load0 := loadAvg()
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "livecpu:", err)
		os.Exit(1)
	}
	var (
		mu    sync.Mutex
		procs = map[int]proc{}
		gone  []proc // processes whose pid was reused
		done  = make(chan struct{})
		wg    sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(*poll)
		defer t.Stop()
		for {
			seen := scan(cmd.Process.Pid)
			mu.Lock()
			for pid, p := range seen {
				old, ok := procs[pid]
				if ok && p.cpu < old.cpu { // a reused pid: keep the old process's
					gone = append(gone, old)
				}
				if p.kind == "" { // exited while read: its kind as last seen
					p.kind = old.kind
				}
				procs[pid] = p
			}
			mu.Unlock()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	err := cmd.Wait()
	wall := time.Since(t0)
	close(done)
	wg.Wait()
	st := cmd.ProcessState
	total := st.UserTime() + st.SystemTime()
	by := map[string]time.Duration{}
	for _, p := range append(gone, slices.Collect(maps.Values(procs))...) {
		by[p.kind] += time.Duration(p.cpu) * clockTick
	}
	n := float64(*scenarios)
	var polled time.Duration
	for _, d := range by {
		polled += d
	}
	fmt.Printf("\nlivecpu: wall %.1f s; CPU %.1f s polled (%.0f ms a scenario over %d), %.1f s by rusage; load average %s before, %s after\n",
		wall.Seconds(), polled.Seconds(), float64(polled.Milliseconds())/n, *scenarios, total.Seconds(), load0, loadAvg())
	kinds := make([]string, 0, len(by))
	for k := range by {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b string) int { return int(by[b] - by[a]) })
	var chromium time.Duration
	for _, k := range kinds {
		if strings.HasPrefix(k, "chromium ") {
			chromium += by[k]
		}
	}
	fmt.Printf("livecpu: Chromium %.1f s (%.0f ms a scenario)\n", chromium.Seconds(), float64(chromium.Milliseconds())/n)
	for _, k := range kinds {
		fmt.Printf("livecpu:   %-24s %7.1f s  %6.0f ms a scenario\n", k, by[k].Seconds(), float64(by[k].Milliseconds())/n)
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			os.Exit(ee.ExitCode())
		}
		fmt.Fprintln(os.Stderr, "livecpu:", err)
		os.Exit(1)
	}
}

// scan returns the descendants of root (root included) with their kind
// and CPU so far.
func scan(root int) map[int]proc {
	stats, err := procs.Stats()
	if err != nil {
		return nil
	}
	kids := map[int][]int{}
	for pid, r := range stats {
		kids[r.PPID] = append(kids[r.PPID], pid)
	}
	out := map[int]proc{}
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		r, ok := stats[pid]
		if !ok {
			continue
		}
		out[pid] = proc{kind: kind(pid, r.Comm), cpu: r.User + r.Sys}
		queue = append(queue, kids[pid]...)
	}
	return out
}

// kind names a process: "chromium <type>" for Chromium's (browser when it
// has no --type=), else its command name. Chromium's child processes
// rewrite their command line as one string, its words split by spaces.
func kind(pid int, comm string) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return ""
	}
	args := strings.FieldsFunc(string(data), func(r rune) bool { return r == 0 || r == ' ' })
	if len(args) == 0 {
		return "" // a zombie: its kind as last seen
	}
	if !strings.HasPrefix(filepath.Base(args[0]), "chrom") {
		return comm
	}
	typ, sub := "", ""
	for _, a := range args[1:] {
		if t, ok := strings.CutPrefix(a, "--type="); ok {
			typ = t
		}
		if t, ok := strings.CutPrefix(a, "--utility-sub-type="); ok {
			sub = t
		}
	}
	switch {
	case typ == "":
		return "chromium browser"
	case typ == "utility" && sub != "":
		return "chromium utility " + sub
	}
	return "chromium " + typ
}

// loadAvg is the load average printed before and after the run (procs
// names a map of processes in main).
var loadAvg = procs.LoadAvg
