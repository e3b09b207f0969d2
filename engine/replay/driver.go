package replay

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/replaylab/replaylab/engine/capture"
	"github.com/replaylab/replaylab/engine/errcode"
)

// Code is the stable code of a divergence, REPLAY_DIVERGED (an errcode
// value: errors.Is(err, replay.Code) is true for every *DivergedError).
const Code = errcode.ReplayDiverged

// DivergedError says where the engine departed from the recording.
type DivergedError struct {
	Step  int    // index of the recorded step that was expected
	Field string // the field that differed: kind, node, url, text, key or step
	Want  string // what the recording holds
	Got   string // what the engine asked for
	// Closest is the recorded action nearest to what was asked, for the
	// reader of the diff.
	Closest string
}

func (e *DivergedError) Error() string {
	msg := fmt.Sprintf("replay: %s at step %d: field %s differs: recorded %s, engine asked %s", Code, e.Step, e.Field, e.Want, e.Got)
	if e.Closest != "" {
		msg += "; closest recorded action: " + e.Closest
	}
	return msg
}

// ErrorCode returns REPLAY_DIVERGED.
func (e *DivergedError) ErrorCode() string { return string(Code) }

// Is makes errors.Is(err, replay.Code) true.
func (e *DivergedError) Is(target error) bool { return target == Code }

// Driver replays a session. It implements driver.Driver on the
// recording's clock: Now starts at the recording's start and advances with
// the steps consumed and the engine's sleeps. A timeline session (SPEC
// LIB-4) is replayed read for read: each read the engine makes is answered
// by the next read the live run made, at its offset, and a sleep never
// passes the next recorded read, so a wait reads the same states at the
// same times as the live run and times out where it did.
type Driver struct {
	s *Session

	mu    sync.Mutex
	pos   int
	last  *capture.Capture
	now   time.Time
	t0    time.Time
	fresh bool // no capture read since the start or the last action

	// unscrub maps the placeholders of redacted typed steps to the text
	// the engine typed, to put back into the captures returned.
	unscrub []string
	shown   map[*capture.Capture]*capture.Capture
}

// NewDriver replays s from its first step.
func NewDriver(s *Session) *Driver {
	t0 := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	return &Driver{s: s, now: t0, t0: t0, fresh: true}
}

func (d *Driver) advance(st Step) {
	if at := d.t0.Add(time.Duration(st.AtMS) * time.Millisecond); at.After(d.now) {
		d.now = at
	}
	if at := d.t0.Add(time.Duration(st.DoneMS) * time.Millisecond); at.After(d.now) {
		d.now = at // the action returned then (a timeline session)
	}
}

// isRead reports whether st is a read of the page: a capture, or a read
// of the unchanged page.
func isRead(st Step) bool { return st.Kind == KindCapture || st.Kind == KindRead }

// nextRead is the offset of the next recorded read when the next step is
// one.
func (d *Driver) nextRead() (time.Time, bool) {
	if d.pos < len(d.s.Steps) && isRead(d.s.Steps[d.pos]) {
		return d.t0.Add(time.Duration(d.s.Steps[d.pos].AtMS) * time.Millisecond), true
	}
	return time.Time{}, false
}

// Capture returns the page as the recording saw it at the replay's
// current time: the first capture after an action at once, later ones only
// when the clock has reached their offset (so a poll sees a generating
// state for as long as the live run did), one step at a time, never
// skipping one. When the next step is an action or the recording has
// ended, the last capture is returned again.
func (d *Driver) Capture(ctx context.Context) (*capture.Capture, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.s.Timeline {
		// the next read of the live run answers this one, whatever the
		// replay's clock says: the clock then is the live run's
		if d.pos < len(d.s.Steps) && isRead(d.s.Steps[d.pos]) {
			st := d.s.Steps[d.pos]
			d.pos++
			d.advance(st)
			if st.Kind == KindCapture {
				d.last = d.s.Captures[*st.Capture]
			}
		}
	} else if d.pos < len(d.s.Steps) && d.s.Steps[d.pos].Kind == KindCapture &&
		(d.fresh || !d.t0.Add(time.Duration(d.s.Steps[d.pos].AtMS)*time.Millisecond).After(d.now)) {
		d.fresh = false
		st := d.s.Steps[d.pos]
		d.pos++
		d.advance(st)
		d.last = d.s.Captures[*st.Capture]
	}
	if d.last == nil {
		return nil, &DivergedError{Step: d.pos, Field: "kind", Want: d.describeNext(), Got: "capture", Closest: ""}
	}
	return d.unscrubbed(d.last), nil
}

// unscrubbed returns c with the placeholders of redacted typed text
// replaced by what the engine typed in this replay.
func (d *Driver) unscrubbed(c *capture.Capture) *capture.Capture {
	if len(d.unscrub) == 0 {
		return c
	}
	if d.shown == nil {
		d.shown = map[*capture.Capture]*capture.Capture{}
	}
	if out, ok := d.shown[c]; ok {
		return out
	}
	rep := strings.NewReplacer(d.unscrub...)
	out := &capture.Capture{Version: c.Version, URL: c.URL, Title: c.Title}
	for _, f := range c.Frames {
		f.HTML = rep.Replace(f.HTML)
		out.Frames = append(out.Frames, f)
	}
	d.shown[c] = out
	return out
}

func (d *Driver) describeNext() string {
	if d.pos >= len(d.s.Steps) {
		return "end of recording"
	}
	return d.s.Steps[d.pos].String()
}

// act matches an action against the next recorded action. Captures the
// engine did not read before acting are skipped.
func (d *Driver) act(want Step) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for d.pos < len(d.s.Steps) && isRead(d.s.Steps[d.pos]) {
		st := d.s.Steps[d.pos]
		if st.Kind == KindCapture {
			d.last = d.s.Captures[*st.Capture]
		}
		d.advance(st)
		d.pos++
	}
	if d.pos >= len(d.s.Steps) {
		return &DivergedError{Step: d.pos, Field: "step", Want: "end of recording", Got: want.String(), Closest: d.closest(want)}
	}
	rec := d.s.Steps[d.pos]
	field, w, g := "", "", ""
	switch {
	case rec.Kind != want.Kind:
		field, w, g = "kind", rec.Kind, want.Kind
	case rec.Node != want.Node:
		field, w, g = "node", rec.Node, want.Node
	case rec.URL != want.URL:
		field, w, g = "url", rec.URL, want.URL
	case rec.Text != want.Text && !rec.Redacted:
		field, w, g = "text", fmt.Sprintf("%q", rec.Text), fmt.Sprintf("%q", want.Text)
	case rec.Key != want.Key:
		field, w, g = "key", rec.Key, want.Key
	}
	if field != "" {
		return &DivergedError{Step: d.pos, Field: field, Want: w, Got: g, Closest: d.closest(want)}
	}
	if rec.Redacted && rec.Text != "" {
		d.unscrub = append(d.unscrub, rec.Text, want.Text)
		d.shown = nil
	}
	d.pos++
	d.advance(rec)
	d.fresh = true
	return nil
}

// closest is the recorded action of the same kind with the most equal
// fields.
func (d *Driver) closest(want Step) string {
	best, score := "", -1
	for _, st := range d.s.Steps {
		if isRead(st) {
			continue
		}
		sc := 0
		for _, eq := range []bool{st.Kind == want.Kind, st.Node == want.Node, st.URL == want.URL, st.Text == want.Text, st.Key == want.Key} {
			if eq {
				sc++
			}
		}
		if sc > score {
			best, score = st.String(), sc
		}
	}
	return best
}

// Navigate implements driver.Driver: a navigation recorded as failed
// fails again with the recorded reason.
func (d *Driver) Navigate(ctx context.Context, url string) error {
	if err := d.act(Step{Kind: KindNavigate, URL: url}); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if st := d.lastNavigate(); st != nil && st.Error != "" {
		return &NavigationError{URL: url, Reason: st.Error}
	}
	return nil
}

// WaitQuiet implements driver.Quieter: the recorded quiet wait is taken
// again (captures before it that the engine did not read are skipped, as
// before an action) and its recorded result returned. A session recorded
// before quiet waits existed has none: its page is ready at once.
func (d *Driver) WaitQuiet(ctx context.Context, quiet, max time.Duration) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	d.mu.Lock()
	i := d.pos
	for i < len(d.s.Steps) && isRead(d.s.Steps[i]) {
		i++
	}
	recorded := i < len(d.s.Steps) && d.s.Steps[i].Kind == KindQuiet
	d.mu.Unlock()
	if !recorded {
		return "", nil
	}
	if err := d.act(Step{Kind: KindQuiet}); err != nil {
		return "", err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.s.Steps[d.pos-1].Error, nil
}

// NavigationError is a recorded navigation that got no answer.
type NavigationError struct{ URL, Reason string }

func (e *NavigationError) Error() string { return "replay: recorded navigation failed: " + e.Reason }

func (d *Driver) lastNavigate() *Step {
	for i := d.pos - 1; i >= 0; i-- {
		if d.s.Steps[i].Kind == KindNavigate {
			return &d.s.Steps[i]
		}
	}
	return nil
}

// NavigationStatus implements StatusReporter: the recorded status of the
// last navigation replayed.
func (d *Driver) NavigationStatus() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if st := d.lastNavigate(); st != nil {
		return st.Status
	}
	return 0
}

// Click implements driver.Driver.
func (d *Driver) Click(ctx context.Context, node string) error {
	return d.act(Step{Kind: KindClick, Node: node})
}

// DoubleClick implements driver.DoubleClicker.
func (d *Driver) DoubleClick(ctx context.Context, node string) error {
	return d.act(Step{Kind: KindDoubleClick, Node: node})
}

// ScrollToTop implements driver.Scroller.
func (d *Driver) ScrollToTop(ctx context.Context) error {
	return d.act(Step{Kind: KindScroll})
}

// Type implements driver.Driver.
func (d *Driver) Type(ctx context.Context, node, text string) error {
	return d.act(Step{Kind: KindType, Node: node, Text: text})
}

// Press implements driver.Driver.
func (d *Driver) Press(ctx context.Context, node, key string) error {
	return d.act(Step{Kind: KindPress, Node: node, Key: key})
}

// Now is the recording's clock.
func (d *Driver) Now() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.now
}

// Sleep advances the recording's clock by dur without waiting. On a lab
// session it stops earlier at the next recorded capture's offset, as the
// live wait woke at the transition that capture shows: the replay follows
// the recorded schedule. On a timeline session it stops at the next
// recorded read, whatever its kind: the live wait read then, so the
// replay's wait reads then too.
func (d *Driver) Sleep(ctx context.Context, dur time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	target := d.now.Add(max(dur, 0))
	if d.s.Timeline {
		if at, ok := d.nextRead(); ok && at.Before(target) {
			target = at
			if target.Before(d.now) {
				target = d.now
			}
		}
	} else if d.s.Clock == ClockLab && d.pos < len(d.s.Steps) && d.s.Steps[d.pos].Kind == KindCapture {
		at := d.t0.Add(time.Duration(d.s.Steps[d.pos].AtMS) * time.Millisecond)
		switch {
		case !at.After(d.now):
			// the replay's clock is past the next capture (an earlier
			// wait read longer than the live run, e.g. a settle window
			// added since): the live wait woke for it, so does this one
			target = d.now
		case at.Before(target):
			target = at
		}
	}
	d.now = target
	return nil
}

// SleepsToTransitions tells the engine (driver.Scheduled) that a lab
// session's Sleep wakes at the next recorded capture.
func (d *Driver) SleepsToTransitions() bool { return d.s.Clock == ClockLab }

// Unused lists the recorded actions the replay never reached.
func (d *Driver) Unused() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for i := d.pos; i < len(d.s.Steps); i++ {
		if !isRead(d.s.Steps[i]) {
			out = append(out, fmt.Sprintf("step %d: %s", i, d.s.Steps[i]))
		}
	}
	return out
}

// Summary says how far the replay got, e.g. "12/14 steps".
func (d *Driver) Summary() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return fmt.Sprintf("%d/%d steps", d.pos, len(d.s.Steps))
}
