package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/browser"
	"github.com/replaylab/replaylab/engine/conformance"
	"github.com/replaylab/replaylab/engine/errcode"
	"github.com/replaylab/replaylab/engine/replay"
	"github.com/replaylab/replaylab/engine/site"
	"github.com/replaylab/replaylab/engine/trace"
)

// SiteCanonicalBase is what a site's base URL is recorded as (the sim's is
// CanonicalBase), and SiteTraceBase what goldens show in its place.
const (
	SiteCanonicalBase = "http://site.replaylab.test"
	SiteTraceBase     = "{site}"
)

func siteSteps(r *table) {
	const g = "Sites and pages"
	r.step(g, `^the site "([^"]*)"$`,
		"the scenario drives the site that profile describes (path from the project root; see docs/adapters.md) instead of the sim; choose it before the first page step",
		`Given the site "testsite/testsite.json"`, givenSite, loadsFile(0, "site profile", loadProfile))
	r.step(g, `^I open "([^"]*)"$`,
		"the engine navigates to that path on the site's base URL (an absolute URL is opened as it is); a page answering 4xx/5xx, or not at all, fails the step with the status",
		`When I open "/?history=4"`, openPath, isAction, defaults(readyWait))
	r.step(g, `^I open the URL "([^"]*)"$`,
		"the engine navigates to that absolute URL as it is (never glued onto the site's address); error pages fail the step",
		`When I open the URL "http://127.0.0.1:9/"`, openURL, isAction, defaults(readyWait))
	r.step(g, `^I open "([^"]*)" expecting an error page$`,
		"the same navigation, but a 4xx/5xx answer is expected: the step fails when the page answers 2xx/3xx; check the status with \"the page answered N\"",
		`When I open "/missing" expecting an error page`, openExpectingError, defaults(readyWait))
	r.step(g, `^the page answered (\d+)$`, "the HTTP status of the last navigation",
		"Then the page answered 404", pageAnswered)
	r.step(g, `^I wait for the page to be ready$`,
		"waits (bounded) until the page is ready to be read: the site profile's \"ready\", or when it names none no request in flight and the DOM quiet (opening a page waits for it already; use this after a click that opened another page); fails with PAGE_NOT_READY naming what was awaited",
		"When I wait for the page to be ready", waitReady, isAction, defaults(readyWait))
}

func waitReady(ctx context.Context) error {
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	return w.kept(p.AwaitReady(ctx))
}

// simOnly reports whether a step needs the sim: it is marked so
// (needsSim), its group is a sim group, or its pattern names the sim (sim
// pages, sim URLs, what the sim received).
func simOnly(d StepDef) bool {
	return d.NeedsSim || strings.Contains(d.Group, "(sim)") || simWord.MatchString(d.Pattern)
}

var simWord = regexp.MustCompile(`\bsim\b`)

// guardSimSteps refuses a sim-only step in a scenario on another site,
// naming the step and the site.
func guardSimSteps(sc *godog.ScenarioContext) {
	sc.StepContext().Before(func(ctx context.Context, st *godog.Step) (context.Context, error) {
		w := worldOf(ctx)
		if w == nil {
			return ctx, nil
		}
		return ctx, w.refuseSimStep(st.Text)
	})
}

// refuseSimStep returns the refusal of a sim-only step on a site other
// than the sim, nil otherwise.
func (w *world) refuseSimStep(text string) error {
	if w.site == nil {
		return nil
	}
	for _, re := range w.fx.simOnly {
		if re.MatchString(text) {
			return fmt.Errorf("the step %q needs the sim, but this scenario drives the site %q (%s); use the site steps (replaylab steps: \"Sites and pages\") or drop the site", text, w.site.Name, w.site.Source)
		}
	}
	return nil
}

func strconvQuote(s string) string { return strconv.Quote(s) }

// loadSite reads a profile named from the project root.
func (w *world) loadSite(path string) (*site.Profile, error) {
	return site.LoadIn(path, w.sc.Root())
}

func givenSite(ctx context.Context, path string) error {
	w := worldOf(ctx)
	p, err := w.loadSite(path)
	if err != nil {
		return err
	}
	return w.useSite(p)
}

// useSite points the scenario at p: live, at its base URL (or the run's
// override); replayed, at SiteCanonicalBase.
func (w *world) useSite(p *site.Profile) error {
	if len(w.tabs) > 0 {
		return fmt.Errorf("choose the site before the first step that opens a page (a page is open on %s already)", w.profileName())
	}
	live := p.BaseURL
	if u := w.fx.baseURLFor(p.Name); u != "" {
		live = strings.TrimRight(u, "/")
	}
	w.site = p.WithBase(live)
	w.siteLive = live
	w.siteBase = strings.TrimRight(p.BaseURL, "/")
	w.adapter = p.Reader()
	if w.sc.Mode().AlwaysLive() || w.recordOnce {
		if w.hasTag(ReplayOnlyTag) {
			return w.skip(fmt.Sprintf("SKIPPING %s: %s: its sessions were recorded live from a site this run does not serve (%s); it runs replayed", w.slug, ReplayOnlyTag, p.BaseURL))
		}
		w.base = live
	} else {
		w.base = SiteCanonicalBase
	}
	return nil
}

// ReplayOnlyTag marks a scenario whose sessions were recorded live from
// a site the suite's live runs do not serve (a zoo site, started by its
// own project): a live run skips it with a note, a replay runs it.
const ReplayOnlyTag = "@replay-only"

// hasTag reports whether the scenario (or its feature) has tag.
func (w *world) hasTag(tag string) bool {
	if w.pickle == nil {
		return false
	}
	for _, t := range w.pickle.Tags {
		if t.Name == tag {
			return true
		}
	}
	return false
}

func (w *world) profileName() string {
	if w.site != nil {
		return "the site " + w.site.Name
	}
	return "the sim"
}

// profile is the scenario's site: the chosen one, or the sim's built-in
// profile at the scenario's base.
func (w *world) profile() *site.Profile {
	if w.site != nil {
		return w.site.WithBase(w.base)
	}
	return site.Sim(w.base, w.adapter)
}

// sendThrough sends text through the profile (site.Profile.SendMessage): the
// baseline for "I wait for the answer" is set here on any site.
func sendThrough(ctx context.Context, p actPage, prof *site.Profile, text string, wait time.Duration) error {
	return prof.SendMessage(ctx, p, text, wait)
}

type navState struct {
	status int
	opened bool
}

// navigate opens u on page p and fails on an error page (GATE-4): a
// 4xx/5xx answer fails with its status, no answer with the reason.
// expectError inverts the check.
func (w *world) navigate(ctx context.Context, p interface {
	Navigate(context.Context, string) error
}, u string, expectError bool) error {
	st := stateOf[navState](w)
	st.opened, st.status = true, 0
	if err := p.Navigate(ctx, u); err != nil {
		if errcode.Of(err) == engine.PageNotReady {
			return fmt.Errorf("%s answered but did not get ready: %w", u, err)
		}
		if expectError {
			w.log.Emit(trace.E("page.status", trace.A("url", u), trace.A("status", "no answer")))
			return nil
		}
		return fmt.Errorf("%s did not answer: %w", u, err)
	}
	st.status = w.statusOf(w.currentTab())
	switch {
	case expectError && st.status > 0 && st.status < 400:
		return fmt.Errorf("%s answered %d, but an error page was expected", u, st.status)
	case expectError:
		w.log.Emit(trace.E("page.status", trace.A("url", u), trace.A("status", st.status)))
	case st.status >= 400:
		return fmt.Errorf("%s answered %d (an error page); if the scenario means it, write: When I open %q expecting an error page", u, st.status, u)
	}
	return nil
}

// statusOf is the HTTP status of the tab's last navigation (0 unknown:
// recordings made before statuses were kept).
func (w *world) statusOf(tab string) int {
	t, ok := w.tabs[tab]
	if !ok {
		return 0
	}
	var sr replay.StatusReporter
	switch {
	case t.rec != nil:
		sr = t.rec
	case t.replay != nil:
		sr = t.replay
	default:
		return 0
	}
	return sr.NavigationStatus()
}

func openPath(ctx context.Context, path string) error {
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	return w.kept(w.navigate(ctx, p, w.profile().URL(path), false))
}

func openURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return fmt.Errorf("%q is not an absolute URL; for a path on the site write: When I open %q", raw, raw)
	}
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	return w.kept(w.navigate(ctx, p, raw, false))
}

func openExpectingError(ctx context.Context, path string) error {
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	return w.navigate(ctx, p, w.profile().URL(path), true)
}

func pageAnswered(ctx context.Context, want int) error {
	st := stateOf[navState](worldOf(ctx))
	if !st.opened {
		return errors.New("no page was opened yet")
	}
	if st.status == 0 {
		return fmt.Errorf("the last navigation got no answer (or its status was not recorded), want %d", want)
	}
	if st.status != want {
		return fmt.Errorf("the page answered %d, want %d", st.status, want)
	}
	return nil
}

func siteRefusalSteps(r *table) {
	const g = "Sites and pages"
	r.step(g, `^the step "([^"]*)" is refused naming the site "([^"]*)"$`,
		"a step that needs the sim is refused on this scenario's site, and the refusal names the step and the site",
		`Then the step "the next answer never comes" is refused naming the site "testsite"`, stepRefused)
	r.step(g, `^opening "([^"]*)" fails with "([^"]*)"$`,
		"opening that path (as \"I open\" would, not expecting an error page) fails, and the failure says this",
		`Then opening "/broken" fails with "answered 500"`, openingFails)
}

func stepRefused(ctx context.Context, text, name string) error {
	w := worldOf(ctx)
	err := w.refuseSimStep(text)
	if err == nil {
		return fmt.Errorf("the step %q was not refused on %s", text, w.profileName())
	}
	for _, want := range []string{strconvQuote(text), strconvQuote(name)} {
		if !strings.Contains(err.Error(), want) {
			return fmt.Errorf("the refusal %q does not name %s", err, want)
		}
	}
	return nil
}

func openingFails(ctx context.Context, path, want string) error {
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	err = w.navigate(ctx, p, w.profile().URL(path), false)
	if err == nil {
		return fmt.Errorf("opening %s did not fail", path)
	}
	if !strings.Contains(err.Error(), want) {
		return fmt.Errorf("opening %s failed with %q, which does not say %q", path, err, want)
	}
	return nil
}

func siteValidateSteps(r *table) {
	const g = "Sites and pages"
	r.step(g, `^validating the recording "([^"]*)" with the site "([^"]*)" (passes|reports "([^"]*)")$`,
		"replaylab validate's checks over a recorded session file (paths from the project root) with a site profile's adapter, controls and signals: no violation, or a violation of that check",
		`Then validating the recording "testsite/recordings/send/session.json" with the site "testsite/testsite.json" passes`, validateRecording,
		loadsFile(1, "site profile", loadProfile))
	r.step(g, `^validating the recording "([^"]*)" with the site "([^"]*)" and the adapter "([^"]*)" reports "([^"]*)"$`,
		"the same checks with the profile's adapter replaced by another (a broken one): they report a violation of that check",
		`Then validating the recording "testsite/recordings/send/session.json" with the site "testsite/testsite.json" and the adapter "testsite/broken/swapped-speakers.adapter.json" reports "speakers-swapped"`, validateRecordingWith,
		loadsFile(1, "site profile", loadProfile), loadsFile(2, "adapter file", loadAdapter))
}

func validateRecording(ctx context.Context, rec, profile, verdict, check string) error {
	return checkRecording(ctx, rec, profile, "", check)
}

func validateRecordingWith(ctx context.Context, rec, profile, adapterFile, check string) error {
	return checkRecording(ctx, rec, profile, adapterFile, check)
}

func checkRecording(ctx context.Context, rec, profile, adapterFile, check string) error {
	w := worldOf(ctx)
	p, err := w.loadSite(profile)
	if err != nil {
		return err
	}
	if adapterFile != "" {
		data, err := os.ReadFile(w.adapterPath(adapterFile))
		if err != nil {
			return err
		}
		if p.Adapter, err = adapter.ParseFile(data, adapterFile); err != nil {
			return err
		}
	}
	s, err := replay.Load(w.adapterPath(rec))
	if err != nil {
		return err
	}
	rep := conformance.Check(rec, s, p.Reader(), conformance.OptionsFor(p))
	text := conformance.Quiet([]conformance.Session{rep})
	if check == "" {
		if rep.Errors() > 0 {
			return fmt.Errorf("validation found %d violations:\n%s", rep.Errors(), text)
		}
		return nil
	}
	for _, v := range rep.Violations {
		if v.Check == check && v.Severity != conformance.SeverityWarning {
			return nil
		}
	}
	return fmt.Errorf("validation did not report %q:\n%s", check, text)
}

func storageSteps(r *table) {
	const g = "Sites and pages"
	r.step(g, `^the storage state "([^"]*)"$`,
		"the scenario's pages start signed in: cookies and local storage from that file (Playwright's storageState JSON, path from the project root; an origin at the site profile's base_url is the live site's), as run --storage-state does for every page; its values are secrets, scrubbed from the recording, the trace and the reports; choose it after the site and before the first page step (APP-5)",
		`Given the storage state "testsite/signed-in.state.json"`, givenStorageState)
	r.step(g, `^no value of the storage state is in the recording or the trace$`,
		"every value of the scenario's storage state reached the pages and was scrubbed: the session (its captures and steps) holds each value's placeholder and none of the values, and neither does the trace (APP-5)",
		`Then no value of the storage state is in the recording or the trace`, storageScrubbed)
}

func givenStorageState(ctx context.Context, path string) error {
	w := worldOf(ctx)
	if len(w.tabs) > 0 {
		return fmt.Errorf("choose the storage state before the first step that opens a page (a page is open on %s already)", w.profileName())
	}
	st, err := browser.LoadStorageState(filepath.Join(w.sc.Root(), path))
	if err != nil {
		return err
	}
	if w.site != nil && w.siteLive != "" {
		// an origin at the profile's own base is the live site's (the
		// fixture serves the site on a port of its own)
		for i, o := range st.Origins {
			if o.Origin == w.siteBase {
				st.Origins[i].Origin = w.siteLive
			}
		}
	}
	for _, v := range st.Secrets() {
		w.scrub.AddSecret(v)
	}
	w.storage = st
	return nil
}

func storageScrubbed(ctx context.Context) error {
	w := worldOf(ctx)
	if w.storage == nil {
		return errors.New(`no storage state was given: add Given the storage state "FILE"`)
	}
	t, ok := w.tabs[mainTab]
	if !ok || t.recorded() == nil {
		return errors.New("no page was opened: nothing was recorded")
	}
	s := t.recorded()
	if w.storage.Secrets() == nil {
		return errors.New("the storage state holds no value to scrub")
	}
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	tr := trace.Format(w.log.Events())
	for _, v := range w.storage.Secrets() {
		ph := w.scrub.AddSecret(v) // the value's placeholder (registered when the state was given)
		switch {
		case bytes.Contains(data, []byte(v)):
			return fmt.Errorf("the recording holds the storage state's value %s", ph)
		case bytes.Contains(tr, []byte(v)):
			return fmt.Errorf("the trace holds the storage state's value %s", ph)
		case !bytes.Contains(data, []byte(ph)):
			return fmt.Errorf("the recording never shows %s: the value did not reach the page (or was not scrubbed as its placeholder)", ph)
		}
	}
	return nil
}
