package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/replaylab/replaylab/engine"
	"github.com/replaylab/replaylab/engine/monitor"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/trace"
)

// loopState is the per-scenario state of the loop monitor steps. Signals
// are collected from the results they ride on (Task.Signal after every
// operation, View.Signal after every look); the trace's monitor.signal
// events are read at check time.
type loopState struct {
	signals   []monitor.Signal
	typed     []string        // every value these steps typed
	refs      map[string]bool // every ref the looks handed out
	usedRefs  []string        // refs the ref-driven clicks used, in order
	openTexts []string        // the open menu's stamp, one per opening
}

// loopTimeout bounds every expectation of the loop steps.
const loopTimeout = 5 * time.Second

// The menu of /loop/menu.
var (
	menuOpen  = engine.ByRole("button", "Open menu")
	menuClose = engine.ByRole("button", "Close menu")
)

func loopSteps(r *table) {
	const g = "Loop monitor"
	r.step(g, `^I open the sim page "([^"]*)" in the (\w+) tab$`, "another tab of the same task navigates to that sim path (each tab has its own recorded session); the steps after it still act in the tab they acted in (see \"I switch to the … tab\")",
		`When I open the sim page "/loop/tab-b" in the second tab`, openSimPageInTab, isAction, needsSim, defaults(readyWait))
	r.step(g, `^I look at the page$`, "a page snapshot of the main tab (a read: not an action); a signal riding on it is collected",
		"And I look at the page", lookAtPage)
	r.step(g, `^I open and close the menu (\d+) times?$`,
		`on /loop/menu: click "Open menu", look at the open menu (its counter and clock differ every time), click "Close menu"; N rounds`,
		"When I open and close the menu 5 times", openCloseMenu, isAction, needsSim)
	r.step(g, `^I open and close the menu (\d+) times? by refs from fresh snapshots$`,
		"the same rounds, but every click is by the ref a fresh snapshot just gave, so no ref is used twice",
		"When I open and close the menu 5 times by refs from fresh snapshots", openCloseMenuByRefs, isAction, needsSim)
	r.step(g, `^I click the (\w+) "([^"]*)" (\d+) times? expecting "([^"]*)", looking at the page twice after each click$`,
		"the same clicks with two page snapshots (two snapshot ids, one page state) after each",
		`When I click the button "Check for updates" 6 times expecting "No updates", looking at the page twice after each click`, clickButtonTimesLooking, isAction, defaults("each click waits up to 5 s for the text"))
	r.step(g, `^I look once and click the (\w+) "([^"]*)" (\d+) times? by that ref, expecting "([^"]*)"$`,
		"one snapshot, then N clicks by the ref it gave, with no observation in between",
		`When I look once and click the button "Check for updates" 5 times by that ref, expecting "No updates"`, clickSameRef, isAction, defaults("each click waits up to 5 s for the text"))
	r.step(g, `^I read the guide from chapter 1 to chapter (\d+) by its "Next" links$`,
		`open /loop/pages/1 and follow "Next" until chapter N, each click expecting the next chapter's URL and text`,
		`When I read the guide from chapter 1 to chapter 8 by its "Next" links`, readGuide, isAction, needsSim)
	r.step(g, `^I refresh the main and the (\w+) tab in turn (\d+) times?$`, `click "Refresh" in the main tab, then in the other, N rounds`,
		"When I refresh the main and the second tab in turn 6 times", refreshTabs, isAction, needsSim)
	r.step(g, `^I wait for "([^"]*)" (\d+) times?$`, "waitFor(text visible), a passive operation, N times",
		`And I wait for "Report ready" 6 times`, waitForTimes)
	r.step(g, `^I verify the outcome "([^"]*)" (\d+) times?$`, "verifyOutcome(text visible), a passive operation, N times",
		`And I verify the outcome "Report ready" 5 times`, verifyOutcomeTimes)
	r.step(g, `^I verify the (\w+) "([^"]*)" holds "([^"]*)" (\d+) times?$`, "verifyField by role and name, a passive operation, N times",
		`And I verify the textbox "Reference" holds "RL-7" 5 times`, verifyFieldTimes)
	r.step(g, `^I try to sign in (\d+) times? with the password "([^"]*)" and the codes "([^"]*)"$`,
		`on /loop/login, each round: fill "Password" and then "One-time code" (one comma-separated code per round), each by a fresh snapshot's ref, then click "Sign in" expecting the refusal of that attempt`,
		`When I try to sign in 5 times with the password "hunter2-Tango" and the codes "481516, 234200, 905511, 771043, 318007"`, signInTimes, isAction, needsSim)

	const c = "Loop monitor checks"
	loopThresholds := fmt.Sprintf("in a window of the last %d actions and %d observations: same_action_revisit needs the same action %d times and %d revisits of one page state; stagnation %d actions in a row that leave the page unchanged; same_action_no_observation the same action %d times with no look at the page between",
		monitor.DefaultWindow, monitor.DefaultWindow, monitor.DefaultSameActionMin, monitor.DefaultRevisitMin, monitor.DefaultStagnantActionsMin, monitor.DefaultNoObservationSameActionMin)
	r.step(c, `^a loop signal "([^"]*)" is raised$`, "a signal with that rule (same_action_revisit, stagnation, same_action_no_observation) rode on a result and is in the trace",
		`Then a loop signal "same_action_revisit" is raised`, signalRaised, defaults(loopThresholds))
	r.step(c, `^no loop signal is raised$`, "no result carried a signal and the trace holds none",
		"Then no loop signal is raised", noSignal, defaults(loopThresholds))
	r.step(c, `^the last loop signal counts (\d+) same actions?, (\d+) since the last observation, (\d+) revisits? and (\d+) stagnant in a window of (\d+)$`,
		"the counts of the last signal delivered (and of the last one traced)",
		"And the last loop signal counts 10 same actions, 1 since the last observation, 13 revisits and 0 stagnant in a window of 20", signalCounts)
	r.step(c, `^the open menu read differently each time$`, "the open menu's counter and clock text never repeated",
		"And the open menu read differently each time", menuDiffered)
	r.step(c, `^every ref used was different$`, "the ref-driven clicks never reused a ref",
		"And every ref used was different", refsDiffered)
	r.step(c, `^the loop signals and the trace never hold the typed secrets or the names "([^"]*)" and "([^"]*)"$`,
		"serialised signals, traced signals and the whole trace hold no value these steps typed and neither control name (case-insensitive)",
		`Then the loop signals and the trace never hold the typed secrets or the names "Password" and "One-time code"`, noLeaks)
	r.step(c, `^the task can still finish$`, "the task is not blocked and Task.Finish succeeds (a signal is advisory)",
		"And the task can still finish", taskFinishes)
	r.step(c, `^the change summary is:$`, "the change summary between the page's last two observations: rows added, removed and changed, each a ; list of role \"name\" (changed: with the fields in brackets)",
		"Then the change summary is:", changeSummaryIs,
		withTable(`| added   | menuitem "Profile"; menuitem "Settings"; button "Close menu" |`, `| removed |                                                             |`, `| changed |                                                             |`))
	r.step(c, `^the change summary grants no ref$`, "the summary, serialised, holds no ref any snapshot handed out and no element key",
		"And the change summary grants no ref", summaryNoRefs)
}

// collect keeps the signal riding on the task's next result, if any.
func (st *loopState) collect(w *world) {
	if w.task == nil {
		return
	}
	if s := w.task.Signal(); s != nil {
		st.signals = append(st.signals, *s)
	}
}

// look takes a page snapshot of p and keeps its refs and its signal.
func (w *world) look(ctx context.Context, p *engine.Page) (*engine.View, error) {
	st := stateOf[loopState](w)
	st.collect(w)
	v, err := p.Snapshot(ctx, observe.ViewPage)
	if err != nil {
		return nil, err
	}
	if v.Signal != nil {
		st.signals = append(st.signals, *v.Signal)
	}
	if st.refs == nil {
		st.refs = map[string]bool{}
	}
	for _, e := range v.Elements {
		st.refs[e.Ref] = true
	}
	w.lastView = v
	return v, nil
}

// refOf returns the ref v gives the element with that role and name.
func refOf(v *engine.View, role, name string) (string, error) {
	var refs []string
	for _, e := range v.Elements {
		if e.Role == role && e.Name == name {
			refs = append(refs, e.Ref)
		}
	}
	if len(refs) != 1 {
		return "", fmt.Errorf("snapshot %d has %d elements %s %q, want 1", v.ID, len(refs), role, name)
	}
	return refs[0], nil
}

// click clicks t expecting text and collects the signal it carries.
func (w *world) loopClick(ctx context.Context, p *engine.Page, t engine.Target, text string) error {
	err := p.Click(ctx, t, engine.Expect{TextVisible: text, Timeout: loopTimeout})
	stateOf[loopState](w).collect(w)
	return err
}

func openSimPageInTab(ctx context.Context, path, tab string) error {
	return worldOf(ctx).kept(openSimPageInTabDo(ctx, path, tab))
}

func openSimPageInTabDo(ctx context.Context, path, tab string) error {
	w := worldOf(ctx)
	if _, err := w.ensurePage(ctx); err != nil { // the main tab starts the task
		return err
	}
	p, err := w.ensureTab(ctx, tab)
	if err != nil {
		return err
	}
	err = p.Navigate(ctx, w.base+path)
	stateOf[loopState](w).collect(w)
	return err
}

func lookAtPage(ctx context.Context) error {
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	_, err = w.look(ctx, p)
	return err
}

func openCloseMenu(ctx context.Context, n int) error {
	return worldOf(ctx).kept(openCloseMenuDo(ctx, n))
}

func openCloseMenuDo(ctx context.Context, n int) error {
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	st := stateOf[loopState](w)
	for range n {
		if err := w.loopClick(ctx, p, menuOpen, "The menu is open"); err != nil {
			return err
		}
		v, err := w.look(ctx, p)
		if err != nil {
			return err
		}
		st.openTexts = append(st.openTexts, menuStamp(v.Text))
		if err := w.loopClick(ctx, p, menuClose, "The menu is closed"); err != nil {
			return err
		}
	}
	return nil
}

// menuStamp is the open menu's "Opened N times, last at …" line.
func menuStamp(text string) string {
	for line := range strings.SplitSeq(text, "\n") {
		if strings.Contains(line, "Opened") {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

func openCloseMenuByRefs(ctx context.Context, n int) error {
	return worldOf(ctx).kept(openCloseMenuByRefsDo(ctx, n))
}

func openCloseMenuByRefsDo(ctx context.Context, n int) error {
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	st := stateOf[loopState](w)
	byRef := func(name, text string) error {
		v, err := w.look(ctx, p)
		if err != nil {
			return err
		}
		ref, err := refOf(v, "button", name)
		if err != nil {
			return err
		}
		st.usedRefs = append(st.usedRefs, ref)
		return w.loopClick(ctx, p, engine.Target{Ref: ref}, text)
	}
	for range n {
		if err := byRef("Open menu", "The menu is open"); err != nil {
			return err
		}
		if err := byRef("Close menu", "The menu is closed"); err != nil {
			return err
		}
	}
	return nil
}

func clickButtonTimesLooking(ctx context.Context, role, name string, n int, text string) error {
	return worldOf(ctx).kept(clickLooking(ctx, role, name, n, text, 2))
}

func clickLooking(ctx context.Context, role, name string, n int, text string, looks int) error {
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	for range n {
		if err := w.loopClick(ctx, p, engine.ByRole(role, name), text); err != nil {
			return err
		}
		for range looks {
			if _, err := w.look(ctx, p); err != nil {
				return err
			}
		}
	}
	return nil
}

func clickSameRef(ctx context.Context, role, name string, n int, text string) error {
	return worldOf(ctx).kept(clickByOneRef(ctx, role, name, n, text))
}

func clickByOneRef(ctx context.Context, role, name string, n int, text string) error {
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	v, err := w.look(ctx, p)
	if err != nil {
		return err
	}
	ref, err := refOf(v, role, name)
	if err != nil {
		return err
	}
	st := stateOf[loopState](w)
	for range n {
		st.usedRefs = append(st.usedRefs, ref)
		if err := w.loopClick(ctx, p, engine.Target{Ref: ref}, text); err != nil {
			return err
		}
	}
	return nil
}

func readGuide(ctx context.Context, last int) error {
	return worldOf(ctx).kept(readGuideDo(ctx, last))
}

func readGuideDo(ctx context.Context, last int) error {
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	st := stateOf[loopState](w)
	err = p.Navigate(ctx, w.base+"/loop/pages/1")
	st.collect(w)
	if err != nil {
		return err
	}
	for n := 2; n <= last; n++ {
		// The URL alone is met while the new document is still empty; the
		// chapter's text says it has loaded.
		x := engine.Expect{URL: fmt.Sprintf("%s/loop/pages/%d", w.base, n), TextVisible: fmt.Sprintf("Chapter %d of", n), Timeout: loopTimeout}
		err := p.Click(ctx, engine.ByRole("link", "Next"), x)
		st.collect(w)
		if err != nil {
			return err
		}
	}
	return nil
}

func refreshTabs(ctx context.Context, other string, n int) error {
	return worldOf(ctx).kept(refreshTabsDo(ctx, other, n))
}

func refreshTabsDo(ctx context.Context, other string, n int) error {
	w := worldOf(ctx)
	main, err := w.ensurePage(ctx)
	if err != nil {
		return err
	}
	second, err := w.ensureTab(ctx, other)
	if err != nil {
		return err
	}
	refresh := engine.ByRole("button", "Refresh")
	for range n {
		for _, p := range []*engine.Page{main, second} {
			if err := w.loopClick(ctx, p, refresh, "EUR as of"); err != nil {
				return err
			}
		}
	}
	return nil
}

// passive runs op n times on the main tab and collects signals after each.
func passive(ctx context.Context, n int, op func(*engine.Page) error) error {
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	st := stateOf[loopState](w)
	for range n {
		err := op(p)
		st.collect(w)
		if err != nil {
			return err
		}
	}
	return nil
}

func waitForTimes(ctx context.Context, text string, n int) error {
	return passive(ctx, n, func(p *engine.Page) error {
		return p.WaitFor(ctx, engine.Expect{TextVisible: text, Timeout: loopTimeout})
	})
}

func verifyOutcomeTimes(ctx context.Context, text string, n int) error {
	return passive(ctx, n, func(p *engine.Page) error {
		return p.VerifyOutcome(ctx, engine.Expect{TextVisible: text})
	})
}

func verifyFieldTimes(ctx context.Context, role, name, want string, n int) error {
	return passive(ctx, n, func(p *engine.Page) error {
		return p.VerifyField(ctx, engine.ByRole(role, name), want)
	})
}

func signInTimes(ctx context.Context, n int, password, codes string) error {
	return worldOf(ctx).kept(signInTimesDo(ctx, n, password, codes))
}

func signInTimesDo(ctx context.Context, n int, password, codes string) error {
	w, p, err := worldPage(ctx)
	if err != nil {
		return err
	}
	var list []string
	for c := range strings.SplitSeq(codes, ",") {
		list = append(list, strings.TrimSpace(c))
	}
	if len(list) != n {
		return fmt.Errorf("%d codes for %d rounds", len(list), n)
	}
	st := stateOf[loopState](w)
	st.typed = append(st.typed, password)
	st.typed = append(st.typed, list...)
	// fillByRef fills the field a fresh snapshot names, so the trace names
	// only a ref, never the sensitive control.
	fillByRef := func(name, value string) error {
		v, err := w.look(ctx, p)
		if err != nil {
			return err
		}
		var ref string
		for _, e := range v.Elements {
			if e.Name == name {
				ref = e.Ref
			}
		}
		if ref == "" {
			return fmt.Errorf("snapshot %d has no field %q", v.ID, name)
		}
		err = p.Fill(ctx, engine.Target{Ref: ref}, value)
		st.collect(w)
		return err
	}
	for i := range n {
		if err := fillByRef("Password", password); err != nil {
			return err
		}
		if err := fillByRef("One-time code", list[i]); err != nil {
			return err
		}
		if err := w.loopClick(ctx, p, engine.ByRole("button", "Sign in"), fmt.Sprintf("Attempt %d refused", i+1)); err != nil {
			return err
		}
	}
	return nil
}

// tracedSignals are the monitor.signal events of the trace.
func tracedSignals(w *world) []trace.Event {
	var out []trace.Event
	for _, e := range w.log.Events() {
		if e.Kind == "monitor.signal" {
			out = append(out, e)
		}
	}
	return out
}

func signalRaised(ctx context.Context, rule string) error {
	w := worldOf(ctx)
	st := stateOf[loopState](w)
	st.collect(w)
	delivered := slices.ContainsFunc(st.signals, func(s monitor.Signal) bool { return string(s.Rule) == rule })
	traced := slices.ContainsFunc(tracedSignals(w), func(e trace.Event) bool { return e.Get("rule") == rule })
	switch {
	case !delivered && !traced:
		return fmt.Errorf("no %q signal was raised (delivered: %s; traced: %d)", rule, rulesOf(st.signals), len(tracedSignals(w)))
	case !delivered:
		return fmt.Errorf("a %q signal is in the trace but rode on no result (delivered: %s)", rule, rulesOf(st.signals))
	case !traced:
		return fmt.Errorf("a %q signal rode on a result but is not in the trace", rule)
	}
	return nil
}

func rulesOf(ss []monitor.Signal) string {
	var r []string
	for _, s := range ss {
		r = append(r, string(s.Rule))
	}
	if len(r) == 0 {
		return "none"
	}
	return strings.Join(r, ", ")
}

func noSignal(ctx context.Context) error {
	w := worldOf(ctx)
	st := stateOf[loopState](w)
	st.collect(w)
	if len(st.signals) > 0 {
		return fmt.Errorf("results carried signals: %s (first %+v)", rulesOf(st.signals), st.signals[0])
	}
	if ev := tracedSignals(w); len(ev) > 0 {
		return fmt.Errorf("the trace holds %d signals: %s", len(ev), trace.Format(ev))
	}
	return nil
}

func signalCounts(ctx context.Context, same, since, revisits, stagnant, window int) error {
	w := worldOf(ctx)
	st := stateOf[loopState](w)
	st.collect(w)
	if len(st.signals) == 0 {
		return fmt.Errorf("no signal rode on any result")
	}
	s := st.signals[len(st.signals)-1]
	got := fmt.Sprintf("same=%d since=%d revisits=%d stagnant=%d window=%d", s.SameAction, s.SinceObservation, s.Revisits, s.Stagnant, s.Window)
	want := fmt.Sprintf("same=%d since=%d revisits=%d stagnant=%d window=%d", same, since, revisits, stagnant, window)
	if got != want {
		return fmt.Errorf("the last signal (%s) counts %s, want %s", s.Rule, got, want)
	}
	ev := tracedSignals(w)
	last := ev[len(ev)-1]
	if tr := fmt.Sprintf("%s %s %s %s", last.Get("sameAction"), last.Get("revisits"), last.Get("stagnant"), last.Get("window")); tr != fmt.Sprintf("%d %d %d %d", same, revisits, stagnant, window) {
		return fmt.Errorf("the last traced signal counts %s (same, revisits, stagnant, window), the delivered one %s", tr, got)
	}
	return nil
}

func menuDiffered(ctx context.Context) error {
	st := stateOf[loopState](worldOf(ctx))
	if len(st.openTexts) < 2 {
		return fmt.Errorf("the menu was looked at open %d times; open and close it first", len(st.openTexts))
	}
	seen := map[string]bool{}
	for _, t := range st.openTexts {
		if t == "" || seen[t] {
			return fmt.Errorf("the open menu read %q twice or not at all (all: %q)", t, st.openTexts)
		}
		seen[t] = true
	}
	return nil
}

func refsDiffered(ctx context.Context) error {
	st := stateOf[loopState](worldOf(ctx))
	if len(st.usedRefs) < 2 {
		return fmt.Errorf("%d refs used; click by refs first", len(st.usedRefs))
	}
	seen := map[string]bool{}
	for _, r := range st.usedRefs {
		if seen[r] {
			return fmt.Errorf("ref %s was used twice (all: %v)", r, st.usedRefs)
		}
		seen[r] = true
	}
	return nil
}

func noLeaks(ctx context.Context, name1, name2 string) error {
	w := worldOf(ctx)
	st := stateOf[loopState](w)
	st.collect(w)
	if len(st.signals) == 0 {
		return fmt.Errorf("no signal was raised, so there is nothing to check")
	}
	delivered, err := json.Marshal(st.signals)
	if err != nil {
		return err
	}
	texts := map[string]string{
		"the delivered signals": string(delivered),
		"the traced signals":    string(trace.Format(tracedSignals(w))),
		"the trace":             string(trace.Format(w.log.Events())),
	}
	var leaks []string
	for _, where := range []string{"the delivered signals", "the traced signals", "the trace"} {
		text := strings.ToLower(texts[where])
		for _, v := range st.typed {
			if strings.Contains(text, strings.ToLower(v)) {
				leaks = append(leaks, fmt.Sprintf("%s hold a typed value (%d characters)", where, len(v)))
			}
		}
		for _, n := range []string{name1, name2} {
			if strings.Contains(text, strings.ToLower(n)) {
				leaks = append(leaks, fmt.Sprintf("%s name %q", where, n))
			}
		}
	}
	if len(leaks) > 0 {
		return fmt.Errorf("leaks: %s", strings.Join(leaks, "; "))
	}
	return nil
}

func taskFinishes(ctx context.Context) error {
	w := worldOf(ctx)
	st := stateOf[loopState](w)
	st.collect(w)
	if w.task == nil {
		return fmt.Errorf("no task was started")
	}
	if w.task.Blocked() {
		return fmt.Errorf("the task is blocked")
	}
	if err := w.task.Finish(ctx); err != nil {
		return fmt.Errorf("the task could not finish: %w", err)
	}
	ev := w.log.Events()
	if len(ev) == 0 || ev[len(ev)-1].Kind != "task.finish" {
		return fmt.Errorf("the trace does not end with task.finish")
	}
	return nil
}

func (w *world) changes() (monitor.ChangeSummary, error) {
	p, err := w.ensurePage(context.Background())
	if err != nil {
		return monitor.ChangeSummary{}, err
	}
	s, ok := p.Changes()
	if !ok {
		return s, fmt.Errorf("the page has fewer than two observations")
	}
	return s, nil
}

func describeElements(es []monitor.Element) string {
	var parts []string
	for _, e := range es {
		d := fmt.Sprintf("%s %q", e.Role, e.Name)
		if len(e.Fields) > 0 {
			d += " (" + strings.Join(e.Fields, ", ") + ")"
		}
		parts = append(parts, d)
	}
	return strings.Join(parts, "; ")
}

func changeSummaryIs(ctx context.Context, table *godog.Table) error {
	s, err := worldOf(ctx).changes()
	if err != nil {
		return err
	}
	got := map[string]string{
		"added":   describeElements(s.Added),
		"removed": describeElements(s.Removed),
		"changed": describeElements(s.Changed),
	}
	var diffs []string
	for _, row := range table.Rows {
		if len(row.Cells) != 2 {
			return fmt.Errorf("each row is: added|removed|changed | the elements")
		}
		kind, want := strings.TrimSpace(row.Cells[0].Value), strings.TrimSpace(row.Cells[1].Value)
		g, ok := got[kind]
		if !ok {
			return fmt.Errorf("unknown row %q (want added, removed or changed)", kind)
		}
		if g != want {
			diffs = append(diffs, fmt.Sprintf("%s is %q, want %q", kind, g, want))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("change summary: %s", strings.Join(diffs, "; "))
	}
	return nil
}

func summaryNoRefs(ctx context.Context) error {
	w := worldOf(ctx)
	s, err := w.changes()
	if err != nil {
		return err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	text := string(b)
	st := stateOf[loopState](w)
	if len(st.refs) == 0 {
		return fmt.Errorf("no snapshot handed out refs; look at the page first")
	}
	for ref := range st.refs {
		if strings.Contains(text, `"`+ref+`"`) {
			return fmt.Errorf("the summary holds ref %s: %s", ref, text)
		}
	}
	if strings.Contains(text, `"ref"`) || strings.Contains(text, `"key"`) || strings.Contains(text, `"node"`) {
		return fmt.Errorf("the summary has a ref, key or node field: %s", text)
	}
	return nil
}
