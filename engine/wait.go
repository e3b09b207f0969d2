package engine

import (
	"context"
	"strings"
	"time"

	"github.com/replaylab/replaylab/engine/adapter"
	"github.com/replaylab/replaylab/engine/answer"
	"github.com/replaylab/replaylab/engine/observe"
	"github.com/replaylab/replaylab/engine/trace"
)

// scheduledInterval is the "poll interval" of a Scheduled driver: longer
// than any deadline, so every sleep is to the deadline or the next
// transition.
const scheduledInterval = 1000 * time.Hour

// WaitAnswer waits for the newest group outside the baseline the last
// new-answer click recorded (ANS-3, ANS-5, ANS-6, ANS-8).
func (p *Page) WaitAnswer(ctx context.Context, opt answer.Options) (answer.Result, error) {
	if p.baseline == nil {
		return answer.Result{}, &Error{Code: NoBaseline, Op: "waitAnswer", Detail: "send with a new-answer expectation first"}
	}
	if opt.Interval <= 0 {
		opt.Interval = p.pollInterval()
	}
	if opt.Settle == 0 {
		opt.Settle = p.task.e.cfg.Settle
	}
	opt.Stopped = opt.Stopped || p.stopped
	p.emit("waitAnswer", trace.A("baseline", len(p.baseline.IDs)), trace.A("media", opt.Media))
	p.noteAction("waitFor", observe.Element{}, "", "", true)
	src := pageSource{p}
	res, err := answer.Wait(ctx, src, *p.baseline, opt, func(group, state, evidence string) {
		p.emit("answer.state", trace.A("group", group), trace.A("state", state), trace.A("evidence", evidence))
	})
	if err != nil {
		return res, err
	}
	if sn, ok := p.d.(StreamNoter); ok && res.Status != answer.StatusComplete {
		if notes := sn.StreamNotes(); len(notes) > 0 {
			res.Evidence += "; streams the page clock stopped waiting for before their end: " + strings.Join(notes, "; ")
		}
	}
	attrs := []trace.Attr{trace.A("status", res.Status), trace.A("group", res.GroupID), trace.A("rule", res.Rule),
		trace.A("baseline", res.BaselineSize), trace.A("states", strings.Join(res.States, ">")), trace.A("evidence", res.Evidence)}
	if res.Partial {
		attrs = append(attrs, trace.A("partial", true))
	}
	if res.Was != "" {
		attrs = append(attrs, trace.A(trace.KeyWas, res.Was))
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
