// Command newpage measures what one scenario's page costs Chromium:
// a new browser context and tab, a navigation to the sim's /chat (to the
// load event), a first read of the page, and closing it, with replaylab's
// browser driver (engine/browser: Start, NewPage, Navigate, Capture,
// Close, as the live runner opens a scenario's page, in a cleared browser
// context a closed page left, unless --reuse-contexts=false) against Playwright
// (playwright-core from npm, pinned, driven by a small node script this
// command writes and owns), both on the same Chromium binary. It is not
// part of go test: it needs node, npm and a Chromium.
//
//	go run ./bench/newpage                                   # the Chromium replaylab picks by default
//	go run ./bench/newpage --chromium /usr/bin/chromium      # the full browser
//	go run ./bench/newpage --flag renderer-process-limit=2   # a launch flag on replaylab's side
//
// Each side runs in its own Chromium, started once; the iterations
// alternate (replaylab first in even iterations, Playwright first in odd
// ones), so both see the same load on a shared machine. Per iteration it
// records the wall time of the whole sequence and the CPU time (user +
// system) of the side's Chromium process tree: every process below the
// launched one, read from /proc before the iteration and after it and a
// settle pause (the context's disposal and its renderer's exit finish in
// that pause), with the time of the processes that exited in between
// counted through their parents' cutime and cstime. It prints each
// iteration, the medians, and the ratios Playwright ÷ replaylab (above 1:
// replaylab is cheaper). The first read is replaylab's Capture (the
// tracker's serialisation of the document) and Playwright's
// page.content() (the DOM as HTML).
package main

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/internal/procs"
	"github.com/replaylab/replaylab/sim"
)

// playwrightCore is the pinned playwright-core version the driver runs on.
const playwrightCore = "1.65.2"

//go:embed driver.js
var driverJS []byte

// settle is the pause after each iteration before the CPU is read again:
// the closed context's disposal and its renderer's exit finish in it.
const settle = 400 * time.Millisecond

// warmup iterations per side run first and are not counted (each side's
// first pages warm its browser: code caches, the first renderer).
const warmup = 2

func main() {
	chromium := flag.String("chromium", "", "the Chromium binary both sides drive (default: the one replaylab picks headless, see engine/browser.FindHeadless)")
	iterations := flag.Int("iterations", 20, "iterations per side, alternated")
	npmDir := flag.String("npm", filepath.Join(os.TempDir(), "replaylab-newpage-npm"), "where playwright-core@"+playwrightCore+" is installed (npm install runs there when it is missing)")
	node := flag.String("node", "node", "the node binary")
	timeout := flag.Duration("timeout", time.Minute, "per iteration")
	reuse := flag.Bool("reuse-contexts", true, "replaylab's side reuses cleared browser contexts, as the live runner does (engine/browser Options.ReuseContexts)")
	flag.Func("flag", "a Chromium switch for replaylab's side only, name or name=value, over engine/browser.Flags (repeatable; name=false drops one): measures a launch flag before and after", func(v string) error {
		name, val, ok := strings.Cut(strings.TrimPrefix(v, "--"), "=")
		if name == "" {
			return fmt.Errorf("want name or name=value, got %q", v)
		}
		switch {
		case !ok:
			browser.Flags[name] = true
		case val == "false":
			browser.Flags[name] = false
		default:
			browser.Flags[name] = val
		}
		return nil
	})
	flag.Parse()
	if *iterations < 1 {
		fmt.Fprintln(os.Stderr, "newpage: --iterations must be at least 1")
		os.Exit(2)
	}
	if err := run(*chromium, *npmDir, *node, *iterations, *timeout, *reuse); err != nil {
		fmt.Fprintln(os.Stderr, "newpage:", err)
		os.Exit(1)
	}
}

// side is one way of opening a page.
type side struct {
	name string
	pid  int // the root of its Chromium process tree
	page func(ctx context.Context, url string) (int, error)
}

// sample is one iteration of one side.
type sample struct {
	wall, cpu, browserCPU time.Duration
	bytes                 int
}

func run(chromium, npmDir, node string, iterations int, timeout time.Duration, reuse bool) error {
	if chromium == "" {
		p, err := browser.FindHeadless()
		if err != nil {
			return err
		}
		chromium = p
	}
	srv, err := sim.NewServer(sim.Options{})
	if err != nil {
		return err
	}
	defer srv.Close()
	url := srv.URL + "/chat"

	ctx := context.Background()
	b, err := browser.Start(ctx, browser.Options{ExecPath: chromium, ReuseContexts: reuse})
	if err != nil {
		return fmt.Errorf("replaylab: %w", err)
	}
	defer b.Close()
	rl := &side{name: "replaylab", pid: b.PID(), page: func(ctx context.Context, url string) (int, error) {
		p, err := b.NewPage(ctx)
		if err != nil {
			return 0, err
		}
		defer p.Close()
		if err := p.Navigate(ctx, url); err != nil {
			return 0, err
		}
		c, err := p.Capture(ctx)
		if err != nil {
			return 0, err
		}
		return len(c.Frames[0].HTML), nil
	}}
	pw, stop, err := startPlaywright(ctx, node, npmDir, chromium)
	if err != nil {
		return fmt.Errorf("playwright: %w", err)
	}
	defer stop()

	fmt.Printf("chromium %s, replaylab reusing contexts: %v, %d iterations per side after %d warm-up ones, %s\n", chromium, reuse, iterations, warmup, "load average "+procs.LoadAvg())
	fmt.Printf("%-4s %-10s %9s %13s %16s %7s\n", "it", "side", "wall ms", "chromium cpu", "browser proc cpu", "bytes")
	got := map[string][]sample{}
	for i := -warmup; i < iterations; i++ {
		order := []*side{rl, pw}
		if i%2 != 0 {
			slices.Reverse(order)
		}
		for _, s := range order {
			sm, err := measure(ctx, s, url, timeout)
			if err != nil {
				return fmt.Errorf("%s, iteration %d: %w", s.name, i+1, err)
			}
			if i < 0 {
				continue
			}
			got[s.name] = append(got[s.name], sm)
			fmt.Printf("%-4d %-10s %9.1f %10.0f ms %13.0f ms %7d\n", i+1, s.name, ms(sm.wall), ms(sm.cpu), ms(sm.browserCPU), sm.bytes)
		}
	}
	a, p := medians(got[rl.name]), medians(got[pw.name])
	fmt.Printf("median replaylab:  wall %.1f ms, chromium cpu %.0f ms (browser process %.0f ms)\n", ms(a.wall), ms(a.cpu), ms(a.browserCPU))
	fmt.Printf("median playwright: wall %.1f ms, chromium cpu %.0f ms (browser process %.0f ms)\n", ms(p.wall), ms(p.cpu), ms(p.browserCPU))
	ta, tp := totals(got[rl.name]), totals(got[pw.name])
	fmt.Printf("ratio playwright ÷ replaylab (≥ 1.0: replaylab as cheap or cheaper): wall %.2f (medians), chromium cpu %.2f (medians), %.2f (totals: %.0f vs %.0f ms)\n",
		ms(p.wall)/ms(a.wall), ms(p.cpu)/ms(a.cpu), ms(tp.cpu)/ms(ta.cpu), ms(tp.cpu), ms(ta.cpu))
	if reuse {
		st := b.ContextStats()
		fmt.Printf("replaylab: %d pages took a cleared context, %d contexts were not reused\n", st.Reused, st.NotReused)
	}
	fmt.Printf("after: %s\n", "load average "+procs.LoadAvg())
	return nil
}

// measure runs one iteration of s: the page's sequence, timed, and the
// CPU of s's Chromium tree across it and the settle pause.
func measure(ctx context.Context, s *side, url string, timeout time.Duration) (sample, error) {
	before, err := treeCPU(s.pid)
	if err != nil {
		return sample{}, err
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t0 := time.Now()
	n, err := s.page(cctx, url)
	wall := time.Since(t0)
	if err != nil {
		return sample{}, err
	}
	time.Sleep(settle)
	after, err := treeCPU(s.pid)
	if err != nil {
		return sample{}, err
	}
	return sample{wall: wall, cpu: after.total - before.total, browserCPU: after.root - before.root, bytes: n}, nil
}

// startPlaywright installs playwright-core when it is missing, writes the
// driver and starts it on chromium.
func startPlaywright(ctx context.Context, node, dir, chromium string) (*side, func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	if !installed(dir) {
		if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"replaylab-newpage","private":true}`+"\n"), 0o644); err != nil {
			return nil, nil, err
		}
		cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--save-exact", "playwright-core@"+playwrightCore)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, nil, fmt.Errorf("npm install playwright-core@%s in %s: %w\n%s", playwrightCore, dir, err, out)
		}
	}
	script := filepath.Join(dir, "newpage-driver.js")
	if err := os.WriteFile(script, driverJS, 0o644); err != nil {
		return nil, nil, err
	}
	cmd := exec.CommandContext(ctx, node, script, chromium)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	out := bufio.NewReader(outPipe)
	stop := func() {
		_, _ = io.WriteString(in, "\n")
		_ = in.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	var hello struct {
		Ready bool `json:"ready"`
	}
	if err := readJSON(out, &hello); err != nil || !hello.Ready {
		stop()
		return nil, nil, fmt.Errorf("the driver did not start Chromium: %v", err)
	}
	pid, err := childOf(cmd.Process.Pid)
	if err != nil {
		stop()
		return nil, nil, err
	}
	s := &side{name: "playwright", pid: pid, page: func(ctx context.Context, url string) (int, error) {
		if _, err := io.WriteString(in, url+"\n"); err != nil {
			return 0, err
		}
		var r struct {
			Bytes int    `json:"bytes"`
			Error string `json:"error"`
		}
		if err := readJSON(out, &r); err != nil {
			return 0, err
		}
		if r.Error != "" {
			return 0, errors.New(r.Error)
		}
		return r.Bytes, nil
	}}
	return s, stop, nil
}

// childOf returns the one child process of parent (the driver's
// Chromium).
func childOf(parent int) (int, error) {
	stats, err := procs.Stats()
	if err != nil {
		return 0, err
	}
	var kids []int
	for pid, st := range stats {
		if st.PPID == parent {
			kids = append(kids, pid)
		}
	}
	if len(kids) != 1 {
		return 0, fmt.Errorf("the driver (process %d) has %d child processes, want its one Chromium", parent, len(kids))
	}
	return kids[0], nil
}

// installed reports whether dir holds the pinned playwright-core.
func installed(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "node_modules", "playwright-core", "package.json"))
	if err != nil {
		return false
	}
	var pkg struct {
		Version string `json:"version"`
	}
	return json.Unmarshal(data, &pkg) == nil && pkg.Version == playwrightCore
}

func readJSON(r *bufio.Reader, v any) error {
	line, err := r.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("driver: %w", err)
	}
	if err := json.Unmarshal(line, v); err != nil {
		return fmt.Errorf("driver said %q: %w", strings.TrimSpace(string(line)), err)
	}
	return nil
}

// cpu is a process tree's CPU time: total over every process in it (the
// exited ones through their parents' cutime and cstime), root Chromium's
// browser process's own (the launched process, or below a wrapper
// script such as Debian's /usr/bin/chromium-headless-shell).
type cpu struct{ total, root time.Duration }

// clockTick is the unit of /proc/PID/stat's times (USER_HZ, 100 on
// Linux).
const clockTick = 10 * time.Millisecond

// treeCPU reads /proc for the process tree under root.
func treeCPU(root int) (cpu, error) {
	stats, err := procs.Stats()
	if err != nil {
		return cpu{}, err
	}
	type proc struct {
		ppid       int
		own, child int64
	}
	tree := map[int]proc{}
	for pid, st := range stats {
		tree[pid] = proc{ppid: st.PPID, own: st.User + st.Sys, child: st.ChildUser + st.ChildSys}
	}
	r, ok := tree[root]
	if !ok {
		return cpu{}, fmt.Errorf("chromium process %d is gone", root)
	}
	children := map[int][]int{}
	for pid, p := range tree {
		children[p.ppid] = append(children[p.ppid], pid)
	}
	var total, browserOwn int64
	found := false
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		total += tree[pid].own + tree[pid].child
		if !found && isBrowserProcess(pid) {
			browserOwn, found = tree[pid].own, true
		}
		queue = append(queue, children[pid]...)
	}
	if !found {
		browserOwn = r.own
	}
	return cpu{total: time.Duration(total) * clockTick, root: time.Duration(browserOwn) * clockTick}, nil
}

// isBrowserProcess reports whether pid runs Chromium's browser process:
// a Chromium binary (not a shell wrapper) with no --type= switch.
func isBrowserProcess(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	args := strings.Split(string(data), "\x00")
	if !strings.Contains(filepath.Base(args[0]), "chrom") {
		return false
	}
	return !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--type=") })
}

func medians(xs []sample) sample {
	pick := func(f func(sample) time.Duration) time.Duration {
		v := make([]time.Duration, len(xs))
		for i, x := range xs {
			v[i] = f(x)
		}
		slices.Sort(v)
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return sample{
		wall:       pick(func(s sample) time.Duration { return s.wall }),
		cpu:        pick(func(s sample) time.Duration { return s.cpu }),
		browserCPU: pick(func(s sample) time.Duration { return s.browserCPU }),
	}
}

func totals(xs []sample) sample {
	var t sample
	for _, x := range xs {
		t.wall += x.wall
		t.cpu += x.cpu
		t.browserCPU += x.browserCPU
	}
	return t
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
