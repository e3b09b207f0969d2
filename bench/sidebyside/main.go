// Command sidebyside measures replaylab's MCP snapshot against Playwright
// MCP's browser_snapshot on the same Chromium and the same seeded chat
// pages (internal/chatpage), alternating the two servers run by run. It is
// not part of go test: it needs Playwright MCP from npm and a Chromium.
//
//	go build -o /tmp/replaylab ./cmd/replaylab
//	(cd /tmp/pw && npm install @playwright/mcp@0.0.83)
//	go run ./bench/sidebyside --replaylab /tmp/replaylab \
//	    --playwright /tmp/pw/node_modules/.bin/playwright-mcp --chromium /usr/bin/chromium
//
// For each page size and run it reports, per server: the navigation (both
// servers take a snapshot in it: Playwright MCP's navigate returns one,
// replaylab's browser driver takes its baseline capture), the first
// snapshot after navigating, a snapshot of the unchanged page, and a snapshot after
// a small change (the page's script appends a sentence to the newest answer
// every second, like an answer streaming in), with the bytes of each
// result. Times are wall-clock milliseconds of the MCP call as the client
// sees it; the machine's load moves them, so compare the two servers
// within one run. A third Chromium, navigated by plain CDP with no
// snapshot ("bare"), runs in the same rotation: open + first snapshot
// minus the bare navigation of the same run is what each server's first
// snapshot costs beyond the browser's own page load. After its
// measurement each server leaves its page blank (replaylab finishes its
// task, Playwright MCP and the bare browser navigate to about:blank) and
// the run pauses 500 ms, so no server's streaming page loads the machine
// while another is measured. --only replaylab (or playwright) measures
// one server alone, for profiling; it prints no ratios.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/replaylab/replaylab/engine/browser"

	"github.com/replaylab/replaylab/internal/chatpage"
)

// settle is the pause after a server's page was left blank before the
// next measurement: the blank navigation's or the closed tab's own work
// in Chromium ends in it.
const settle = 500 * time.Millisecond

// streamScript appends a sentence to the newest answer on every second
// of the wall clock (at Date.now() % 1000 == 0, as closely as the page's
// timers allow), so the harness, on the same clock, knows how long before
// a read the page last changed.
const streamScript = `<script>(function(){function tick(){var t=document.querySelectorAll('[data-message-author-role=assistant] .text');var p=t[t.length-1];if(p){p.insertAdjacentHTML('beforeend','<p>Streamed sentence '+Date.now()+'.</p>')}setTimeout(tick,1000-Date.now()%1000)}setTimeout(tick,1000-Date.now()%1000)})()</script>`

// changeReads is how many reads after a change each run takes, each at its
// own time after the change: over a whole size's runs those times spread
// evenly over the second between two changes (changePhase).
const changeReads = 4

// changePhase is how long after the page's last change read j of run r
// (of runs) starts: the runs' reads together sample the second between
// two changes at even steps, so their median is the read after a change at
// an arbitrary moment, the moments just after a change included in their
// share.
func changePhase(r, j, runs int) time.Duration {
	k := j*runs + r
	return time.Duration((float64(k) + 0.5) / float64(changeReads*runs) * float64(time.Second))
}

// justAfter splits the reads after a change in the report: those that
// start within it of the change may wait for the renderer's own frame
// of the change (style and layout of the page).
const justAfter = 100 * time.Millisecond

// changed is one read after a change: how long after it the read started,
// and what it took.
type changed struct {
	after time.Duration
	ms    float64
}

type server struct {
	name     string
	cs       *mcpsdk.ClientSession
	open     func(ctx context.Context, url string) error
	snapshot func(ctx context.Context) (int, error) // nil: the bare navigation, no snapshot
	// idle leaves the server's page blank (its streaming chat gone) once
	// its measurement ended, so the page loads neither core during the
	// other servers' measurements
	idle func(ctx context.Context) error
}

type sample struct {
	open, first, same, changed, bytes float64
	changes                           []changed // changed is their median
}

func main() {
	replaylab := flag.String("replaylab", "replaylab", "the replaylab binary")
	playwright := flag.String("playwright", "", "the Playwright MCP server (node_modules/.bin/playwright-mcp); required")
	chromium := flag.String("chromium", "/usr/bin/chromium", "the Chromium both servers drive")
	turnsFlag := flag.String("turns", "20,200,2000", "page sizes, in turns")
	runs := flag.Int("runs", 3, "runs per size (the servers alternate which goes first)")
	timeout := flag.Duration("timeout", 2*time.Minute, "per call")
	only := flag.String("only", "", "measure one server alone (replaylab or playwright): no ratios, for profiling")
	flag.Parse()
	switch {
	case *only != "" && *only != "replaylab" && *only != "playwright":
		fmt.Fprintf(os.Stderr, "sidebyside: --only %q: want replaylab or playwright\n", *only)
		os.Exit(2)
	case *playwright == "" && *only != "replaylab":
		fmt.Fprintln(os.Stderr, "sidebyside: --playwright is required (or --only replaylab)")
		os.Exit(2)
	}
	if err := run(*replaylab, *playwright, *chromium, *turnsFlag, *only, *runs, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "sidebyside:", err)
		os.Exit(1)
	}
}

func run(replaylab, playwright, chromium, turnsFlag, only string, runs int, timeout time.Duration) error {
	var sizes []int
	for _, f := range strings.Split(turnsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return fmt.Errorf("--turns: %q is not a number of turns", f)
		}
		sizes = append(sizes, n)
	}
	pages := map[string]string{}
	for _, n := range sizes {
		page := chatpage.Render(chatpage.Options{Turns: n, Seed: 1})
		pages["/chat/"+strconv.Itoa(n)] = strings.Replace(page, "</body>", streamScript+"</body>", 1)
	}
	base, closeSrv, err := chatpage.Serve(pages)
	if err != nil {
		return err
	}
	defer closeSrv()

	ctx := context.Background()
	var servers []*server
	if only != "playwright" {
		rl, err := startReplaylab(ctx, replaylab, chromium)
		if err != nil {
			return fmt.Errorf("replaylab mcp: %w", err)
		}
		defer rl.cs.Close()
		servers = append(servers, rl)
	}
	if only != "replaylab" {
		pw, err := startPlaywright(ctx, playwright, chromium)
		if err != nil {
			return fmt.Errorf("playwright mcp: %w", err)
		}
		defer pw.cs.Close()
		servers = append(servers, pw)
	}

	// the bare navigation: a third Chromium navigated by plain CDP, no
	// snapshot, in the same rotation; what each server adds to it is the
	// cost of its first snapshot
	bare, stopBare, err := startBare(ctx, chromium)
	if err != nil {
		return fmt.Errorf("bare chromium: %w", err)
	}
	defer stopBare()
	servers = append(servers, bare)

	fmt.Printf("%-6s %-10s %5s %10s %10s %10s %10s %10s\n", "turns", "server", "run", "open ms", "first ms", "same ms", "change ms", "bytes")
	for _, n := range sizes {
		url := base + "/chat/" + strconv.Itoa(n)
		got := map[string][]sample{}
		for r := range runs {
			order := slices.Clone(servers)
			if r%2 == 1 {
				slices.Reverse(order)
			}
			for _, s := range order {
				sm, err := measure(ctx, s, url, timeout, r, runs)
				if ierr := s.idle(ctx); ierr != nil && err == nil {
					err = fmt.Errorf("leave the page blank: %w", ierr)
				}
				time.Sleep(settle)
				if err != nil {
					fmt.Printf("%-6d %-10s %5d error: %v\n", n, s.name, r+1, err)
					continue
				}
				got[s.name] = append(got[s.name], sm)
				fmt.Printf("%-6d %-10s %5d %10.0f %10.0f %10.0f %10.0f %10.0f\n", n, s.name, r+1, sm.open, sm.first, sm.same, sm.changed, sm.bytes)
			}
		}
		for _, s := range servers {
			m := median(got[s.name])
			if s.snapshot == nil {
				fmt.Printf("%-6d median %-10s open %.0f ms (navigation to the load event and one round trip to the renderer)\n", n, s.name, m.open)
				continue
			}
			fmt.Printf("%-6d median %-10s open %.0f, first %.0f, unchanged %.0f, after a change %.0f ms; bytes %.0f\n", n, s.name, m.open, m.first, m.same, m.changed, m.bytes)
			soon, ns := pooled(got[s.name], 0, justAfter)
			late, nl := pooled(got[s.name], justAfter, time.Hour)
			fmt.Printf("%-6d median %-10s after a change, read within %d ms of it: %.0f ms (%d reads); later: %.0f ms (%d reads)\n", n, s.name, justAfter.Milliseconds(), soon, ns, late, nl)
		}
		if len(got["bare"]) > 0 {
			// per run: open + first - the bare navigation of the same run
			added := func(name string) float64 {
				var v []float64
				for i, x := range got[name] {
					if i < len(got["bare"]) {
						v = append(v, x.open+x.first-got["bare"][i].open)
					}
				}
				if len(v) == 0 {
					return 0
				}
				slices.Sort(v)
				return v[len(v)/2]
			}
			a, b := added("replaylab"), added("playwright")
			if len(got["replaylab"]) > 0 && len(got["playwright"]) > 0 {
				fmt.Printf("%-6d median     open + first snapshot over the bare navigation of the same run: replaylab adds %.0f ms, playwright %.0f ms: %.1f×\n", n, a, b, b/a)
			}
		}
		a, b := median(got["replaylab"]), median(got["playwright"])
		if len(got["replaylab"]) > 0 && len(got["playwright"]) > 0 {
			fmt.Printf("%-6d median     replaylab faster by: open %.1f×, first %.1f×, open+first %.1f×, unchanged %.1f×, after a change %.1f×; bytes %.0f vs %.0f\n",
				n, b.open/a.open, b.first/a.first, (b.open+b.first)/(a.open+a.first), b.same/a.same, b.changed/a.changed, a.bytes, b.bytes)
		}
	}
	return nil
}

func measure(ctx context.Context, s *server, url string, timeout time.Duration, r, runs int) (sample, error) {
	call := func(fn func(context.Context) (int, error)) (float64, int, error) {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		t := time.Now()
		n, err := fn(cctx)
		return float64(time.Since(t).Microseconds()) / 1000, n, err
	}
	var sm sample
	var err error
	if sm.open, _, err = call(func(c context.Context) (int, error) { return 0, s.open(c, url) }); err != nil {
		return sm, err
	}
	if s.snapshot == nil {
		return sm, nil
	}
	var bytes int
	if sm.first, bytes, err = call(s.snapshot); err != nil {
		return sm, err
	}
	sm.bytes = float64(bytes)
	// right after: the page changes once a second, so this one is most
	// likely unchanged
	if sm.same, _, err = call(s.snapshot); err != nil {
		return sm, err
	}
	for j := range changeReads {
		// the next change after this moment, and then the read's phase
		after := changePhase(r, j, runs)
		at := time.Now().Truncate(time.Second).Add(time.Second + after)
		time.Sleep(time.Until(at))
		c, _, err := call(s.snapshot)
		if err != nil {
			return sm, err
		}
		sm.changes = append(sm.changes, changed{after, c})
	}
	sm.changed, _ = pooled([]sample{sm}, 0, time.Hour)
	return sm, nil
}

func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 0 {
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return v[len(v)/2]
}

// pooled is the median of every read after a change of xs whose phase
// is in [lo, hi), and how many there were.
func pooled(xs []sample, lo, hi time.Duration) (float64, int) {
	var v []float64
	for _, x := range xs {
		for _, c := range x.changes {
			if c.after >= lo && c.after < hi {
				v = append(v, c.ms)
			}
		}
	}
	return medianOf(v), len(v)
}

func median(xs []sample) sample {
	pick := func(f func(sample) float64) float64 {
		v := make([]float64, 0, len(xs))
		for _, x := range xs {
			v = append(v, f(x))
		}
		if len(v) == 0 {
			return 0
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return sample{open: pick(func(s sample) float64 { return s.open }), first: pick(func(s sample) float64 { return s.first }), same: pick(func(s sample) float64 { return s.same }),
		changed: allChanges(xs), bytes: pick(func(s sample) float64 { return s.bytes })}
}

// allChanges is the median of every read after a change of xs, whatever
// its phase.
func allChanges(xs []sample) float64 {
	m, _ := pooled(xs, 0, time.Hour)
	return m
}

func connect(ctx context.Context, cmd *exec.Cmd) (*mcpsdk.ClientSession, error) {
	cmd.Stderr = os.Stderr
	return mcpsdk.NewClient(&mcpsdk.Implementation{Name: "sidebyside", Version: "dev"}, nil).Connect(ctx, &mcpsdk.CommandTransport{Command: cmd}, nil)
}

func callTool(ctx context.Context, cs *mcpsdk.ClientSession, name string, args map[string]any) (*mcpsdk.CallToolResult, int, error) {
	res, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, 0, err
	}
	data, err := json.Marshal(res)
	if err != nil {
		return nil, 0, err
	}
	if res.IsError {
		return res, len(data), fmt.Errorf("%s: %s", name, data)
	}
	return res, len(data), nil
}

func startReplaylab(ctx context.Context, bin, chromium string) (*server, error) {
	cmd := exec.Command(bin, "mcp", "--adapter", "auto")
	cmd.Env = append(os.Environ(), "REPLAYLAB_CHROMIUM="+chromium)
	cs, err := connect(ctx, cmd)
	if err != nil {
		return nil, err
	}
	s := &server{name: "replaylab", cs: cs}
	task := ""
	s.idle = func(ctx context.Context) error {
		if task == "" {
			return nil
		}
		_, _, err := callTool(ctx, cs, "finish", map[string]any{"task": task})
		task = ""
		return err
	}
	s.open = func(ctx context.Context, url string) error {
		if err := s.idle(ctx); err != nil {
			return err
		}
		res, _, err := callTool(ctx, cs, "begin", map[string]any{"goal": "side by side"})
		if err != nil {
			return err
		}
		var out struct{ Task string }
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, &out); err != nil || out.Task == "" {
			return errors.New("begin returned no task")
		}
		task = out.Task
		_, _, err = callTool(ctx, cs, "navigate", map[string]any{"task": task, "url": url})
		return err
	}
	s.snapshot = func(ctx context.Context) (int, error) {
		_, n, err := callTool(ctx, cs, "snapshot", map[string]any{"task": task})
		return n, err
	}
	return s, nil
}

// startBare starts a Chromium of its own with the browser driver's flags
// and navigates one tab by plain CDP: its open is the navigation to the
// load event plus one Runtime.evaluate round trip (the renderer is free
// again), what both servers' navigations cost before any snapshot work.
func startBare(ctx context.Context, chromium string) (*server, func(), error) {
	dir, err := os.MkdirTemp("", "sidebyside-bare-")
	if err != nil {
		return nil, nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.UserDataDir(dir))
	for k, v := range browser.Flags {
		opts = append(opts, chromedp.Flag(k, v))
	}
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	tctx, tcancel := chromedp.NewContext(actx)
	stop := func() {
		tcancel()
		acancel()
		_ = os.RemoveAll(dir)
	}
	if err := chromedp.Do(tctx); err != nil {
		stop()
		return nil, nil, err
	}
	s := &server{name: "bare"}
	s.open = func(ctx context.Context, url string) error {
		cctx, cancel := context.WithCancel(tctx)
		defer cancel()
		defer context.AfterFunc(ctx, cancel)()
		if err := chromedp.Do(cctx, chromedp.Navigate(url)); err != nil {
			return err
		}
		_, err := chromedp.Run(cctx, chromedp.Evaluate[int]("0"))
		return err
	}
	s.idle = func(ctx context.Context) error {
		cctx, cancel := context.WithCancel(tctx)
		defer cancel()
		defer context.AfterFunc(ctx, cancel)()
		return chromedp.Do(cctx, chromedp.Navigate("about:blank"))
	}
	return s, stop, nil
}

func startPlaywright(ctx context.Context, bin, chromium string) (*server, error) {
	cmd := exec.Command(bin, "--headless", "--isolated", "--no-sandbox", "--executable-path", chromium)
	cs, err := connect(ctx, cmd)
	if err != nil {
		return nil, err
	}
	s := &server{name: "playwright", cs: cs}
	s.open = func(ctx context.Context, url string) error {
		_, _, err := callTool(ctx, cs, "browser_navigate", map[string]any{"url": url})
		return err
	}
	s.snapshot = func(ctx context.Context) (int, error) {
		_, n, err := callTool(ctx, cs, "browser_snapshot", map[string]any{})
		return n, err
	}
	s.idle = func(ctx context.Context) error {
		_, _, err := callTool(ctx, cs, "browser_navigate", map[string]any{"url": "about:blank"})
		return err
	}
	return s, nil
}
