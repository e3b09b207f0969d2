package browser_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/internal/syncbuf"
)

// remoteChromium starts a headless Chromium of the test's own with
// --remote-debugging-port=0 on loopback and returns its CDP websocket URL
// (read from DevToolsActivePort) and the process, killed at cleanup.
func remoteChromium(t *testing.T) (string, *exec.Cmd) {
	t.Helper()
	path, err := browser.FindChromium()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %v", err)
		}
		t.Skipf("SKIPPING browser test: %v", err)
	}
	dir := t.TempDir()
	args := []string{"--headless", "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1", "--user-data-dir=" + dir}
	for k := range browser.Flags {
		args = append(args, "--"+k)
	}
	cmd := exec.Command(path, append(args, "about:blank")...)
	// its own process group: the cleanup ends its helpers (zygote,
	// renderers, crashpad) too, which otherwise write to the user-data
	// dir while TempDir removes it
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		pg := cmd.Process.Pid
		_ = syscall.Kill(-pg, syscall.SIGKILL)
		<-done
		for end := time.Now().Add(5 * time.Second); groupRuns(pg) && time.Now().Before(end); {
			time.Sleep(20 * time.Millisecond)
		}
	})
	// Chromium starts in its own time: poll for its port file, bounded
	// against a hang only
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		data, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort"))
		if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); err == nil && len(lines) == 2 {
			return "ws://127.0.0.1:" + lines[0] + lines[1], cmd
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("Chromium wrote no DevToolsActivePort in 2 minutes (a hang guard)")
	return "", nil
}

// groupRuns says whether a process of process group pg still runs (one
// that is not a zombie; where /proc cannot say, whether any is left).
func groupRuns(pg int) bool {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		return !errors.Is(syscall.Kill(-pg, 0), syscall.ESRCH)
	}
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and parens
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		var state string
		var ppid, pgrp int
		if _, err := fmt.Sscan(string(b[i+1:]), &state, &ppid, &pgrp); err == nil && pgrp == pg && state != "Z" {
			return true
		}
	}
	return false
}

// TestPoolTwoEndpointsOneKilled shares two remote Chromiums among
// concurrent "scenarios" (page, navigate, capture, close), kills one
// mid-run, and checks that the dead one is reported once and skipped, that
// every scenario started after the kill passes on the other, and that a
// pool with no endpoint left fails with ErrNoEndpoint.
func TestPoolTwoEndpointsOneKilled(t *testing.T) {
	a, procA := remoteChromium(t)
	b, procB := remoteChromium(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<!doctype html><title>pool</title><p id=x>scenario %s</p>", r.URL.Query().Get("n"))
	}))
	defer srv.Close()
	const unreachable = "ws://127.0.0.1:1/devtools/browser/none"
	var report syncbuf.Buffer
	ctx := context.Background()
	pool, err := browser.NewPool(ctx, []string{a, b, unreachable}, browser.PoolOptions{Report: &report, ConnectTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if strings.Count(report.String(), "endpoint "+unreachable) != 1 {
		t.Fatalf("the unreachable endpoint was not reported once:\n%s", report.String())
	}
	scenario := func(n int) error {
		p, err := pool.NewPage(ctx)
		if err != nil {
			return err
		}
		defer p.Close()
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := p.Navigate(sctx, fmt.Sprintf("%s/?n=%d", srv.URL, n)); err != nil {
			return err
		}
		c, err := p.Capture(sctx)
		if err != nil {
			return err
		}
		if want := fmt.Sprintf("scenario %d", n); !strings.Contains(c.Frames[0].HTML, want) {
			return fmt.Errorf("scenario %d: the page does not say %q", n, want)
		}
		return nil
	}
	// round 1: 6 scenarios, 3 at a time, on both endpoints
	run := func(from, to int) []error {
		var mu sync.Mutex
		var errs []error
		sem := make(chan struct{}, 3)
		var wg sync.WaitGroup
		for n := from; n < to; n++ {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				if err := scenario(n); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		return errs
	}
	if errs := run(0, 6); len(errs) > 0 {
		t.Fatalf("round 1: %v", errs)
	}
	st := pool.Stats()
	if st[a].Pages == 0 || st[b].Pages == 0 {
		t.Fatalf("both endpoints should have served pages: %+v", st)
	}
	// kill A while scenarios run: pages in flight on A may fail, every
	// scenario that starts after the kill must pass on B
	var wg sync.WaitGroup
	wg.Add(1)
	var inFlight []error
	go func() { defer wg.Done(); inFlight = run(6, 12) }()
	time.Sleep(200 * time.Millisecond)
	if err := procA.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if len(inFlight) > 3 {
		t.Errorf("more scenarios failed than were in flight on the killed endpoint: %v", inFlight)
	}
	if errs := run(12, 20); len(errs) > 0 {
		t.Fatalf("after the kill: %v\nreport:\n%s", errs, report.String())
	}
	if n := strings.Count(report.String(), "endpoint "+a); n != 1 {
		t.Errorf("the killed endpoint was reported %d times, want once:\n%s", n, report.String())
	}
	st = pool.Stats()
	if !st[a].Dead || st[b].Dead || !st[unreachable].Dead {
		t.Errorf("stats after the kill: %+v", st)
	}
	// no endpoint left
	if err := procB.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := pool.NewPage(ctx); !errors.Is(err, browser.ErrNoEndpoint) {
		t.Fatalf("with every endpoint dead: got %v, want ErrNoEndpoint", err)
	}
	t.Logf("scenarios failed in flight on the killed endpoint: %d of 6; pages served: %+v\nreport:\n%s", len(inFlight), st, report.String())
}

func TestPoolNoneReachable(t *testing.T) {
	_, err := browser.NewPool(context.Background(), []string{"ws://127.0.0.1:1/devtools/browser/a", "ws://127.0.0.1:2/devtools/browser/b"},
		browser.PoolOptions{Report: &syncbuf.Buffer{}, ConnectTimeout: 3 * time.Second})
	if !errors.Is(err, browser.ErrNoEndpoint) || !strings.Contains(err.Error(), "127.0.0.1:1") || !strings.Contains(err.Error(), "127.0.0.1:2") {
		t.Fatalf("got %v, want ErrNoEndpoint naming both endpoints", err)
	}
}

func TestReadEndpoints(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, body, err string
		want            int
	}{
		{"two with comments", "# pool\nws://127.0.0.1:9222/devtools/browser/a\n\nws://127.0.0.1:9223/devtools/browser/b\n", "", 2},
		{"http url", "http://127.0.0.1:9222\n", "want a ws:// CDP URL", 0},
		{"empty", "# nothing\n", "holds no endpoint", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
			os.WriteFile(p, []byte(tc.body), 0o644)
			got, err := browser.ReadEndpoints(p)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want an error with %q", err, tc.err)
				}
				return
			}
			if err != nil || len(got) != tc.want {
				t.Fatalf("got %v %v, want %d endpoints", got, err, tc.want)
			}
		})
	}
}

// TestPoolPagesStartWithTheStorageState: a pool's pages, on every
// endpoint, start with the storage state's cookie and local storage
// (APP-5), and a pool without one starts signed out.
func TestPoolPagesStartWithTheStorageState(t *testing.T) {
	a, _ := remoteChromium(t)
	b, _ := remoteChromium(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := "none"
		if c, err := r.Cookie("sid"); err == nil {
			sid = c.Value
		}
		fmt.Fprintf(w, `<!doctype html><p id=c>cookie %s</p><p id=t></p><script>document.getElementById("t").textContent = "token " + (localStorage.getItem("tok") || "none");</script>`, sid)
	}))
	defer srv.Close()
	st := &browser.StorageState{
		Cookies: []browser.StateCookie{{Name: "sid", Value: "s-1234", Domain: "127.0.0.1", Path: "/", Expires: -1}},
		Origins: []browser.StateOrigin{{Origin: srv.URL, LocalStorage: []browser.StateItem{{Name: "tok", Value: "t-5678"}}}},
	}
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		st   *browser.StorageState
		want []string
	}{
		{"with a storage state", st, []string{"cookie s-1234", "token t-5678"}},
		{"without", nil, []string{"cookie none", "token none"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pool, err := browser.NewPool(ctx, []string{a, b}, browser.PoolOptions{Report: &syncbuf.Buffer{}, StorageState: tt.st})
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			for i := range 2 { // the fewest open pages: one on each endpoint
				p, err := pool.NewPage(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				if err := p.Navigate(ctx, srv.URL+"/"); err != nil {
					t.Fatal(err)
				}
				c, err := p.Capture(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range tt.want {
					if !strings.Contains(c.Frames[0].HTML, w) {
						t.Fatalf("page %d: no %q in %s", i+1, w, c.Frames[0].HTML)
					}
				}
			}
		})
	}
}
