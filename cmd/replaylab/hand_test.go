package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/conformance"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/site"
	"github.com/replaylab/replaylab/internal/syncbuf"
	"github.com/replaylab/replaylab/internal/testskip"
	"github.com/replaylab/replaylab/sim"
	"github.com/replaylab/replaylab/testsite"
)

// handWait bounds every wait of a recording by hand: generous, so a
// machine under heavy load passes, and bounded, so a broken one fails.
const handWait = 90 * time.Second

// TestRecordByHand records headed sessions by hand (SPEC APP-4): Xvfb is
// the display, `replaylab record --visible` opens the page, and xdotool
// plays the person: a click into the composer, the message typed, a
// click on Send. The recording must hold those three actions and the
// answer's captures through generating to complete, and `validate` must
// find 0 violations in it, on the sim's chat page and on the test site's
// streaming chat app.
func TestRecordByHand(t *testing.T) {
	display := startXvfb(t)
	chromium, err := browser.FindChromium()
	if err != nil {
		handUnavailable(t, err.Error())
	}
	s, err := sim.NewServer(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	ts, err := testsite.Start(testsite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ts.Close() })
	appProfile := filepath.Join("..", "..", "testsite", "chatapp.json")

	tests := []struct {
		name     string
		url      string
		record   []string // record's flags beside --url, --out and --visible
		validate []string // validate's flags beside the session
		codegen  []string // codegen's flags beside --from (the profile named from a project's root)
		composer string   // CSS selector of the composer in the page
		send     string   // CSS selector of the send button
		ready    string   // a JS expression true once the person may type
		text     string   // what the person types
	}{
		{
			name:     "sim chat",
			url:      s.URL + "/chat",
			record:   []string{"--adapter", "marker"},
			validate: []string{"--adapter", "marker"},
			codegen:  []string{"--adapter", "marker"},
			composer: "#prompt",
			send:     "#send",
			ready:    "true",
			text:     "What is the capital of France?",
		},
		{
			name:     "testsite chat app",
			url:      ts.URL + "/app/?stream=2500",
			record:   []string{"--site", appProfile, "--base-url", ts.URL},
			validate: []string{"--site", appProfile},
			codegen:  []string{"--site", "testsite/chatapp.json"},
			composer: "#composer",
			send:     "#send",
			ready:    `!!document.querySelector("#thread[data-ready=true]")`,
			text:     "Tell me about tides",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*handWait)
			defer cancel()
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			rec := startHandRecord(ctx, t, display, chromium, dir, append([]string{"record", "--url", tt.url, "--visible", "--out", out, "--duration", "10m"}, tt.record...))
			page := rec.page(ctx, t, tt.url)
			defer page.Close()

			// the page is loaded and the recorder has captured it
			page.await(ctx, t, tt.ready+` && !!document.querySelector(`+strconv.Quote(tt.composer)+`) && !!document.querySelector(`+strconv.Quote(tt.send)+`)`)
			before := rec.waitLine(ctx, t, "a capture with groups", func(l progress) bool { return l.groups > 0 })
			win := windowOf(ctx, t, display, page)

			// the person: click into the composer, type, click Send
			win.click(ctx, t, page.center(ctx, t, tt.composer))
			page.await(ctx, t, `document.activeElement === document.querySelector(`+strconv.Quote(tt.composer)+`)`)
			xdotool(ctx, t, display, "type", "--delay", "40", tt.text)
			page.await(ctx, t, `(() => { const c = document.querySelector(`+strconv.Quote(tt.composer)+`); return (c.value ?? c.textContent).trim() === `+strconv.Quote(tt.text)+` })()`)
			win.click(ctx, t, page.center(ctx, t, tt.send))
			after := rec.waitLine(ctx, t, "the new answer complete", func(l progress) bool {
				return l.groups == before.groups+1 && l.last != before.last && l.state == "complete"
			})
			_ = page.Close()
			s := rec.stop(t, filepath.Join(out, SessionFile))

			// the recording holds the person's three actions, in order
			var kinds []string
			typed := ""
			for _, st := range s.Steps {
				switch st.Kind {
				case replay.KindClick, replay.KindType, replay.KindPress:
					kinds = append(kinds, string(st.Kind))
				}
				if st.Kind == replay.KindType {
					typed = st.Text
				}
			}
			if got := strings.Join(kinds, ","); got != "click,type,click" {
				t.Errorf("recorded actions %s, want click,type,click", got)
			}
			if typed != tt.text {
				t.Errorf("recorded typed text %q, want %q", typed, tt.text)
			}

			// the answer's captures run through generating to complete
			opt := conformance.DefaultOptions
			ad, _, err := pickAdapter("marker")
			if err != nil {
				t.Fatal(err)
			}
			if tt.validate[0] == "--site" {
				p, err := site.Load(appProfile)
				if err != nil {
					t.Fatal(err)
				}
				opt = conformance.OptionsFor(p)
			}
			rep := conformance.Check("session", s, ad, opt)
			if len(rep.Decisions) != 1 {
				t.Fatalf("%d sends read from the recording, want 1 (the click on Send): %+v", len(rep.Decisions), rep.Decisions)
			}
			d := rep.Decisions[0]
			if d.Group != after.last {
				t.Errorf("the send's new group is %q, the recorder saw %q", d.Group, after.last)
			}
			if strings.Join(d.States, ",") != "generating,complete" {
				t.Errorf("the new group's states %v, want generating then complete", d.States)
			}

			code, stdout, stderr := runCLI(t, append(append([]string{"validate"}, tt.validate...), filepath.Join(out, SessionFile))...)
			if code != exitOK || !strings.Contains(stdout, "0 violations") {
				t.Fatalf("validate: exit %d, want 0 violations:\n%s\n%s\nrecord said:\n%s", code, stdout, stderr, rec.stderr.String())
			}
			// codegen turns the hand session into a feature that passes live
			// and replayed
			codegenHandSession(t, filepath.Join(out, SessionFile), tt.codegen...)
		})
	}
}

// handUnavailable skips the test, or fails it under CI=true, where the
// recordings by hand must run.
func handUnavailable(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and recordings by hand cannot run: %s", why)
	}
	testskip.Skip(t, "SKIPPING recordings by hand: %s", why)
}

// startXvfb starts a virtual display on a free number and returns its
// DISPLAY value; it ends with the test.
func startXvfb(t *testing.T) string {
	t.Helper()
	xvfb, err := exec.LookPath("Xvfb")
	if err != nil {
		handUnavailable(t, "no Xvfb (apt-get install xvfb)")
	}
	if _, err := exec.LookPath("xdotool"); err != nil {
		handUnavailable(t, "no xdotool (apt-get install xdotool)")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// -displayfd: Xvfb picks a free display and writes its number to fd 3
	cmd := exec.Command(xvfb, "-displayfd", "3", "-screen", "0", "1280x1024x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatalf("Xvfb: %v", err)
	}
	_ = w.Close()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	num := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		num <- strings.TrimSpace(line)
	}()
	select {
	case n := <-num:
		if n == "" {
			t.Fatal("Xvfb exited without a display")
		}
		return ":" + n
	case <-time.After(handWait):
		t.Fatalf("Xvfb gave no display in %s", handWait)
	}
	return ""
}

// xdotool runs xdotool on the display and returns its output.
func xdotool(ctx context.Context, t *testing.T, display string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, "xdotool", args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("xdotool %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// handRecord is a running `replaylab record --visible`.
type handRecord struct {
	cmd    *exec.Cmd
	stderr *syncbuf.Buffer
	tmp    string // its TMPDIR: Chromium's profile directory is in it
	exit   chan error
	done   bool // exited
}

// startHandRecord starts the test binary as replaylab with args on the
// display. Chromium is started through a wrapper that also opens a
// DevTools port (the driver talks to it over a pipe), so the test can
// read where the page's elements are.
func startHandRecord(ctx context.Context, t *testing.T, display, chromium, dir string, args []string) *handRecord {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	wrapper := filepath.Join(dir, "chromium")
	script := "#!/bin/sh\nexec " + strconv.Quote(chromium) + " --remote-debugging-port=0 '--remote-allow-origins=*' --window-position=0,0 --window-size=1200,900 \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r := &handRecord{stderr: &syncbuf.Buffer{}, tmp: tmp, exit: make(chan error, 1)}
	r.cmd = exec.Command(self, args...)
	r.cmd.Env = append(os.Environ(), "DISPLAY="+display, "TMPDIR="+tmp, "REPLAYLAB_CHROMIUM="+wrapper)
	r.cmd.Stderr = r.stderr
	r.cmd.Stdout = r.stderr
	// its own process group: a test that fails ends Chromium with it
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.exit <- r.cmd.Wait() }()
	t.Cleanup(func() {
		if r.done {
			return
		}
		_ = r.cmd.Process.Signal(os.Interrupt)
		select {
		case <-r.exit:
		case <-time.After(handWait):
			_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
			<-r.exit
		}
	})
	return r
}

// progress is one of record's progress lines.
type progress struct {
	capture, groups int
	last, state     string
}

var progressLine = regexp.MustCompile(`capture (\d+): (\d+) groups \([^)]*\)(?:, last (\S+) (\S+))?`)

// waitLine waits for a progress line that ok accepts.
func (r *handRecord) waitLine(ctx context.Context, t *testing.T, what string, ok func(progress) bool) progress {
	t.Helper()
	var found progress
	poll(ctx, t, "record to report "+what, func() (bool, string) {
		for _, m := range progressLine.FindAllStringSubmatch(r.stderr.String(), -1) {
			p := progress{last: m[3], state: m[4]}
			p.capture, _ = strconv.Atoi(m[1])
			p.groups, _ = strconv.Atoi(m[2])
			if ok(p) {
				found = p
				return true, ""
			}
		}
		return false, r.stderr.String()
	})
	return found
}

// stop ends the recording as Ctrl-C does and loads what it wrote.
func (r *handRecord) stop(t *testing.T, path string) *replay.Session {
	t.Helper()
	if err := r.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-r.exit:
		r.done = true
		if err != nil {
			t.Fatalf("record: %v\n%s", err, r.stderr.String())
		}
	case <-time.After(handWait):
		t.Fatalf("record did not stop within %s of Ctrl-C:\n%s", handWait, r.stderr.String())
	}
	s, err := replay.Load(path)
	if err != nil {
		t.Fatalf("%v\n%s", err, r.stderr.String())
	}
	return s
}

// page connects to the recorded page's DevTools target.
func (r *handRecord) page(ctx context.Context, t *testing.T, url string) *devtoolsPage {
	t.Helper()
	var port string
	poll(ctx, t, "Chromium's DevTools port", func() (bool, string) {
		files, _ := filepath.Glob(filepath.Join(r.tmp, browser.TempDirPrefix+"*", "DevToolsActivePort"))
		for _, f := range files {
			if data, err := os.ReadFile(f); err == nil {
				if p, _, ok := strings.Cut(string(data), "\n"); ok && p != "" {
					port = p
					return true, ""
				}
			}
		}
		return false, r.stderr.String()
	})
	var ws string
	poll(ctx, t, "the page "+url+" in Chromium", func() (bool, string) {
		resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
		if err != nil {
			return false, err.Error()
		}
		defer resp.Body.Close()
		var targets []struct{ Type, URL, WebSocketDebuggerURL string }
		if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
			return false, err.Error()
		}
		for _, tg := range targets {
			if tg.Type == "page" && tg.URL == url {
				ws = tg.WebSocketDebuggerURL
				return true, ""
			}
		}
		return false, fmt.Sprintf("targets %+v", targets)
	})
	conn, err := websocket.Dial(ws, "", "http://127.0.0.1/")
	if err != nil {
		t.Fatal(err)
	}
	return &devtoolsPage{conn: conn}
}

// devtoolsPage evaluates expressions in a page over the DevTools protocol.
type devtoolsPage struct {
	conn *websocket.Conn
	id   int
}

func (p *devtoolsPage) Close() error { return p.conn.Close() }

// eval evaluates expr (awaiting a promise) and decodes its value into v.
func (p *devtoolsPage) eval(ctx context.Context, expr string, v any) error {
	p.id++
	req := map[string]any{"id": p.id, "method": "Runtime.evaluate", "params": map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}}
	if dl, ok := ctx.Deadline(); ok {
		_ = p.conn.SetDeadline(dl)
	}
	if err := websocket.JSON.Send(p.conn, req); err != nil {
		return err
	}
	for {
		var resp struct {
			ID     int `json:"id"`
			Result struct {
				Result struct {
					Value json.RawMessage `json:"value"`
				} `json:"result"`
				ExceptionDetails *struct {
					Text string `json:"text"`
				} `json:"exceptionDetails"`
			} `json:"result"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := websocket.JSON.Receive(p.conn, &resp); err != nil {
			return err
		}
		if resp.ID != p.id {
			continue // an event
		}
		switch {
		case resp.Error != nil:
			return errors.New(resp.Error.Message)
		case resp.Result.ExceptionDetails != nil:
			return fmt.Errorf("%s: %s", expr, resp.Result.ExceptionDetails.Text)
		}
		return json.Unmarshal(resp.Result.Result.Value, v)
	}
}

// await waits until the expression is true in the page; on time out the
// failure shows what the page had (focus, the composer's text).
func (p *devtoolsPage) await(ctx context.Context, t *testing.T, expr string) {
	t.Helper()
	const seen = `JSON.stringify({focus: document.hasFocus(), active: document.activeElement && document.activeElement.outerHTML.slice(0, 200)})`
	poll(ctx, t, expr, func() (bool, string) {
		var ok bool
		if err := p.eval(ctx, "!!("+expr+")", &ok); err != nil {
			return false, err.Error()
		}
		var state string
		_ = p.eval(ctx, seen, &state)
		return ok, "the page had " + state
	})
}

// center is the middle of the element's box, in the page's CSS pixels.
func (p *devtoolsPage) center(ctx context.Context, t *testing.T, selector string) [2]float64 {
	t.Helper()
	var c [2]float64
	expr := `(() => { const r = document.querySelector(` + strconv.Quote(selector) + `).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2] })()`
	if err := p.eval(ctx, expr, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// window is the page's window on the display and where its content
// starts on the screen.
type window struct {
	display, id string
	x, y        float64
}

// windowOf finds the page's window, raises it above Chromium's other
// windows, and measures where the page's content starts on the screen:
// the offset of a mouse move's screen position from its client position.
func windowOf(ctx context.Context, t *testing.T, display string, p *devtoolsPage) window {
	t.Helper()
	var title string
	if err := p.eval(ctx, "document.title", &title); err != nil {
		t.Fatal(err)
	}
	var id string
	poll(ctx, t, "the window of "+title, func() (bool, string) {
		cmd := exec.CommandContext(ctx, "xdotool", "search", "--onlyvisible", "--name", regexp.QuoteMeta(title))
		cmd.Env = append(os.Environ(), "DISPLAY="+display)
		out, _ := cmd.Output()
		ids := strings.Fields(string(out))
		if len(ids) == 0 {
			return false, "no window"
		}
		id = ids[len(ids)-1]
		return true, ""
	})
	xdotool(ctx, t, display, "windowraise", id)
	const arm = `window.__handOrigin = new Promise(r => addEventListener("mousemove", e => r([e.screenX - e.clientX, e.screenY - e.clientY]), {once: true})); true`
	var armed bool
	if err := p.eval(ctx, arm, &armed); err != nil {
		t.Fatal(err)
	}
	// move within the window's content until the page sees a move
	var origin [2]float64
	poll(ctx, t, "a mouse move in the page", func() (bool, string) {
		xdotool(ctx, t, display, "mousemove", "--window", id, "600", "500", "mousemove_relative", "--", "3", "3")
		var seen bool
		if err := p.eval(ctx, `Promise.race([window.__handOrigin.then(() => true), new Promise(r => setTimeout(() => r(false), 500))])`, &seen); err != nil || !seen {
			return false, fmt.Sprint(err)
		}
		return p.eval(ctx, "window.__handOrigin", &origin) == nil, ""
	})
	return window{display: display, id: id, x: origin[0], y: origin[1]}
}

// click clicks at a point of the page's content.
func (w window) click(ctx context.Context, t *testing.T, at [2]float64) {
	t.Helper()
	x, y := int(w.x+at[0]), int(w.y+at[1])
	xdotool(ctx, t, w.display, "mousemove", strconv.Itoa(x), strconv.Itoa(y), "click", "1")
}

// poll retries f until it holds, within handWait; on time out the test
// fails with what f last said.
func poll(ctx context.Context, t *testing.T, what string, f func() (bool, string)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, handWait)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	last := ""
	for {
		ok, why := f()
		if ok {
			return
		}
		last = why
		select {
		case <-ctx.Done():
			t.Fatalf("waited %s for %s: %s", handWait, what, last)
		case <-tick.C:
		}
	}
}
