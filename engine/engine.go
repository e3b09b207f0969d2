// Package engine is the Task/Page API an agent and the test harness drive:
// begin a task, name pages (tabs) in it, observe, find, fill, click, press,
// wait for an answer and finish — with outcome discipline: clicks need an
// expected outcome, a fill is verified against the real value, and an
// outcome that cannot be confirmed blocks the task instead of being
// guessed (SPEC §4).
//
// The engine needs a Driver (declared here) and reports every decision to a
// trace.Tracer. It never imports a concrete driver, the sim or the harness.
package engine

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/locate"
	"github.com/replaylab/replaylab/engine/monitor"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/trace"
)

// Config holds the engine's settings; the zero value of a field means its
// default.
type Config struct {
	Adapter adapter.Adapter // default adapter.DefaultMarker
	Tracer  trace.Tracer    // default trace.Discard
	Limits  observe.Limits  // full view, default observe.DefaultLimits
	// PageLimits bound the page API's shorter snapshot (OBS-4).
	PageLimits observe.Limits
	// OutcomeTimeout bounds how long a click's expectation is awaited.
	OutcomeTimeout time.Duration
	// PollInterval is the longest gap between reads while waiting, for
	// drivers that cannot tell when the page changed.
	PollInterval time.Duration
	// PageGroups and FullGroups bound the answer groups a view carries:
	// the most recent groups, each text cut to a length (the view says
	// what was cut). Zero fields take DefaultPageGroups / DefaultFullGroups.
	PageGroups GroupLimits
	FullGroups GroupLimits
	// Monitor configures the loop monitor of every task (zero fields take
	// monitor.DefaultConfig's values).
	Monitor monitor.Config
	// ChangePollInterval is that gap for drivers that wake on page changes
	// (ChangeNotifier): a changed page is read at once, an idle one this
	// often.
	ChangePollInterval time.Duration
}

// Defaults of Config.
const (
	DefaultOutcomeTimeout     = 5 * time.Second
	DefaultPollInterval       = 50 * time.Millisecond
	DefaultChangePollInterval = 500 * time.Millisecond
)

// GroupLimits bound the answer groups of a view.
type GroupLimits struct {
	GroupsMax    int // most recent groups returned
	TextCharsMax int // characters of each group's text
}

// Defaults of the group limits: the page view shows the last 5 groups with
// 200 characters each (its text, the end of the page's, holds the newest
// answer's last 1,500), the full view the last 20 with 2,000.
var (
	DefaultPageGroups = GroupLimits{GroupsMax: 5, TextCharsMax: 200}
	DefaultFullGroups = GroupLimits{GroupsMax: 20, TextCharsMax: 2000}
)

// ChangeNotifier is implemented by drivers whose Sleep returns early when
// the page changes.
type ChangeNotifier interface {
	NotifiesChanges() bool
}

// Scheduled is implemented by drivers whose Sleep wakes at the page's
// next scheduled transition (a page on a lab clock, or the replay of a lab
// session): nothing changes between transitions, so the engine sleeps
// straight to its deadline instead of polling, and reads once per
// transition.
type Scheduled interface {
	SleepsToTransitions() bool
}

// scheduledInterval is the "poll interval" of a Scheduled driver: longer
// than any deadline, so every sleep is to the deadline or the next
// transition.
const scheduledInterval = 1000 * time.Hour

// Engine serves many tasks; tasks share nothing but configuration (ACT-6).
type Engine struct {
	cfg Config

	mu    sync.Mutex
	tasks int
}

// New returns an engine with cfg, defaults filled in.
func New(cfg Config) *Engine {
	if cfg.Adapter == nil {
		cfg.Adapter = adapter.DefaultMarker
	}
	if cfg.Tracer == nil {
		cfg.Tracer = trace.Discard
	}
	if cfg.Limits == (observe.Limits{}) {
		cfg.Limits = observe.DefaultLimits
	}
	if cfg.PageLimits == (observe.Limits{}) {
		cfg.PageLimits = observe.PageLimits
	}
	if cfg.OutcomeTimeout <= 0 {
		cfg.OutcomeTimeout = DefaultOutcomeTimeout
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.ChangePollInterval <= 0 {
		cfg.ChangePollInterval = DefaultChangePollInterval
	}
	if cfg.PageGroups.GroupsMax <= 0 || cfg.PageGroups.TextCharsMax <= 0 {
		cfg.PageGroups = DefaultPageGroups
	}
	if cfg.FullGroups.GroupsMax <= 0 || cfg.FullGroups.TextCharsMax <= 0 {
		cfg.FullGroups = DefaultFullGroups
	}
	return &Engine{cfg: cfg}
}

func (e *Engine) emit(kind string, attrs ...trace.Attr) { e.cfg.Tracer.Emit(trace.E(kind, attrs...)) }

// Task is one goal; its pages, baselines and outcomes belong to it alone.
type Task struct {
	ID   string
	Goal string

	e        *Engine
	mu       sync.Mutex
	pages    map[string]*Page
	blocked  *blocked
	finished bool
	mon      *monitor.Monitor
	signal   *monitor.Signal
}

type blocked struct {
	page    *Page
	op      string
	expect  Expect
	recheck bool // the one allowed re-check was used
}

// Begin starts a task. Task ids count up per engine ("t1", "t2", …), so
// traces are stable.
func (e *Engine) Begin(ctx context.Context, goal string) *Task {
	e.mu.Lock()
	e.tasks++
	id := "t" + strconv.Itoa(e.tasks)
	e.mu.Unlock()
	e.emit("task.begin", trace.A("task", id), trace.A("goal", goal))
	return &Task{ID: id, Goal: goal, e: e, pages: map[string]*Page{}, mon: monitor.New(e.cfg.Monitor)}
}

// Page names a tab of the task driven by d. Creating the page opens
// nothing; the first navigate or observe uses the driver.
func (t *Task) Page(name string, d Driver) *Page {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p, ok := t.pages[name]; ok {
		return p
	}
	p := &Page{Name: name, task: t, d: d}
	t.pages[name] = p
	return p
}

// Blocked reports whether the task is blocked by an unknown outcome.
func (t *Task) Blocked() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.blocked != nil
}

// Finish ends the task; a blocked task cannot finish (ACT-3).
func (t *Task) Finish(ctx context.Context) error {
	if err := t.mutation("finish"); err != nil {
		return err
	}
	t.mu.Lock()
	t.finished = true
	t.mu.Unlock()
	t.e.emit("task.finish", trace.A("task", t.ID))
	return nil
}

// mutation refuses mutations of a blocked or finished task.
func (t *Task) mutation(op string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.finished {
		return &Error{Code: TaskFinished, Op: op, Detail: "task " + t.ID + " has finished"}
	}
	if t.blocked != nil {
		t.e.emit("refused", trace.A("op", op), trace.A("code", TaskBlocked))
		return &Error{Code: TaskBlocked, Op: op, Detail: fmt.Sprintf("the outcome of %s is unknown; re-check it or end the task", t.blocked.op)}
	}
	return nil
}

// Target names an element: a ref from the latest snapshot, or a locator
// resolved by a fresh find.
type Target struct {
	Ref string
	locate.Locator
	// Selector, when set, is a CSS selector that must match exactly one
	// candidate element (see BySelector).
	Selector string
}

func (t Target) String() string {
	if t.Ref != "" {
		return "ref " + t.Ref
	}
	if t.Selector != "" {
		return "selector=" + strconv.Quote(t.Selector)
	}
	return t.Locator.String()
}

// ByRole is getByRole(role, name).
func ByRole(role, name string) Target { return Target{Locator: locate.Locator{Role: role, Name: name}} }

// Expect is the outcome a click or press must produce (ACT-2). At least one
// field must be set.
type Expect struct {
	URL         string // absolute URL the page must be at
	TextVisible string // text that must be visible
	NewAnswer   bool   // a new answer group must appear
	Gone        *Target
	Field       *FieldExpect
	Timeout     time.Duration
}

// FieldExpect is "the field's value is".
type FieldExpect struct {
	Target Target
	Value  string
}

func (x Expect) String() string {
	var parts []string
	if x.URL != "" {
		parts = append(parts, "url="+x.URL)
	}
	if x.TextVisible != "" {
		parts = append(parts, fmt.Sprintf("text=%q", x.TextVisible))
	}
	if x.NewAnswer {
		parts = append(parts, "new_answer")
	}
	if x.Gone != nil {
		parts = append(parts, "gone="+x.Gone.String())
	}
	if x.Field != nil {
		parts = append(parts, "field="+x.Field.Target.String())
	}
	return strings.Join(parts, ",")
}

func (x Expect) validate() error {
	if x.URL == "" && x.TextVisible == "" && !x.NewAnswer && x.Gone == nil && x.Field == nil {
		return &Error{Code: MissingExpectation, Op: "expect", Detail: "click and press need an expected outcome"}
	}
	if x.URL != "" {
		u, err := url.Parse(x.URL)
		if err != nil || !u.IsAbs() || u.Host == "" {
			return &Error{Code: InvalidExpectation, Op: "expect", Detail: fmt.Sprintf("expected URL %q is not absolute", x.URL)}
		}
	}
	return nil
}

// Page is one tab of a task.
type Page struct {
	Name string

	task     *Task
	d        Driver
	seq      int
	obs      *observe.Observation
	groups   adapter.Result
	baseline *answer.Baseline
	last     lastRead // the last capture read and its parse

	prevMon, lastMon *monitor.Observation
}

func (p *Page) emit(kind string, attrs ...trace.Attr) {
	p.task.e.emit(kind, append([]trace.Attr{trace.A("page", p.Name)}, attrs...)...)
}

// read captures the page and finds its groups without issuing a snapshot.
func (p *Page) read(ctx context.Context) (*observe.Document, adapter.Result, error) {
	c, err := p.d.Capture(ctx)
	if err != nil {
		return nil, adapter.Result{}, fmt.Errorf("engine: capture: %w", err)
	}
	if c == p.last.c {
		// the driver saw no change: the same capture, the same parse
		return p.last.doc, p.last.groups, nil
	}
	// the page changed: the new parse takes over the last one's nodes for
	// the bytes each frame's HTML still shares with it (ParseAfter), so a
	// streamed paragraph costs about its own parse. The last document is
	// then dead: nothing reads it after a new read (p.obs keeps only what
	// ByRef and the actions read: strings and attributes, which the
	// take-over leaves as they were).
	doc, err := observe.ParseAfter(c, p.last.doc)
	p.last = lastRead{}
	if err != nil {
		return nil, adapter.Result{}, err
	}
	// groups are found with ids and nodes; their text, state and media
	// are read only for those a view or a wait returns
	groups := adapter.Lazy(p.task.e.cfg.Adapter, doc)
	p.last = lastRead{c: c, doc: doc, groups: groups}
	return doc, groups, nil
}

// observe takes a new snapshot: every earlier ref becomes stale.
func (p *Page) observe(ctx context.Context) (*observe.Observation, error) {
	doc, groups, err := p.read(ctx)
	if err != nil {
		return nil, err
	}
	p.seq++
	var mo monitor.Observation
	if l := &p.last; l.obs != nil && l.doc == doc {
		// the same parse and groups: the same observation under the new
		// snapshot id (every earlier ref stale, ID-1), the same monitor view
		p.obs = l.obs.Reissue(p.seq)
		mo = l.mon
		mo.SnapshotID = strconv.Itoa(p.seq)
	} else {
		p.obs = observe.Observe(doc, p.seq, observe.Options{GroupOf: groups.GroupOf()})
		mo = monitorObservation(p.Name, p.obs, groups)
		if l.doc == doc {
			l.obs, l.mon = p.obs, mo
		}
	}
	p.groups = groups
	p.noteObservation(mo)
	return p.obs, nil
}

// View is a bounded snapshot with the answer groups on the page.
type View struct {
	*observe.Snapshot
	Adapter string `json:"adapter"`
	// Groups are the most recent answer groups, bounded (GroupLimits);
	// GroupCount says how many the page has and whether any was left out
	// or cut.
	Groups     []adapter.Group `json:"groups"`
	GroupCount observe.Count   `json:"groupCount"`
	// Signal is the loop monitor's advisory signal, when one is pending.
	Signal *monitor.Signal `json:"signal,omitempty"`
}

// Navigate opens url in the page.
func (p *Page) Navigate(ctx context.Context, u string) error {
	if err := p.task.mutation("navigate"); err != nil {
		return err
	}
	p.emit("navigate", trace.A("url", u))
	p.noteAction("navigate", observe.Element{Role: "page", Name: u}, "", "", false)
	if err := p.d.Navigate(ctx, u); err != nil {
		return fmt.Errorf("engine: navigate: %w", err)
	}
	p.obs = nil
	return nil
}

// Snapshot observes the page and returns a bounded view: ViewPage is the
// shorter page view (OBS-4), ViewFull the full one.
func (p *Page) Snapshot(ctx context.Context, view string) (*View, error) {
	o, err := p.observe(ctx)
	if err != nil {
		return nil, err
	}
	lim, glim := p.task.e.cfg.PageLimits, p.task.e.cfg.PageGroups
	if view == observe.ViewFull {
		lim, glim = p.task.e.cfg.Limits, p.task.e.cfg.FullGroups
	} else {
		view = observe.ViewPage
	}
	s := o.View(view, lim)
	p.emit("snapshot", trace.A("snapshot", s.ID), trace.A("view", view), trace.A("complete", s.Complete),
		trace.A("elements", fmt.Sprintf("%d/%d", s.Counts.Elements.Returned, s.Counts.Elements.Total)),
		trace.A("groups", len(p.groups.Groups)))
	p.takeSignal()
	groups, count := boundGroups(p.groups.Groups, glim)
	if count.Truncated {
		s.Complete = false
	}
	return &View{Snapshot: s, Adapter: p.groups.Adapter, Groups: groups, GroupCount: count, Signal: p.task.Signal()}, nil
}

// Find runs a fresh find.
func (p *Page) Find(ctx context.Context, q observe.Query) (observe.FindResult, error) {
	o, err := p.observe(ctx)
	if err != nil {
		return observe.FindResult{}, err
	}
	r, err := o.Find(q)
	if err != nil {
		return r, &Error{Code: InvalidArgument, Op: "find", Err: err}
	}
	p.emit("find", trace.A("query", locate.Locator{Role: q.Role, Name: q.Name, Href: q.Href}.String()),
		trace.A("total", r.Selection.Total), trace.A("matched", r.Selection.Matched), trace.A("hasMore", r.Selection.HasMore))
	return r, nil
}

// resolve turns a target into one element of a fresh observation.
func (p *Page) resolve(ctx context.Context, op string, t Target) (observe.Element, error) {
	if t.Ref != "" {
		if p.obs == nil {
			return observe.Element{}, &locate.Error{Code: locate.StaleRef, Locator: locate.Locator{Role: "ref:" + t.Ref}, Detail: "no snapshot taken on this page"}
		}
		el, err := locate.ByRef(p.obs, t.Ref)
		if err != nil {
			p.emit("resolve", trace.A("op", op), trace.A("target", t), trace.A("code", locate.CodeOf(err)))
		}
		return el, err
	}
	o, err := p.observe(ctx)
	if err != nil {
		return observe.Element{}, err
	}
	var el observe.Element
	if t.Selector != "" {
		el, err = resolveSelector(o, t.Selector)
	} else {
		el, err = locate.Resolve(o, t.Locator)
	}
	if err != nil {
		var le *locate.Error
		attrs := []trace.Attr{trace.A("op", op), trace.A("target", t), trace.A("code", locate.CodeOf(err))}
		if asLocate(err, &le) && le.Count > 0 {
			attrs = append(attrs, trace.A("count", le.Count))
		}
		p.emit("resolve", attrs...)
	}
	return el, err
}

// Fill types text into an editor once and verifies the real value
// (ACT-1). A different value is FIELD_MISMATCH; the text is never typed a
// second time.
func (p *Page) Fill(ctx context.Context, t Target, text string) error {
	if err := p.task.mutation("fill"); err != nil {
		return err
	}
	el, err := p.resolve(ctx, "fill", t)
	if err != nil {
		return err
	}
	p.noteAction("fill", el, text, "", false)
	if err := p.d.Type(ctx, el.Node, text); err != nil {
		return fmt.Errorf("engine: fill: %w", err)
	}
	// The observation that comes back with the action: re-find the element
	// by its node in a fresh snapshot and compare the real value.
	o, err := p.observe(ctx)
	if err != nil {
		return err
	}
	got, found := "", false
	for _, e := range o.All {
		if e.Node == el.Node {
			got, found = e.RealValue(), true
			break
		}
	}
	attrs := []trace.Attr{trace.A("target", t)}
	sensitive := sensitiveControl(el) // one rule with the monitor's: never trace a secret
	if !sensitive {
		attrs = append(attrs, trace.A("value", text))
	} else {
		attrs = append(attrs, trace.A("chars", len([]rune(text))))
	}
	if !found || observe.Normalize(got) != observe.Normalize(text) {
		p.emit("fill", append(attrs, trace.A("verified", false), trace.A("code", FieldMismatch))...)
		detail := "the field is gone after typing"
		if found && !sensitive {
			detail = fmt.Sprintf("typed %q, field holds %q", text, got)
		} else if found {
			detail = "the sensitive field holds another value"
		}
		return &Error{Code: FieldMismatch, Op: "fill", Detail: detail}
	}
	p.emit("fill", append(attrs, trace.A("verified", true))...)
	return nil
}

// Click clicks the target and waits for the expected outcome (ACT-2,
// ACT-3).
func (p *Page) Click(ctx context.Context, t Target, x Expect) error {
	return p.act(ctx, "click", t, x, "", func(node string) error { return p.d.Click(ctx, node) })
}

// Press presses key on the target and waits for the expected outcome.
func (p *Page) Press(ctx context.Context, t Target, key string, x Expect) error {
	return p.act(ctx, "press", t, x, key, func(node string) error { return p.d.Press(ctx, node, key) })
}

func (p *Page) act(ctx context.Context, op string, t Target, x Expect, key string, do func(node string) error) error {
	// The expectation is checked before anything is sent.
	if err := x.validate(); err != nil {
		p.emit(op, trace.A("target", t), trace.A("code", CodeOf(err)))
		return err
	}
	if err := p.task.mutation(op); err != nil {
		return err
	}
	if x.NewAnswer {
		_, groups, err := p.read(ctx)
		if err != nil {
			return err
		}
		b := answer.NewBaseline(groups)
		p.baseline = &b
		p.emit("baseline", trace.A("size", len(b.IDs)), trace.A("ids", b.IDs))
	}
	el, err := p.resolve(ctx, op, t)
	if err != nil {
		return err
	}
	p.emit(op, trace.A("target", t), trace.A("expect", x))
	p.noteAction(op, el, "", key, false)
	if err := do(el.Node); err != nil {
		return fmt.Errorf("engine: %s: %w", op, err)
	}
	ok, evidence, err := p.awaitOutcome(ctx, x)
	if err != nil {
		return err
	}
	if !ok {
		p.task.mu.Lock()
		p.task.blocked = &blocked{page: p, op: op, expect: x}
		p.task.mu.Unlock()
		p.emit("outcome", trace.A("op", op), trace.A("status", OutcomeUnknown), trace.A("evidence", evidence))
		return &Error{Code: OutcomeUnknown, Op: op, Detail: "expected " + x.String() + " did not happen in time; the task is blocked"}
	}
	p.emit("outcome", trace.A("op", op), trace.A("status", "met"), trace.A("evidence", evidence))
	return nil
}

// awaitOutcome reads the page until x holds or its timeout passes.
func (p *Page) awaitOutcome(ctx context.Context, x Expect) (bool, string, error) {
	timeout := x.Timeout
	if timeout <= 0 {
		timeout = p.task.e.cfg.OutcomeTimeout
	}
	deadline := p.d.Now().Add(timeout)
	var seen *observe.Document
	evidence := ""
	for {
		doc, groups, err := p.read(ctx)
		if err != nil {
			return false, "", err
		}
		// an unchanged page (the same capture, so the same parse) is not
		// evaluated again
		if doc != seen {
			seen = doc
			ok, ev, err := p.evaluate(doc, groups, x)
			if err != nil || ok {
				return ok, ev, err
			}
			evidence = ev
		}
		if !p.d.Now().Before(deadline) {
			return false, evidence, nil
		}
		if err := p.d.Sleep(ctx, min(p.pollInterval(), deadline.Sub(p.d.Now()))); err != nil {
			return false, "", err
		}
		if !p.d.Now().Before(deadline) {
			p.refresh()
		}
	}
}

// refresh makes the next read see the page whatever the driver's change
// observer said (a deadline fell due).
func (p *Page) refresh() {
	if r, ok := p.d.(Refresher); ok {
		r.Refresh()
	}
}

// check evaluates x once on a fresh read.
func (p *Page) check(ctx context.Context, x Expect) (bool, string, error) {
	doc, groups, err := p.read(ctx)
	if err != nil {
		return false, "", err
	}
	return p.evaluate(doc, groups, x)
}

// evaluate decides x on one read of the page.
func (p *Page) evaluate(doc *observe.Document, groups adapter.Result, x Expect) (bool, string, error) {
	var met []string
	if x.NewAnswer {
		if p.baseline == nil {
			return false, "", &Error{Code: NoBaseline, Op: "expect"}
		}
		g, ok := p.baseline.Newest(groups)
		if !ok {
			return false, "no group outside the baseline", nil
		}
		met = append(met, "new group "+g.ID)
	}
	if x.URL != "" {
		if doc.URL != x.URL {
			return false, "url is " + doc.URL, nil
		}
		if !hasContent(doc) {
			return false, "url is " + x.URL + " but the document is still empty", nil
		}
		met = append(met, "url "+x.URL)
	}
	needObs := x.TextVisible != "" || x.Gone != nil || x.Field != nil
	if needObs {
		o := observe.Observe(doc, p.seq, observe.Options{})
		if x.TextVisible != "" {
			// the whole visible text, without building a view of it
			if !o.HasText(x.TextVisible) {
				return false, "text not visible", nil
			}
			met = append(met, fmt.Sprintf("text %q visible", x.TextVisible))
		}
		if x.Gone != nil {
			if _, err := locate.Resolve(o, x.Gone.Locator); locate.CodeOf(err) != string(locate.TargetNotFound) {
				return false, "element still present", nil
			}
			met = append(met, "element gone")
		}
		if x.Field != nil {
			el, err := locate.Resolve(o, x.Field.Target.Locator)
			if err != nil || observe.Normalize(el.RealValue()) != observe.Normalize(x.Field.Value) {
				return false, "field value differs", nil
			}
			met = append(met, "field value matches")
		}
	}
	return true, strings.Join(met, "; "), nil
}

// Recheck re-reads the original expectation of a blocked task once (a
// read, never a resend). If it now holds, the task records a late success
// and unblocks (ACT-4).
func (t *Task) Recheck(ctx context.Context) (bool, error) {
	t.mu.Lock()
	b := t.blocked
	if b == nil {
		t.mu.Unlock()
		return false, &Error{Code: InvalidArgument, Op: "recheck", Detail: "the task is not blocked"}
	}
	if b.recheck {
		t.mu.Unlock()
		return false, &Error{Code: TaskBlocked, Op: "recheck", Detail: "the one re-check was used"}
	}
	b.recheck = true
	t.mu.Unlock()
	b.page.refresh() // the one re-check reads the page afresh
	ok, evidence, err := b.page.check(ctx, b.expect)
	if err != nil {
		return false, err
	}
	if ok {
		t.mu.Lock()
		t.blocked = nil
		t.mu.Unlock()
		b.page.emit("outcome", trace.A("op", b.op), trace.A("status", "late_success"), trace.A("evidence", evidence))
		return true, nil
	}
	b.page.emit("outcome", trace.A("op", b.op), trace.A("status", "still_unknown"), trace.A("evidence", evidence))
	return false, nil
}

// WaitAnswer waits for the newest group outside the baseline the last
// new-answer click recorded (ANS-3, ANS-5, ANS-6, ANS-8).
func (p *Page) WaitAnswer(ctx context.Context, opt answer.Options) (answer.Result, error) {
	if p.baseline == nil {
		return answer.Result{}, &Error{Code: NoBaseline, Op: "waitAnswer", Detail: "send with a new-answer expectation first"}
	}
	if opt.Interval <= 0 {
		opt.Interval = p.pollInterval()
	}
	p.emit("waitAnswer", trace.A("baseline", len(p.baseline.IDs)), trace.A("media", opt.Media))
	p.noteAction("waitFor", observe.Element{}, "", "", true)
	src := pageSource{p}
	res, err := answer.Wait(ctx, src, *p.baseline, opt, func(group, state, evidence string) {
		p.emit("answer.state", trace.A("group", group), trace.A("state", state), trace.A("evidence", evidence))
	})
	if err != nil {
		return res, err
	}
	attrs := []trace.Attr{trace.A("status", res.Status), trace.A("group", res.GroupID), trace.A("rule", res.Rule),
		trace.A("baseline", res.BaselineSize), trace.A("states", strings.Join(res.States, ">")), trace.A("evidence", res.Evidence)}
	if res.Partial {
		attrs = append(attrs, trace.A("partial", true))
	}
	attrs = append(attrs, trace.A("text", res.Text))
	p.emit("answer.result", attrs...)
	return res, nil
}

// pollInterval is the longest gap between reads while waiting.
func (p *Page) pollInterval() time.Duration {
	if sc, ok := p.d.(Scheduled); ok && sc.SleepsToTransitions() {
		return scheduledInterval
	}
	if cn, ok := p.d.(ChangeNotifier); ok && cn.NotifiesChanges() {
		return p.task.e.cfg.ChangePollInterval
	}
	return p.task.e.cfg.PollInterval
}

type pageSource struct{ p *Page }

// Refresh implements answer.Refresher.
func (s pageSource) Refresh() { s.p.refresh() }

func (s pageSource) Groups(ctx context.Context) (adapter.Result, error) {
	_, g, err := s.p.read(ctx)
	return g, err
}
func (s pageSource) Now() time.Time                                   { return s.p.d.Now() }
func (s pageSource) Sleep(ctx context.Context, d time.Duration) error { return s.p.d.Sleep(ctx, d) }

// hasContent reports whether the main frame's body holds any element: a
// URL reached before its document has loaded is not yet the outcome.
func hasContent(doc *observe.Document) bool {
	found := false
	doc.Walk(func(f *observe.Frame, n *html.Node) bool {
		if found || f.ID != doc.Frames[0].ID {
			return false
		}
		if n.DataAtom == atom.Body {
			found = n.FirstChild != nil && strings.TrimSpace(textOrChild(n)) != ""
			return false
		}
		return true
	})
	return found
}

func textOrChild(n *html.Node) string {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return "element"
		}
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return c.Data
		}
	}
	return ""
}

// boundGroups keeps the last GroupsMax groups and cuts each text to
// TextCharsMax characters (marking the group TextTruncated).
func boundGroups(all []adapter.Group, lim GroupLimits) ([]adapter.Group, observe.Count) {
	c := observe.Count{Total: len(all)}
	start := max(0, len(all)-lim.GroupsMax)
	out := make([]adapter.Group, 0, len(all)-start)
	for i := start; i < len(all); i++ {
		all[i].Load()
	}
	for _, g := range all[start:] {
		if r := []rune(g.Text); len(r) > lim.TextCharsMax {
			g.Text = string(r[:lim.TextCharsMax])
			g.TextTruncated = true
			c.Truncated = true
		}
		out = append(out, g)
	}
	c.Returned = len(out)
	c.Truncated = c.Truncated || c.Returned < c.Total
	return out, c
}
