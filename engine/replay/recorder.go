package replay

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/driver"
)

// Hooks run on what a recorder stores, before anything is kept: rewrite
// the live base URL to a canonical one, scrub secrets. They run on URLs,
// typed text and every frame's HTML.
type Hooks struct {
	// Rewrite maps a recorded string to its stored form.
	Rewrite func(string) string
	// Scrub, when set, replaces secrets in everything stored, after
	// Rewrite; typed text into sensitive fields is registered with it.
	Scrub *Scrubber
}

// Recorder wraps a live driver and records the session that passes
// through it. It implements driver.Driver.
type Recorder struct {
	live  driver.Driver
	caps  driver.Caps // what live can do besides driver.Driver, asked once
	hooks Hooks
	start time.Time

	mu       sync.Mutex
	s        Session
	index    map[[32]byte]int
	lastCap  int              // index of the last recorded capture step's capture, -1 after an action
	lastLive *capture.Capture // the last live capture, to tell sensitive fields
}

// NewRecorder starts recording live.
func NewRecorder(live driver.Driver, base string, hooks Hooks) *Recorder {
	if hooks.Rewrite == nil {
		hooks.Rewrite = func(s string) string { return s }
	}
	return &Recorder{live: live, caps: driver.CapsOf(live), hooks: hooks, start: live.Now(), s: Session{Version: FormatVersion, Base: base, Timeline: true, Captures: []*capture.Capture{}, Steps: []Step{}},
		index: map[[32]byte]int{}, lastCap: -1}
}

// SetClock names the clock the live driver keeps time on (ClockLab or
// ClockWall), stored with the session so a replay follows its schedule.
func (r *Recorder) SetClock(kind string) {
	r.mu.Lock()
	r.s.Clock = kind
	r.mu.Unlock()
}

// SetScenario sets the session's scenario fingerprint.
func (r *Recorder) SetScenario(fp string) {
	r.mu.Lock()
	r.s.Scenario = fp
	r.mu.Unlock()
}

// Session returns the recording so far.
func (r *Recorder) Session() *Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.s
	s.Captures = append([]*capture.Capture(nil), r.s.Captures...)
	s.Steps = append([]Step(nil), r.s.Steps...)
	return &s
}

func (r *Recorder) at() int64 { return r.live.Now().Sub(r.start).Milliseconds() }

func (r *Recorder) add(st Step) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	st.AtMS = r.at()
	if n := len(r.s.Steps); n > 0 && st.AtMS < r.s.Steps[n-1].AtMS {
		st.AtMS = r.s.Steps[n-1].AtMS
	}
	r.s.Steps = append(r.s.Steps, st)
	if st.Kind != KindCapture && st.Kind != KindRead {
		r.lastCap = -1
	}
	return len(r.s.Steps) - 1
}

// done notes when the action recorded as step i returned (the session's
// timeline, SPEC LIB-4).
func (r *Recorder) done(i int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if at := r.at(); at > r.s.Steps[i].AtMS {
		r.s.Steps[i].DoneMS = at
	}
}

// Navigate implements driver.Driver. The recorded step keeps the HTTP
// status the document answered with, or the error of a navigation that
// got no answer, so a replay reports the same.
func (r *Recorder) Navigate(ctx context.Context, url string) error {
	i := r.add(Step{Kind: KindNavigate, URL: r.store(url)})
	err := r.live.Navigate(ctx, url)
	r.done(i)
	r.mu.Lock()
	st := &r.s.Steps[i]
	if err != nil {
		st.Error = r.store(err.Error())
	} else if r.caps.StatusReporter != nil {
		st.Status = r.caps.StatusReporter.NavigationStatus()
	}
	r.mu.Unlock()
	return err
}

// WaitQuiet implements driver.Quieter when the live driver does, and
// records the decision (KindQuiet) so a replay takes it again; with a
// live driver that cannot tell, the page is ready at once and nothing is
// recorded.
func (r *Recorder) WaitQuiet(ctx context.Context, quiet, max time.Duration) (string, error) {
	if r.caps.Quieter == nil {
		return "", nil
	}
	busy, err := r.caps.Quieter.WaitQuiet(ctx, quiet, max)
	if err != nil {
		return "", err
	}
	r.add(Step{Kind: KindQuiet, Error: r.store(busy)})
	return busy, nil
}

// StatusReporter is driver.StatusReporter.
type StatusReporter = driver.StatusReporter

// NavigationStatus implements StatusReporter.
func (r *Recorder) NavigationStatus() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.s.Steps) - 1; i >= 0; i-- {
		if r.s.Steps[i].Kind == KindNavigate {
			return r.s.Steps[i].Status
		}
	}
	return 0
}

// Click implements driver.Driver.
func (r *Recorder) Click(ctx context.Context, node string) error {
	i := r.add(Step{Kind: KindClick, Node: node})
	defer r.done(i)
	return r.live.Click(ctx, node)
}

// DoubleClick implements driver.DoubleClicker: it records the double
// click and delivers it to the live page.
func (r *Recorder) DoubleClick(ctx context.Context, node string) error {
	dc := r.caps.DoubleClicker
	if dc == nil {
		return fmt.Errorf("replay: the live driver %T cannot double-click", r.live)
	}
	i := r.add(Step{Kind: KindDoubleClick, Node: node})
	defer r.done(i)
	return dc.DoubleClick(ctx, node)
}

// ScrollToTop implements driver.Scroller: it records the scroll and
// delivers it to the live page.
func (r *Recorder) ScrollToTop(ctx context.Context) error {
	sc := r.caps.Scroller
	if sc == nil {
		return fmt.Errorf("replay: the live driver %T cannot scroll", r.live)
	}
	i := r.add(Step{Kind: KindScroll})
	defer r.done(i)
	return sc.ScrollToTop(ctx)
}

// Type implements driver.Driver. Text typed into a sensitive field is
// stored as a placeholder.
func (r *Recorder) Type(ctx context.Context, node, text string) error {
	i := r.addTyped(node, text)
	defer r.done(i)
	return r.live.Type(ctx, node, text)
}

// addTyped records text typed into node; into a sensitive field (by the
// last live capture) it is stored as the scrubber's placeholder.
func (r *Recorder) addTyped(node, text string) int {
	r.mu.Lock()
	last := r.lastLive
	r.mu.Unlock()
	if r.hooks.Scrub != nil && SensitiveNode(last, node) {
		return r.add(Step{Kind: KindType, Node: node, Text: r.hooks.Scrub.AddSecret(text), Redacted: true})
	}
	return r.add(Step{Kind: KindType, Node: node, Text: r.store(text)})
}

// store is what every recorded string goes through.
func (r *Recorder) store(v string) string {
	v = r.hooks.Rewrite(v)
	if r.hooks.Scrub != nil {
		v = r.hooks.Scrub.Scrub(v)
	}
	return v
}

// Press implements driver.Driver.
func (r *Recorder) Press(ctx context.Context, node, key string) error {
	i := r.add(Step{Kind: KindPress, Node: node, Key: key})
	defer r.done(i)
	return r.live.Press(ctx, node, key)
}

// Capture implements driver.Driver: it records the capture, or, when it
// equals the one recorded just before with no action between, a read of
// the unchanged page (KindRead), at the offset the read returned: the
// session holds every read its waits made (SPEC LIB-4).
func (r *Recorder) Capture(ctx context.Context) (*capture.Capture, error) {
	c, err := r.live.Capture(ctx)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.lastLive = c
	r.mu.Unlock()
	stored := r.rewrite(c)
	key := captureKey(stored)
	r.mu.Lock()
	idx, ok := r.index[key]
	if !ok {
		idx = len(r.s.Captures)
		r.s.Captures = append(r.s.Captures, stored)
		r.index[key] = idx
	}
	dup := r.lastCap == idx
	r.mu.Unlock()
	if dup {
		r.add(Step{Kind: KindRead})
	} else {
		i := idx
		r.add(Step{Kind: KindCapture, Capture: &i})
		r.mu.Lock()
		r.lastCap = idx
		r.mu.Unlock()
	}
	return c, nil
}

func (r *Recorder) rewrite(c *capture.Capture) *capture.Capture {
	out := &capture.Capture{Version: c.Version, URL: r.store(c.URL), Title: r.store(c.Title)}
	for _, f := range c.Frames {
		f.URL = r.store(f.URL)
		f.HTML = r.store(f.HTML)
		out.Frames = append(out.Frames, f)
	}
	return out
}

// NotifiesChanges forwards the live driver's answer (driver.ChangeNotifier).
func (r *Recorder) NotifiesChanges() bool {
	return r.caps.ChangeNotifier != nil && r.caps.ChangeNotifier.NotifiesChanges()
}

// SleepsToTransitions forwards the live driver's answer (driver.Scheduled).
func (r *Recorder) SleepsToTransitions() bool {
	return r.caps.Scheduled != nil && r.caps.Scheduled.SleepsToTransitions()
}

// StreamNotes forwards the live driver's answer (driver.StreamNoter).
func (r *Recorder) StreamNotes() []string {
	if r.caps.StreamNoter != nil {
		return r.caps.StreamNoter.StreamNotes()
	}
	return nil
}

// Now implements driver.Driver.
func (r *Recorder) Now() time.Time { return r.live.Now() }

// Sleep implements driver.Driver.
func (r *Recorder) Sleep(ctx context.Context, d time.Duration) error { return r.live.Sleep(ctx, d) }

// BaseRewriter returns a Rewrite hook that replaces every occurrence of
// each live base with the canonical one.
func BaseRewriter(canonical string, live ...string) func(string) string {
	pairs := []string{}
	for _, l := range live {
		if l != "" && l != canonical {
			pairs = append(pairs, l, canonical)
		}
	}
	rep := strings.NewReplacer(pairs...)
	return rep.Replace
}

// User records an action the user took in the live page (not one the
// engine asked for): a click, a key press, or typed text, scrubbed like
// the engine's (typed into a sensitive field, it becomes a placeholder).
func (r *Recorder) User(kind, node, text, key string) {
	switch kind {
	case KindClick:
		r.add(Step{Kind: KindClick, Node: node})
	case KindPress:
		r.add(Step{Kind: KindPress, Node: node, Key: key})
	case KindType:
		r.addTyped(node, text)
	}
}
