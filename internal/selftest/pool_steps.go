package selftest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/internal/syncbuf"
	"github.com/replaylab/replaylab/steps"
	"github.com/replaylab/replaylab/steps/vocabulary"
)

// REP-4: the harness runs a scratch project live on a pool of two remote
// Chromium processes the scenario starts (--remote-debugging-port=0 on the
// loopback), one of them killed when the second scenario starts.

type poolState struct {
	urls  []string
	procs []*exec.Cmd
}

func poolSteps(r *steps.Table) {
	r.Step(`^two remote Chromium browsers run on the loopback$`,
		"start two headless Chromium processes with --remote-debugging-port=0 on 127.0.0.1 (their CDP URLs from DevToolsActivePort); without Chromium the scenario is skipped locally and fails in CI",
		"Given two remote Chromium browsers run on the loopback", poolStart)
	r.Step(`^I run the harness on "([^"]*)" live on both browsers, killing the first when the second scenario starts$`,
		"run the scratch project's feature with the browser driver (recording its goldens) on the pool of both browsers, one scenario at a time, and kill the first browser as the second scenario starts",
		`When I run the harness on "pool.feature" live on both browsers, killing the first when the second scenario starts`, poolRunKill)
	r.Step(`^I run the harness on "([^"]*)" live on browsers that are not running$`,
		"the same run on a pool of two loopback endpoints nobody listens on",
		`When I run the harness on "pool.feature" live on browsers that are not running`, poolRunNone)
	r.Step(`^the pool reported the killed browser once and no other$`,
		"the run's output names the killed browser's endpoint as dead exactly once, and the other one never",
		"Then the pool reported the killed browser once and no other", poolReported)
}

func poolStart(ctx context.Context) error {
	w := steps.WorldOf(ctx)
	path, err := browser.FindChromium()
	if err != nil {
		if os.Getenv("CI") == "true" {
			return fmt.Errorf("CI=true and %w", err)
		}
		return w.Skip(fmt.Sprintf("SKIPPING the browser pool scenario: %v", err))
	}
	ps := steps.State[poolState](w)
	for range 2 {
		dir, err := os.MkdirTemp("", "replaylab-pool-")
		if err != nil {
			return err
		}
		args := []string{"--headless", "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1", "--user-data-dir=" + dir}
		for k := range browser.Flags {
			args = append(args, "--"+k)
		}
		cmd := exec.Command(path, append(args, "about:blank")...)
		if err := cmd.Start(); err != nil {
			os.RemoveAll(dir)
			return err
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		w.OnFinish(func() {
			_ = cmd.Process.Kill()
			<-done
			os.RemoveAll(dir)
		})
		url := ""
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline) && url == ""; {
			data, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort"))
			if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); err == nil && len(lines) == 2 {
				url = "ws://127.0.0.1:" + lines[0] + lines[1]
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if url == "" {
			return fmt.Errorf("chromium %s wrote no DevToolsActivePort in %s", path, dir)
		}
		ps.urls = append(ps.urls, url)
		ps.procs = append(ps.procs, cmd)
	}
	w.Emit(trace.E("pool.start", trace.A("browsers", len(ps.urls))))
	return nil
}

// killOnSecond kills a browser, and waits for it to exit, when the run's
// progress says the second scenario starts.
type killOnSecond struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	cmd    *exec.Cmd
	killed bool
}

func (k *killOnSecond) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.buf.Write(p)
	if !k.killed && strings.Contains(k.buf.String(), "\n[2/") {
		k.killed = true
		_ = k.cmd.Process.Kill()
		for range 100 { // until the process is gone
			if err := k.cmd.Process.Signal(syscall.Signal(0)); err != nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return len(p), nil
}

func (k *killOnSecond) String() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.buf.String()
}

func poolRunKill(ctx context.Context, name string) error {
	w := steps.WorldOf(ctx)
	if w.Skipped() {
		return nil
	}
	ps := steps.State[poolState](w)
	if len(ps.urls) != 2 {
		return fmt.Errorf("no two remote browsers are running")
	}
	k := &killOnSecond{cmd: ps.procs[0]}
	k.buf.WriteString("\n")
	return poolRun(ctx, name, ps.urls, k, func() string { return k.String() })
}

func poolRunNone(ctx context.Context, name string) error {
	var buf syncbuf.Buffer
	return poolRun(ctx, name, []string{"ws://127.0.0.1:1/devtools/browser/none", "ws://127.0.0.1:2/devtools/browser/none"}, &buf, buf.String)
}

func poolRun(ctx context.Context, name string, urls []string, stderr interface {
	Write([]byte) (int, error)
}, text func() string) error {
	h, err := scratchProject(ctx)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	s, err := vocabulary.NewRunner(harness.Options{Root: h.root, Paths: []string{filepath.Join("features", name)}, Mode: harness.ModeRecord, Update: true,
		Format: "progress", Output: &out, Concurrency: 1, Scale: harness.Scale{Stderr: stderr, Progress: true}},
		steps.Options{Pool: urls, Stderr: stderr, Groups: Groups()})
	if err != nil {
		return err
	}
	h.exit = s.Run()
	h.output = ansi.ReplaceAllString(out.String()+"\n"+text(), "")
	steps.State[poolState](steps.WorldOf(ctx)).urls = urls
	steps.WorldOf(ctx).Emit(trace.E("harness.run", trace.A("feature", name), trace.A("driver", steps.DriverBrowser), trace.A("pool", len(urls)), trace.A("exit", h.exit)))
	return nil
}

func poolReported(ctx context.Context) error {
	w := steps.WorldOf(ctx)
	if w.Skipped() {
		return nil
	}
	h, _ := scratchProject(ctx)
	ps := steps.State[poolState](w)
	if n := strings.Count(h.output, "endpoint "+ps.urls[0]+" is dead"); n != 1 {
		return fmt.Errorf("the killed browser was reported %d times, want once:\n%s", n, h.output)
	}
	if strings.Contains(h.output, "endpoint "+ps.urls[1]) {
		return fmt.Errorf("the live browser was reported dead:\n%s", h.output)
	}
	w.Emit(trace.E("pool.reported", trace.A("dead", 1)))
	return nil
}
