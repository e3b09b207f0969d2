package steps

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/cucumber/godog"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/clock"
	"github.com/replaylab/replaylab/engine/driver"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/site"
	"github.com/replaylab/replaylab/engine/trace"
	"github.com/replaylab/replaylab/harness"
	"github.com/replaylab/replaylab/internal/skipnote"
	"github.com/replaylab/replaylab/report"
	"github.com/replaylab/replaylab/sim"
)

// world is one scenario's state; it lives in the scenario's context.
type world struct {
	fx       *Fixture
	sc       *harness.Scenario // the runner's scenario: id, slug, mode, paths, hints
	slug     string
	scenario string // what the recording must replay (harness.Fingerprint)
	steps    string // every step (harness.StepsFingerprint)
	pickle   *godog.Scenario

	chat sim.Chat
	sim  *sim.Server // browser driver only
	base string      // the base URL the engine navigates to
	// clock is what the live sim schedules on and the live pages keep
	// time on: the sim is a lab site, so a lab clock the world owns (CLK-1).
	clock clock.Clock
	// pageLab is the lab a "clock": "page" site's tabs keep time on.
	pageLab *clock.Lab

	// site is the site the scenario drives when it is not the sim (run
	// --site, or the step choosing one); siteLive its live base URL.
	site     *site.Profile
	siteLive string
	siteBase string // the profile's own base_url
	// storage is the scenario's own signed-in state (the step "the
	// storage state …"), put into every tab it opens live (APP-5).
	storage *browser.StorageState

	log      *trace.Log
	scrub    *replay.Scrubber
	adapter  adapter.Adapter // the engine's adapter; default by the chat's style
	eng      *engine.Engine
	task     *engine.Task
	tabs     map[string]*tab
	tabOrder []string
	// current is the tab the page steps act in, the one "I switch to the
	// … tab" chose ("" before any switch: the main tab).
	current string

	answer   *answer.Result
	lastView *engine.View

	cleanups []func()
	skipped  bool
	// recordOnce: this scenario had no recording and runs live to make one.
	recordOnce bool

	// state holds the per-scenario state of step files that need their
	// own, keyed by a type of that file (see stateOf).
	state map[any]any
}

// stateOf returns the scenario's value of type T, creating it on first use.
// Step files keep their own state this way without widening world.
func stateOf[T any](w *world) *T {
	if w.state == nil {
		w.state = map[any]any{}
	}
	var key *T
	if v, ok := w.state[key]; ok {
		return v.(*T)
	}
	v := new(T)
	w.state[key] = v
	return v
}

type worldKey struct{}

func worldOf(ctx context.Context) *world {
	w, _ := ctx.Value(worldKey{}).(*world)
	return w
}

// InitializeScenario binds the steps and the per-scenario hooks.
func (f *Fixture) InitializeScenario(sc *godog.ScenarioContext, hs *harness.Scenario) {
	sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
		w := &world{fx: f, sc: hs, slug: hs.Slug, scenario: harness.Fingerprint(p), steps: harness.StepsFingerprint(p), pickle: p, chat: sim.DefaultChat()}
		w.chat.Seed = f.opt.Seed
		w.log = &trace.Log{}
		switch mode := hs.Mode(); {
		case mode.AlwaysLive():
			if err := w.startSim(); err != nil {
				return ctx, err
			}
		case mode.Decide(hs.Recorded()).Live:
			// record-once and nothing recorded: live from the first step,
			// so a URL a step builds before its page opens is the live one
			if err := w.goLive(); err != nil {
				return ctx, err
			}
		default:
			w.base = CanonicalBase
		}
		// One scrubbing policy for recordings and goldens: the recorder and
		// the trace share the scrubber, so both name a secret the same way.
		// (a storage state's values are secrets too: APP-5)
		w.scrub = replay.NewScrubber(replay.DefaultPatterns, append(replay.SecretsFromEnv(os.Getenv("REPLAYLAB_SECRETS")), w.fx.opt.Browser.StorageState.Secrets()...)...)
		w.log.Normalize = func(v string) string {
			v = strings.ReplaceAll(v, CanonicalBase, TraceBase)
			if w.sim != nil {
				v = strings.ReplaceAll(v, w.sim.URL, TraceBase)
			}
			if w.site != nil {
				v = strings.ReplaceAll(v, SiteCanonicalBase, SiteTraceBase)
				if w.siteLive != "" {
					v = strings.ReplaceAll(v, w.siteLive, SiteTraceBase)
				}
			}
			return w.scrub.Scrub(v)
		}
		if f.site != nil {
			if err := w.useSite(f.site); err != nil {
				return ctx, err
			}
		}
		return context.WithValue(ctx, worldKey{}, w), nil
	})
	sc.After(func(ctx context.Context, p *godog.Scenario, stepErr error) (context.Context, error) {
		w := worldOf(ctx)
		if w == nil {
			return ctx, nil
		}
		return ctx, w.finish(stepErr)
	})
	f.bind(sc)
	guardSimSteps(sc)
}

func (w *world) sessionPath(tab string) string { return w.sc.SessionPath(tab) }

// worldPage returns the scenario's world and its current tab, opening
// the tab on first use: the preamble of every step that drives the page.
func worldPage(ctx context.Context) (*world, *engine.Page, error) {
	w := worldOf(ctx)
	p, err := w.tabPage(ctx)
	return w, p, err
}

// currentTab names the tab the page steps act in: the one switched to
// last, else the main tab.
func (w *world) currentTab() string {
	if w.current == "" {
		return mainTab
	}
	return w.current
}

// tabPage returns the current tab of the scenario's task; the main
// tab is opened first, since it starts the task.
func (w *world) tabPage(ctx context.Context) (*engine.Page, error) {
	p, err := w.ensurePage(ctx)
	if err != nil || w.currentTab() == mainTab {
		return p, err
	}
	return w.ensureTab(ctx, w.currentTab())
}

// ensurePage returns the scenario's main tab.
func (w *world) ensurePage(ctx context.Context) (*engine.Page, error) {
	return w.ensureTab(ctx, mainTab)
}

// mainTab is the name of the page every scenario starts with.
const mainTab = harness.MainTab

// tab is one page of the scenario's task with its driver.
type tab struct {
	page    *engine.Page
	bpage   *browser.Page
	rec     *replay.Recorder // live: the recorder (tabCassette.Record)
	replay  *replay.Driver   // replayed (tabCassette.Load)
	session *replay.Session  // the loaded recording (replay)
}

// session returns the tab's session: the one being recorded (live) or the
// one replayed.
func (t *tab) recorded() *replay.Session {
	if t.rec != nil {
		return t.rec.Session()
	}
	return t.session
}

// ensureTab opens the named tab on first use: the runner decides whether
// it replays its recorded session or runs live in a new browser page
// through a recorder (harness.Scenario.Driver, with the vocabulary's
// tabCassette); openLive opens that page.
func (w *world) ensureTab(ctx context.Context, name string) (*engine.Page, error) {
	if t, ok := w.tabs[name]; ok {
		return t.page, nil
	}
	if w.eng == nil {
		if w.adapter == nil {
			if w.chat.Style == sim.StyleList {
				return nil, fmt.Errorf(`no built-in adapter reads the list style: add "the engine reads the chat with the adapter file \"docs/examples/listchat.json\""`)
			}
			ad, err := adapter.ByName(w.chat.Style)
			if err != nil {
				return nil, err
			}
			w.adapter = ad
		}
		w.eng = engine.New(engine.Config{Tracer: w.log, Adapter: w.adapter, Ready: w.profile().Readiness(), Settle: w.profile().Settle})
	}
	if w.task == nil {
		w.task = w.eng.Begin(ctx, w.slug)
	}
	t := &tab{}
	d, err := w.sc.Driver(ctx, name, tabCassette{w: w, t: t}, func(ctx context.Context) (driver.Driver, error) { return w.openLive(ctx, t) })
	if err != nil {
		return nil, err
	}
	t.page = w.task.Page(name, d)
	if w.tabs == nil {
		w.tabs = map[string]*tab{}
	}
	w.tabs[name] = t
	w.tabOrder = append(w.tabOrder, name)
	return t.page, nil
}

// openLive opens a tab live: a new page of the shared browser on the
// scenario's clock, with its storage state. A scenario replayed so far
// (record-once with nothing recorded) goes live first.
func (w *world) openLive(ctx context.Context, t *tab) (driver.Driver, error) {
	if !w.sc.Mode().AlwaysLive() {
		// record-once: this scenario has no recording and runs live
		if err := w.goLive(); err != nil {
			return nil, err
		}
	}
	b, err := w.fx.sharedBrowser(ctx)
	if err != nil {
		return nil, err
	}
	bp, err := b.NewPage(ctx)
	if err != nil {
		return nil, err
	}
	t.bpage = bp
	if w.storage != nil {
		if err := bp.ApplyStorageState(ctx, w.storage); err != nil {
			_ = bp.Close()
			return nil, err
		}
	}
	if err := w.keepTime(ctx, bp); err != nil {
		_ = bp.Close()
		return nil, err
	}
	return bp, nil
}

// finish runs after the scenario: the runner compares the golden and
// checks and saves the tabs' sessions; then the pages, servers
// and the sim are closed.
func (w *world) finish(stepErr error) error {
	ad := w.adapter
	out := harness.Outcome{Err: stepErr, Skipped: w.skipped, Trace: trace.Golden(w.log.Events()),
		View: func(c *capture.Capture) report.CaptureView { return viewOf(ad, c) }}
	err := w.sc.Finish(out)
	for _, name := range w.tabOrder {
		if t := w.tabs[name]; t.bpage != nil {
			_ = t.bpage.Close()
		}
	}
	for _, fn := range w.cleanups {
		fn()
	}
	if w.sim != nil {
		_ = w.sim.Close()
	}
	return err
}

// goLive switches a replay-driver scenario that has no recording to the
// live sim and browser (ModeRecordOnce): the sim gets the chat scripted so
// far and the engine navigates to it.
func (w *world) goLive() error {
	if w.sim == nil {
		if err := w.startSim(); err != nil {
			return err
		}
		w.sim.SetChat(w.chat)
	}
	w.base = w.sim.URL
	if w.site != nil {
		w.base = w.siteLive
	}
	w.recordOnce = true
	return nil
}

// startSim starts the scenario's live sim on a lab clock of its own: the
// sim schedules its transitions on it, the scenario's live pages keep time
// on it, and it waits for the sim's pages to acknowledge what they
// rendered (clock.Gate).
func (w *world) startSim() error {
	lab := clock.NewLab(clock.Epoch)
	srv, err := sim.NewServer(sim.Options{Seed: w.fx.opt.Seed, Clock: lab})
	if err != nil {
		return err
	}
	lab.AddGate(srv)
	w.sim, w.base, w.clock = srv, srv.URL, lab
	return nil
}

// skip ends the scenario as skipped with a visible message; its golden is
// not compared (there is no trace to compare) and not reported obsolete.
func (w *world) skip(msg string) error {
	w.skipped = true
	fmt.Fprintln(os.Stderr, msg)
	skipnote.Record(msg) // printed again when go test ends (testskip.Main)
	return fmt.Errorf("%w: %s", godog.ErrSkip, msg)
}

// onFinish registers fn to run when the scenario ends (step files close
// the servers they started this way).
func (w *world) onFinish(fn func()) { w.cleanups = append(w.cleanups, fn) }

// keepTime puts a live page on the scenario's clock: the sim and a site
// whose profile says "clock": "lab" on the world's lab; a site whose
// profile says "clock": "page" with its own JavaScript on a lab of the
// scenario's (the page clock: every tab of the scenario on the same lab);
// any other site keeps wall time.
func (w *world) keepTime(ctx context.Context, bp *browser.Page) error {
	if w.site == nil || w.site.Clock == site.ClockLab {
		bp.SetClock(w.clock)
		return nil
	}
	if w.site.Clock != site.ClockPage {
		w.clock = clock.Wall // a real site keeps wall time (its profile's "clock")
		bp.SetClock(w.clock)
		return nil
	}
	if w.pageLab == nil {
		w.pageLab = clock.NewLab(clock.Epoch)
	}
	w.clock = w.pageLab
	return bp.InstallPageClock(ctx, w.pageLab)
}
