// Package answer decides whether a chat site produced a new answer and
// when it is complete (SPEC §3): a baseline of group ids taken before
// sending (ANS-3), then the last group not in that baseline, followed
// through generating to a final state, with media readiness inside that
// same group (ANS-6) and a record of what was read (ANS-8).
package answer

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/capture"
)

// Statuses of a wait. StatusComplete is the only success.
const (
	StatusComplete          = "complete"
	StatusNeedsConfirmation = "NEEDS_CONFIRMATION"
	StatusFailed            = "ANSWER_FAILED"
	// StatusStopped: the new answer was stopped while it streamed (APP-3);
	// Text is what had arrived.
	StatusStopped          = "ANSWER_STOPPED"
	StatusNoNewAnswer      = "NO_NEW_ANSWER"
	StatusMediaNotReady    = "MEDIA_NOT_READY"
	StatusStructureUnknown = "STRUCTURE_UNKNOWN"
	// StatusIncomplete: a new group appeared but was still generating at
	// the deadline; its text is partial and is never the answer.
	StatusIncomplete = "ANSWER_INCOMPLETE"
)

// Baseline is the set of group ids present before sending.
type Baseline struct {
	IDs []string
	set map[string]bool
	// replacing is the id of the group an action replaces in place
	// (regenerate, retry), and before how it read then (InPlace).
	replacing, before string
	// failure is the page-level failure signal shown before sending.
	failure string
}

// InPlace marks the last group of r as the one the action replaces in
// place (APP-3: regenerate, retry): a group under that id that reads
// otherwise afterwards (another element, another state or text) is the
// new answer, for sites that give the new answer the old one's id.
func (b *Baseline) InPlace(r adapter.Result) {
	if n := len(r.Groups); n > 0 {
		b.replacing, b.before = r.Groups[n-1].ID, fingerprint(r.Groups[n-1])
	}
}

// fingerprint is how a group reads: its element (the page's node id),
// its state and its text.
func fingerprint(g adapter.Group) string {
	g.Load()
	n := g.Node
	if n == nil && len(g.Nodes) > 0 {
		n = g.Nodes[0]
	}
	id := ""
	if n != nil {
		for _, a := range n.Attr {
			if a.Key == capture.AttrNode {
				id = a.Val
			}
		}
	}
	return id + "\x00" + g.State + "\x00" + g.Text
}

// isNew reports whether g is not the baseline's: its id was not there, or
// it is the group replaced in place and reads otherwise than it did.
func (b Baseline) isNew(g adapter.Group) bool {
	if !b.set[g.ID] {
		return true
	}
	return b.replacing != "" && g.ID == b.replacing && fingerprint(g) != b.before
}

// NewBaseline records the groups of r.
func NewBaseline(r adapter.Result) Baseline {
	b := Baseline{IDs: r.IDs(), set: map[string]bool{}, failure: r.Failure}
	for _, id := range b.IDs {
		b.set[id] = true
	}
	return b
}

// Failed returns the evidence of a page-level failure signal (LIB-5) r
// shows that the page did not show before sending: the send's outcome
// when the library adds no answer group on an error (a toast or an alert
// outside the turns). A signal already shown before sending is an earlier
// send's.
func (b Baseline) Failed(r adapter.Result) (string, bool) {
	if r.Failure == "" || b.failure != "" {
		return "", false
	}
	return r.Failure, true
}

// Has reports whether id was present before sending.
func (b Baseline) Has(id string) bool { return b.set[id] }

// Newest returns the last group of r that is not in the baseline (ANS-3)
// and comes after every baseline group still on the page: groups above a
// baseline group are older history (a page loading earlier turns while
// the engine waits), never the new answer. The seeded explorer (package
// explore) found a wait taking such a group. The group is read
// (Group.Load).
func (b Baseline) Newest(r adapter.Result) (adapter.Group, bool) {
	if i := len(r.Groups) - 1; i >= 0 && b.isNew(r.Groups[i]) {
		r.Groups[i].Load()
		return r.Groups[i], true
	}
	return adapter.Group{}, false
}

// Options bound a wait.
type Options struct {
	Timeout  time.Duration // whole wait
	Interval time.Duration // between reads when the source cannot wait for changes
	// Media, when "image" or "video", requires ready media of that kind
	// inside the new group before the answer is complete.
	Media string
	// Settle is the settle window (LIB-3): a group that reads complete is
	// the answer only once its text, its media and its state have stayed
	// the same for Settle of the source's time (lab time on the lab and
	// page clocks). Zero takes DefaultSettle; a negative value turns the
	// window off. An answer that read complete before the deadline is
	// given its whole window, even past the deadline.
	Settle time.Duration
	// Stopped says the engine clicked the site's Stop control on this
	// answer (LIB-3): a group that then reads complete was stopped, and the
	// wait ends ANSWER_STOPPED whether or not the site shows a note.
	Stopped bool
}

// DefaultSettle is the settle window when neither the profile nor the
// caller names one: long enough for a renderer that paints its last words
// one frame or a deferred update after flipping "done", short enough to
// cost little on the wall clock.
const DefaultSettle = 300 * time.Millisecond

// DefaultOptions are the defaults of Wait.
var DefaultOptions = Options{Timeout: 30 * time.Second, Interval: 50 * time.Millisecond, Settle: DefaultSettle}

// Source reads the current groups and keeps time: the browser on wall
// time, a replay on the recording's time.
type Source interface {
	Groups(ctx context.Context) (adapter.Result, error)
	Now() time.Time
	// Sleep waits for d or until the page may have changed, whichever is
	// first.
	Sleep(ctx context.Context, d time.Duration) error
}

// Refresher is a Source whose Groups may return the last read again while
// it saw no change; Refresh makes the next read see the page (Wait calls
// it when the deadline falls due).
type Refresher interface {
	Refresh()
}

// Result is what a wait read (ANS-8).
type Result struct {
	Status       string
	GroupID      string
	Rule         string
	BaselineSize int
	States       []string
	Evidence     string
	Text         string
	Partial      bool
	// PartialText is the last text the group showed while it was
	// generating ("" when the wait never saw it generating).
	PartialText string
	Media       []adapter.Media
	// Was is the id the answer had before the page swapped it once while
	// it was generating (a placeholder replaced by the real message), ""
	// when it kept its id.
	Was string
}

// swapped reports whether the group res followed was swapped for a new
// id: it was generating, is gone from r, and has not been swapped before.
func swapped(res Result, r adapter.Result) bool {
	n := len(res.States)
	if res.Was != "" || n == 0 || res.States[n-1] != adapter.StateGenerating {
		return false
	}
	for _, g := range r.Groups {
		if g.ID == res.GroupID {
			return false
		}
	}
	return true
}

// Observer is told of every state change, for the trace.
type Observer func(group, state, evidence string)

// Wait follows the newest group not in b until it reaches a final state or
// the deadline passes.
func Wait(ctx context.Context, src Source, b Baseline, opt Options, onState Observer) (Result, error) {
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultOptions.Timeout
	}
	if opt.Interval <= 0 {
		opt.Interval = DefaultOptions.Interval
	}
	if opt.Settle == 0 {
		opt.Settle = DefaultSettle
	}
	res := Result{BaselineSize: len(b.IDs)}
	deadline := src.Now().Add(opt.Timeout)
	structureSeen, empty := false, false
	// settle: the read that started the current settle window (LIB-3)
	var settleSince time.Time
	settleRead := ""
	for {
		r, err := src.Groups(ctx)
		if err != nil {
			return res, fmt.Errorf("answer: read groups: %w", err)
		}
		structureSeen = structureSeen || r.Structure
		var settleEnd time.Time // the end of the current settle window, zero outside one
		if g, ok := b.Newest(r); ok {
			if res.GroupID != "" && res.GroupID != g.ID {
				if swapped(res, r) {
					// the page replaced the placeholder it was generating
					// under its real message's id: the same answer (LIB-1)
					res.Was = res.GroupID
				} else {
					// a later new group replaced the one we followed
					res.States, res.PartialText, res.Was = nil, "", ""
				}
			}
			if opt.Stopped && g.State == adapter.StateComplete {
				// the engine stopped this answer: whatever the site shows,
				// what remains is the stopped answer (LIB-3)
				g.State, g.Evidence = adapter.StateStopped, joinEvidence(g.Evidence, "the engine clicked the site's Stop control")
			}
			res.GroupID, res.Rule, res.Text, res.Media = g.ID, g.Rule, g.Text, g.Media
			// an empty new group (a bubble the page shows before any
			// word) is never the answer, whatever its markup says (LIB-3)
			empty = g.State == adapter.StateComplete && strings.TrimSpace(g.Text) == "" && len(g.Media) == 0
			if g.State == adapter.StateGenerating {
				res.PartialText = g.Text
			}
			if !empty && (len(res.States) == 0 || res.States[len(res.States)-1] != g.State) {
				res.States = append(res.States, g.State)
				if onState != nil {
					onState(g.ID, g.State, g.Evidence)
				}
			}
			if g.State != adapter.StateComplete || empty {
				settleRead = ""
			}
			switch g.State {
			case adapter.StateComplete:
				if empty {
					break
				}
				if ok, ev := mediaReady(g, opt.Media); ok {
					if opt.Settle > 0 {
						now := src.Now()
						if read := settled(g); read != settleRead {
							settleRead, settleSince = read, now
						}
						if end := settleSince.Add(opt.Settle); now.Before(end) {
							// still inside the window: read again at its
							// end, or sooner if the page changes
							settleEnd = end
							break
						}
					}
					res.Status, res.Evidence, res.Partial = StatusComplete, joinEvidence(g.Evidence, ev), false
					return res, nil
				}
				settleRead = ""
			case adapter.StateNeedsConfirmation:
				res.Status, res.Evidence = StatusNeedsConfirmation, g.Evidence
				return res, nil
			case adapter.StateFailed:
				res.Status, res.Evidence = StatusFailed, g.Evidence
				return res, nil
			case adapter.StateStopped:
				res.Status, res.Evidence = StatusStopped, g.Evidence
				return res, nil
			}
		}
		if res.GroupID == "" {
			if ev, ok := b.Failed(r); ok {
				// the library added no answer: the page's failure
				// signal is the answer (LIB-5)
				res.States = append(res.States, adapter.StateFailed)
				if onState != nil {
					onState("", adapter.StateFailed, ev)
				}
				res.Status, res.Evidence = StatusFailed, ev+" (no answer group: the page added none)"
				return res, nil
			}
		}
		// an answer that read complete before the deadline gets its whole
		// settle window, and no more than one window past the deadline
		limit, wake := deadline, deadline
		if !settleEnd.IsZero() {
			wake = settleEnd
			if settleEnd.After(deadline) {
				limit = settleEnd
				if last := deadline.Add(opt.Settle); last.Before(limit) {
					limit = last
				}
				wake = limit
			}
		}
		if !src.Now().Before(limit) {
			return timeoutResult(res, structureSeen, empty, !settleEnd.IsZero(), opt), nil
		}
		wait := min(opt.Interval, wake.Sub(src.Now()))
		if err := src.Sleep(ctx, wait); err != nil {
			return res, err
		}
		if r, ok := src.(Refresher); ok && !src.Now().Before(wake) {
			r.Refresh() // the deadline or the settle window's end fell due: read the page whatever the source saw
		}
	}
}

// settled is what must stay the same over the settle window: the group's
// element, state and text, and its media's readiness.
func settled(g adapter.Group) string {
	s := fingerprint(g)
	for _, m := range g.Media {
		s += "\x00" + m.Kind + "=" + strconv.FormatBool(m.Ready)
	}
	return s
}

func timeoutResult(res Result, structureSeen, empty, settling bool, opt Options) Result {
	switch {
	case !structureSeen:
		res.Status, res.Evidence = StatusStructureUnknown, "the adapter found no turns on the page"
	case res.GroupID == "":
		res.Status, res.Evidence = StatusNoNewAnswer, "no group outside the baseline"
	case empty:
		res.Status, res.Partial, res.Evidence = StatusIncomplete, true, "the new group is still empty (no text, no media)"
	case settling:
		res.Status, res.Partial, res.Evidence = StatusIncomplete, true,
			fmt.Sprintf("read complete but still changing at the deadline (settle window %s)", opt.Settle)
	case len(res.States) > 0 && res.States[len(res.States)-1] == adapter.StateGenerating:
		res.Status, res.Partial, res.Evidence = StatusIncomplete, true, "still generating at the deadline"
	default:
		_, ev := mediaReady(adapter.Group{Media: res.Media}, opt.Media)
		res.Status, res.Evidence = StatusMediaNotReady, ev
	}
	return res
}

// mediaReady: with a media requirement, the new group must hold ready
// media of that kind; media elsewhere on the page is no evidence.
func mediaReady(g adapter.Group, kind string) (bool, string) {
	if kind == "" {
		return true, ""
	}
	var seen []string
	for _, m := range g.Media {
		if m.Kind != kind {
			continue
		}
		if m.Ready {
			// the exact readyState (3 or 4) depends on timing: not traced
			return true, kind + " ready in the new group"
		}
		seen = append(seen, m.Evidence)
	}
	if len(seen) == 0 {
		return false, "no " + kind + " in the new group"
	}
	return false, kind + " in the new group not ready (" + strings.Join(seen, "; ") + ")"
}

func joinEvidence(a, b string) string {
	if b == "" {
		return a
	}
	return a + "; " + b
}
