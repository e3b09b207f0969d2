package browser_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/observe"

	"github.com/replaylab/replaylab/internal/testskip"
)

var (
	shared     *browser.Browser
	sharedErr  error
	sharedOnce sync.Once
)

// TestMain shares one browser across the tests and checks that no browser
// process or temp dir outlives them.
func TestMain(m *testing.M) {
	code := testskip.Main(m)
	if shared != nil {
		if err := shared.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "close browser:", err)
			code = 1
		}
	}
	if leaks := browser.Leaks(); len(leaks) > 0 {
		fmt.Fprintf(os.Stderr, "LEAK: browsers started by these tests left behind: %v\n", leaks)
		code = 1
	}
	os.Exit(code)
}

// newPage opens a fresh tab on the shared browser; without Chromium the
// test skips locally and fails in CI.
func newPage(t *testing.T) *browser.Page {
	t.Helper()
	if _, err := browser.FindChromium(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %v", err)
		}
		testskip.Skip(t, "SKIPPING browser tests: %v", err)
	}
	sharedOnce.Do(func() { shared, sharedErr = browser.Start(context.Background(), browser.Options{}) })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	p, err := shared.NewPage(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func serve(tb testing.TB, pages map[string]string) *httptest.Server {
	tb.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(body))
	}))
	tb.Cleanup(srv.Close)
	return srv
}

const livePage = `<!doctype html><html><head><title>Live</title></head><body>
<input id="name" aria-label="Name" value="initial">
<input id="agree" type="checkbox" aria-label="Agree">
<select aria-label="Colour"><option>red</option><option selected>green</option></select>
<div style="display:none"><button>Hidden by display</button></div>
<div style="visibility:hidden"><button>Hidden by visibility</button></div>
<div class="later"><button>Shown later</button></div>
<button id="go" onclick="document.getElementById('out').textContent='clicked '+document.getElementById('name').value">Go</button>
<p id="out"></p>
<iframe srcdoc="<button>In frame</button>"></iframe>
<style>.later{display:none}</style>
<script>document.getElementById('agree').checked = true;</script>
</body></html>`

func TestCaptureWritesLiveState(t *testing.T) {
	ctx := context.Background()
	p := newPage(t)
	srv := serve(t, map[string]string{"/": livePage})
	if err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	c, err := p.Capture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Version != capture.FormatVersion || c.Title != "Live" || !strings.HasPrefix(c.URL, srv.URL) {
		t.Fatalf("capture header: %+v", c)
	}
	if len(c.Frames) != 2 || c.Frames[1].Parent != capture.MainFrame || c.Frames[1].Owner == "" {
		t.Fatalf("frames: want main and one srcdoc child, got %d: %+v", len(c.Frames), c.Frames)
	}
	doc, err := observe.Parse(c)
	if err != nil {
		t.Fatal(err)
	}
	o := observe.Observe(doc, 1, observe.Options{})
	names := map[string]observe.Element{}
	for _, e := range o.All {
		names[e.Name] = e
	}
	for _, hidden := range []string{"Hidden by display", "Hidden by visibility", "Shown later"} {
		if _, ok := names[hidden]; ok {
			t.Errorf("%q is hidden in the browser but observed as a candidate", hidden)
		}
	}
	if e, ok := names["Agree"]; !ok || e.Checked == nil || !*e.Checked {
		t.Errorf("checkbox checked by script: got %+v", e)
	}
	if e := names["Name"]; e.RealValue() != "initial" {
		t.Errorf("input value: got %q", e.RealValue())
	}
	if e := names["Colour"]; e.RealValue() != "green" {
		t.Errorf("select value: got %q", e.RealValue())
	}
	if e, ok := names["In frame"]; !ok || e.Frame != "f1" {
		t.Errorf("iframe button: got %+v ok=%v", e, ok)
	}
	for _, e := range o.All {
		if e.Node == "" || strings.Contains(e.Node, ":") {
			t.Errorf("element %q has no backend node id: %q", e.Name, e.Node)
		}
	}
}

func TestActOnNodes(t *testing.T) {
	ctx := context.Background()
	p := newPage(t)
	srv := serve(t, map[string]string{"/": livePage})
	if err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	find := func(name string) observe.Element {
		t.Helper()
		c, err := p.Capture(ctx)
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := observe.Parse(c)
		for _, e := range observe.Observe(doc, 1, observe.Options{}).All {
			if e.Name == name {
				return e
			}
		}
		t.Fatalf("no element named %q", name)
		return observe.Element{}
	}
	if err := p.Type(ctx, find("Name").Node, "typed once"); err != nil {
		t.Fatal(err)
	}
	if got := find("Name").RealValue(); got != "typed once" {
		t.Fatalf("after typing: %q", got)
	}
	if err := p.Click(ctx, find("Go").Node); err != nil {
		t.Fatal(err)
	}
	c, _ := p.Capture(ctx)
	if !strings.Contains(c.Frames[0].HTML, "clicked typed once") {
		t.Fatal("click did not run the page's handler")
	}
	if err := p.Press(ctx, find("Go").Node, "Enter"); err != nil {
		t.Fatal(err)
	}
	if err := p.Press(ctx, find("Go").Node, "NoSuchKey"); err == nil {
		t.Fatal("unknown key accepted")
	}
	if err := p.Click(ctx, "not-a-node"); err == nil {
		t.Fatal("a node id that is not a backend id was accepted")
	}
}

// TestRemoteBrowser attaches to a Chromium that is already running, over
// its CDP websocket URL.
func TestRemoteBrowser(t *testing.T) {
	path, err := browser.FindChromium()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %v", err)
		}
		testskip.Skip(t, "SKIPPING browser tests: %v", err)
	}
	dir, err := os.MkdirTemp("", browser.TempDirPrefix+"remote-*")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--headless", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--user-data-dir=" + dir}
	for k := range browser.Flags {
		args = append(args, "--"+k)
	}
	cmd := exec.Command(path, append(args, "about:blank")...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = os.RemoveAll(dir)
	})
	// Chromium starts in its own time: poll for its port file, bounded
	// against a hang only
	var ws string
	for start := time.Now(); time.Since(start) < 2*time.Minute; {
		if data, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort")); err == nil {
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			if len(lines) == 2 {
				ws = "ws://127.0.0.1:" + lines[0] + lines[1]
				break
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if ws == "" {
		t.Fatal("the remote Chromium wrote no DevToolsActivePort in 2 minutes (a hang guard)")
	}
	ctx := context.Background()
	b, err := browser.Start(ctx, browser.Options{RemoteURL: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	srv := serve(t, map[string]string{"/": `<button>Remote</button>`})
	if err := p.Navigate(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	c, err := p.Capture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Frames[0].HTML, "Remote") {
		t.Fatalf("capture over the remote connection: %s", c.Frames[0].HTML)
	}
}

// TestLeakCheckSeesARunningBrowser proves the TestMain check can fail: a
// started browser is reported until Close has ended it and removed its dir.
func TestLeakCheckSeesARunningBrowser(t *testing.T) {
	if _, err := browser.FindChromium(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %v", err)
		}
		testskip.Skip(t, "SKIPPING browser tests: %v", err)
	}
	before := len(browser.Leaks())
	b, err := browser.Start(context.Background(), browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := browser.Leaks(); len(got) < before+2 {
		_ = b.Close()
		t.Fatalf("a running browser is not reported: %v", got)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if got := browser.Leaks(); len(got) != before {
		t.Fatalf("after Close: %v", got)
	}
}

// TestSparePage: with Options.SparePage the next page is opened ahead after
// a navigation; the page NewPage then returns is a fresh browser context of
// its own (no storage of the page before it) that navigates and captures.
func TestSparePage(t *testing.T) {
	if _, err := browser.FindChromium(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %v", err)
		}
		testskip.Skip(t, "SKIPPING browser tests: %v", err)
	}
	ctx := context.Background()
	b, err := browser.Start(ctx, browser.Options{SparePage: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	}()
	srv := serve(t, map[string]string{"/": `<!doctype html><title>spare</title><p id=out></p><script>
document.getElementById("out").textContent = localStorage.getItem("k") || "empty"; localStorage.setItem("k", "set by the page before");</script>`})
	var took []time.Duration
	for i := range 3 {
		t0 := time.Now()
		p, err := b.NewPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		took = append(took, time.Since(t0))
		if err := p.Navigate(ctx, srv.URL+"/"); err != nil {
			t.Fatal(err)
		}
		c, err := p.Capture(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(c.Frames[0].HTML, ">empty</p>") {
			t.Fatalf("page %d is not a fresh browser context: %s", i, c.Frames[0].HTML)
		}
		if i < 2 {
			time.Sleep(500 * time.Millisecond) // the spare opens meanwhile
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("NewPage took %v (the first without a spare)", took)
}
