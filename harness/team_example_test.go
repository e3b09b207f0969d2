package harness_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/driver"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/harness"
)

// pageTeam is a second team's vocabulary with a page: three steps that
// open a page, read it and check what it says, on a driver the runner
// hands out per tab (Scenario.Driver). The runner decides whether the
// tab runs live (recorded) or replays its session; the team only says
// how to open the page live and which recording format to use.
type pageTeam struct {
	live   string // the live site's URL
	forget bool   // a buggy fixture: its After hook never calls Finish
}

// canonical is the base URL the sessions and traces name, whatever port
// the live site had.
const canonical = "http://site.test"

// pageRun is one scenario's state.
type pageRun struct {
	s     *harness.Scenario
	d     driver.Driver
	base  string
	page  *capture.Capture
	trace strings.Builder
}

func (t pageTeam) steps(run *pageRun) []harness.StepDef {
	return []harness.StepDef{
		{Group: "Pages", Pattern: `^I open "([^"]*)"$`, Meaning: "opens the page at the path", Example: `When I open "/"`,
			Fn: func(ctx context.Context, path string) error {
				d, err := run.s.Driver(ctx, harness.MainTab, exampleCassette{live: t.live}, func(context.Context) (driver.Driver, error) {
					return &httpDriver{}, nil
				})
				if err != nil {
					return err
				}
				run.d, run.base = d, canonical
				if run.s.Live(harness.MainTab) {
					run.base = t.live
				}
				fmt.Fprintf(&run.trace, "open %s\n", path)
				return d.Navigate(ctx, run.base+path)
			}},
		{Group: "Pages", Pattern: `^I read the page$`, Meaning: "captures the page", Example: `When I read the page`,
			Fn: func(ctx context.Context) error {
				if run.d == nil {
					return errors.New(`no page is open: add When I open "/"`)
				}
				c, err := run.d.Capture(ctx)
				run.page = c
				return err
			}},
		{Group: "Pages", Pattern: `^the page says "([^"]*)"$`, Meaning: "the page read last holds the text", Example: `Then the page says "Hello"`,
			Fn: func(ctx context.Context, want string) error {
				if run.page == nil || !strings.Contains(run.page.Frames[0].HTML, want) {
					return fmt.Errorf("the page does not say %q", want)
				}
				fmt.Fprintf(&run.trace, "says %s\n", want)
				return nil
			}},
	}
}

func (t pageTeam) Catalogue() []harness.StepDef { return t.steps(&pageRun{}) }

func (t pageTeam) InitializeScenario(sc *godog.ScenarioContext, s *harness.Scenario) {
	run := &pageRun{s: s}
	harness.Bind(sc, t.steps(run))
	if t.forget {
		return
	}
	sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
		return ctx, s.Finish(harness.Outcome{Err: err, Trace: []byte(run.trace.String())})
	})
}

func (pageTeam) Close() error { return nil }

// httpDriver is the team's live driver: a GET per navigation, the body
// as the page.
type httpDriver struct{ url, body string }

func (h *httpDriver) Navigate(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	h.url, h.body = url, string(b)
	return err
}
func (h *httpDriver) Capture(context.Context) (*capture.Capture, error) {
	return capture.New(h.url, h.body), nil
}
func (h *httpDriver) Click(context.Context, string) error         { return nil }
func (h *httpDriver) Type(context.Context, string, string) error  { return nil }
func (h *httpDriver) Press(context.Context, string, string) error { return nil }
func (h *httpDriver) Now() time.Time                              { return time.Unix(0, 0) }
func (h *httpDriver) Sleep(context.Context, time.Duration) error  { return nil }

// exampleCassette keeps the team's sessions in engine/replay's format,
// the live URL stored as the canonical one.
type exampleCassette struct{ live string }

func (c exampleCassette) Load(path string) (harness.Tape, error) {
	s, err := replay.Load(path)
	if err != nil {
		return nil, err
	}
	return replayed{replay.NewDriver(s), s}, nil
}

func (c exampleCassette) Record(live driver.Driver, fingerprint string) (harness.Tape, error) {
	rec := replay.NewRecorder(live, canonical, replay.Hooks{Rewrite: replay.BaseRewriter(canonical, c.live)})
	rec.SetScenario(fingerprint)
	return recording{rec}, nil
}

type replayed struct {
	d *replay.Driver
	s *replay.Session
}

func (t replayed) Driver() driver.Driver        { return t.d }
func (t replayed) Fingerprint() string          { return t.s.Scenario }
func (t replayed) Position() int                { return t.d.Position() }
func (t replayed) Unused() []string             { return t.d.Unused() }
func (t replayed) Save(string) error            { return nil }
func (t replayed) Recording() harness.Recording { return harness.Recording{} }

type recording struct{ rec *replay.Recorder }

func (t recording) Driver() driver.Driver        { return t.rec }
func (t recording) Fingerprint() string          { return t.rec.Session().Scenario }
func (t recording) Position() int                { return t.rec.Len() }
func (t recording) Unused() []string             { return nil }
func (t recording) Save(path string) error       { return t.rec.Session().Save(path) }
func (t recording) Recording() harness.Recording { return harness.Recording{} }

// A second team's program: its own three steps drive a page through the
// driver the runner hands out. Run once in record-once against a small
// local site, the runner records the session and creates the golden; run
// again replay-only with the site gone, it replays; a fixture that forgets
// Scenario.Finish fails instead of passing unchecked.
func Example_secondTeam() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><body><h1>Hello, Ada</h1></body></html>")
	}))
	root, _ := os.MkdirTemp("", "harness-team-")
	defer os.RemoveAll(root)
	_ = os.MkdirAll(filepath.Join(root, "features"), 0o755)
	_ = os.WriteFile(filepath.Join(root, "features", "greet.feature"), []byte(`Feature: Greet
  Scenario: The page greets
    When I open "/"
    And I read the page
    Then the page says "Hello, Ada"
`), 0o644)
	run := func(mode harness.Mode, team pageTeam) {
		var out bytes.Buffer
		r, err := harness.New(harness.Options{Root: root, Dir: root, Mode: mode, Format: "progress", Output: &out, Stderr: io.Discard, Command: []string{"team-run"}}, team)
		if err != nil {
			fmt.Println(err)
			return
		}
		code := r.Run()
		fmt.Println(mode, "exit", code, "did not finish:", strings.Contains(out.String(), "did not finish"))
	}
	run(harness.ModeRecordOnce, pageTeam{live: site.URL})
	site.Close()
	run(harness.ModeReplayOnly, pageTeam{live: site.URL})
	run(harness.ModeReplayOnly, pageTeam{live: site.URL, forget: true})

	golden, _ := os.ReadFile(filepath.Join(root, "recordings", "golden", "greet", "the-page-greets.golden"))
	fmt.Print(string(golden))
	session, _ := os.ReadFile(filepath.Join(root, "recordings", "sessions", "greet", "the-page-greets.json"))
	fmt.Println("session names the live port:", strings.Contains(string(session), site.URL))
	// Output:
	// record-once exit 0 did not finish: false
	// replay exit 0 did not finish: false
	// replay exit 1 did not finish: true
	// open /
	// says Hello, Ada
	// session names the live port: false
}
